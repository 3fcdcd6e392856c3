/**
 * The prompt behind an entry: the first line of the nearest user message at or above it on its branch (the turn
 * that led to a tool call). The CodeLens picker, Agent History and the recall tool's file history name turns by it.
 */
import { messageText } from "./entryText.js";
import type { Session } from "./session/index.js";
import { plainLabel } from "../protocol/markdown.js";
import { truncate } from "../protocol/format.js";

/** Entries walked up from one entry at most (a chain without a user message ends the walk). */
const MAX_WALK = 100_000;

/**
 * The first line (clipped to `max`) of the prompt behind an entry, memoized along the way up: the calls of one long
 * turn share their walk, so a session's touches cost its entries once. "" when no prompt is above it.
 */
export function promptLines(session: Session, max = 120): (id: string) => string {
  const memo = new Map<string, string>();
  return (id: string): string => {
    const chain: string[] = [];
    let line = "";
    for (let at: string | null = id; at !== null && chain.length < MAX_WALK;) {
      const known = memo.get(at);
      if (known !== undefined) {
        line = known;
        break;
      }
      chain.push(at);
      const e = session.byId.get(at);
      if (!e) break;
      const m = e.role === "user" ? e.message : undefined;
      if (m) {
        const text = messageText(m).trim();
        if (text) {
          line = truncate(plainLabel(text.split("\n", 1)[0]!), max);
          break;
        }
      }
      at = e.parentId;
    }
    for (const c of chain) memo.set(c, line);
    return line;
  };
}
