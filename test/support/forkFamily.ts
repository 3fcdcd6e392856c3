/**
 * A pi agent dir holding a parent session and its fork, for the tests of the fork rule: the fork copies the parent's
 * two entries (u1, a1: the same ids and times) and adds its own prompt (u2). `ownedStore` loads it as the store does,
 * with each entry owned by the session that wrote it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveRoots } from "../../src/node/roots.js";
import { computeOwnership, loadStore } from "../../src/node/store/index.js";
import { fork, header, message } from "./builders.js";
import { jsonl } from "./helpers.js";

export function writeForkFamily(
  dir: string,
  text: { prompt?: string; answer?: string; own?: string } = {},
): { agent: string; parent: string; child: string } {
  const agent = join(dir, "agent");
  const slug = join(agent, "sessions", "--p--");
  mkdirSync(slug, { recursive: true });
  const parent = join(slug, "parent.jsonl");
  const child = join(slug, "child.jsonl");
  const shared = [
    message("u1", null, "user", text.prompt ?? "shared prompt", { time: 1 }),
    message("a1", "u1", "assistant", text.answer ?? "shared answer", { time: 2 }),
  ];
  writeFileSync(parent, jsonl(header({ id: "p", time: 0 }), ...shared));
  writeFileSync(
    child,
    jsonl(
      fork(parent, { id: "c", time: 5 }),
      ...shared,
      message("u2", "a1", "user", text.own ?? "fork's own prompt", { time: 6 }),
    ),
  );
  return { agent, parent, child };
}

/** The store of an agent dir, uncached, with ownership computed (a fork's copies are its parent's). */
export async function ownedStore(agent: string) {
  const store = await loadStore({ roots: resolveRoots({ agentDirs: [agent] }), cacheFile: null });
  computeOwnership(store.sessions);
  return store;
}
