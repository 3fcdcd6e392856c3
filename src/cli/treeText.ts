/**
 * Draws a session tree with box characters, the way pi's /tree does: linear runs stay flat, branches indent, the
 * branch holding the leaf first; each branch's start says its number ("Branch 2/3", as the extension names it).
 */
import { countOf, oneLine } from "../protocol/format.js";
import { describeEntry } from "../core/entryText.js";
import { pathTo, type Session } from "../core/session/index.js";
import { branchStartingAt, childrenInTreeOrder } from "../core/branches.js";

/** Characters of indentation at most: 40 levels of branches. */
const MAX_INDENT = 120;

export function renderTree(session: Session): string {
  const out: string[] = [];
  const active = new Set(pathTo(session, session.leafId).map((e) => e.id));
  const branchPoints = [...session.children.values()].filter((c) => c.length > 1).length;
  const name = session.name ? JSON.stringify(session.name) : "(unnamed)";
  out.push(
    oneLine(`${name}  ${session.flavor} v${session.version}  ${String(session.header.cwd ?? "")}`),
    [
      countOf(session.entries.length, "entry", "entries"),
      countOf(branchPoints, "branch point"),
      countOf(session.compactions.length, "compaction"),
      `leaf ${session.leafId ?? "none"}${session.forkOf ? ` · forked from ${session.forkOf.raw}` : ""}`,
    ]
      .map(oneLine)
      .join(" · "),
    "",
  );
  type Frame = { id: string; lead: string; prefix: string };
  const stack: Frame[] = [];
  const pushChildren = (ids: string[], prefix: string, flat: boolean) => {
    if (flat && ids.length === 1) {
      stack.push({ id: ids[0]!, lead: prefix, prefix });
      return;
    }
    for (let i = ids.length - 1; i >= 0; i--) {
      const last = i === ids.length - 1;
      // Deeper than the indent shown: the rows stay at it (a comb of thousands of nested branches would otherwise
      // write lines of megabytes, and the whole tree past what a string can hold).
      const deeper = prefix.length < MAX_INDENT ? `${prefix}${last ? "   " : "│  "}` : prefix;
      stack.push({ id: ids[i]!, lead: `${prefix}${last ? "└─ " : "├─ "}`, prefix: deeper });
    }
  };
  pushChildren(childrenInTreeOrder(session, null), "", true);
  while (stack.length) {
    const { id, lead, prefix } = stack.pop()!;
    const entry = session.byId.get(id)!;
    const marker = active.has(id) ? "●" : "○";
    const label = session.labels.get(id);
    const branch = branchStartingAt(session, id);
    const tags = [
      label ? `[${label.label}]` : "",
      branch ? `Branch ${branch.number}/${branch.of}` : "",
      id === session.leafId ? "◀ leaf" : "",
    ]
      .filter(Boolean)
      .join(" ");
    // Ids, labels and descriptions are session text: one line each, so nothing can forge a row.
    out.push(`${lead}${marker} ${oneLine(`${id} ${describeEntry(entry)}${tags ? `  ${tags}` : ""}`)}`);
    pushChildren(childrenInTreeOrder(session, id), prefix, true);
  }
  if (session.detached.length) out.push("", oneLine(`detached (parentId cycle): ${session.detached.join(", ")}`));
  return out.join("\n");
}
