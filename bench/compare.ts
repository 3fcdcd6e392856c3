/**
 * Rows 32 of `npm run bench` (issue #32, item 2): Compare Branches on the two hostile shapes the attack found
 * quadratic, each at two sizes, against parsing the same session in the same run. Linear work keeps compare's share
 * of the parse near constant as the size doubles; quadratic work doubled it each time (10k / 20k / 40k calls in one
 * message: 0.5 / 2.2 / 10.6 s; 500 / 1,000 / 2,000 edits of a 1 MB file: 2.1 / 4.0 / 11.1 s per side).
 */
import { parseSession, type Session } from "../src/core/session/index.js";
import { compareModel, type CompareEnd } from "../src/node/views/compare.js";
import { median, ms, type Row } from "./row.js";

const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();

function lines(records: unknown[]): Buffer {
  return Buffer.from(records.map((r) => JSON.stringify(r)).join("\n") + "\n");
}

const msg = (id: string, parentId: string | null, n: number, message: Record<string, unknown>) => ({
  type: "message",
  id,
  parentId,
  timestamp: at(n),
  message: { timestamp: n, ...message },
});
const result = (id: string, parentId: string, n: number, callId: string) =>
  msg(id, parentId, n, {
    role: "toolResult",
    toolCallId: callId,
    toolName: "write",
    content: [{ type: "text", text: "ok" }],
  });

/** One assistant message with `calls` writes (each its own file), their results, then two branches that write f0. */
function manyCalls(calls: number): Buffer {
  const content = Array.from({ length: calls }, (_, i) => ({
    type: "toolCall",
    id: `c${i}`,
    name: "write",
    arguments: { path: `/w/f${i}.txt`, content: `text ${i}` },
  }));
  const records: unknown[] = [{ type: "session", version: 3, id: "calls", timestamp: at(0), cwd: "/w" }];
  records.push(msg("u", null, 1, { role: "user", content: "go" }));
  records.push(msg("a", "u", 2, { role: "assistant", content, provider: "p", model: "m", stopReason: "toolUse" }));
  let parent = "a";
  for (let i = 0; i < calls; i++) {
    records.push(result(`r${i}`, parent, 3, `c${i}`));
    parent = `r${i}`;
  }
  for (const side of ["x", "y"]) {
    const call = { type: "toolCall", id: `c${side}`, name: "write", arguments: { path: "/w/f0.txt", content: side } };
    records.push(msg(side, parent, 4, { role: "assistant", content: [call], provider: "p", model: "m" }));
    records.push(result(`${side}r`, side, 5, `c${side}`));
  }
  return lines(records);
}

/** A 1 MB file written, then edited `edits` times, a message each; then two branches that each edit it once more. */
function manyEdits(edits: number): Buffer {
  const words = Array.from({ length: edits + 2 }, (_, i) => `marker${i}word`);
  const filler = "x".repeat(Math.max(0, 1048576 - words.join("\n").length));
  const records: unknown[] = [{ type: "session", version: 3, id: "edits", timestamp: at(0), cwd: "/w" }];
  records.push(msg("u", null, 1, { role: "user", content: "go" }));
  const call = (id: string, name: string, args: Record<string, unknown>) => ({
    role: "assistant",
    content: [{ type: "toolCall", id: `c${id}`, name, arguments: args }],
    provider: "p",
    model: "m",
  });
  records.push(msg("w", "u", 2, call("w", "write", { path: "/w/big.txt", content: `${words.join("\n")}\n${filler}` })));
  records.push(result("wr", "w", 3, "cw"));
  let parent = "wr";
  const edit = (id: string, from: string, i: number) => {
    records.push(msg(id, from, 4, call(id, "edit", { path: "/w/big.txt", oldText: words[i], newText: `done${i}` })));
    records.push(result(`${id}r`, id, 5, `c${id}`));
    return `${id}r`;
  };
  for (let i = 0; i < edits; i++) parent = edit(`e${i}`, parent, i);
  edit("x", parent, edits);
  edit("y", parent, edits + 1);
  return lines(records);
}

function ends(session: Session): [CompareEnd, CompareEnd] {
  const leaf = (side: string) => [...session.byId.keys()].find((id) => id === `${side}r`) ?? null;
  const end = (side: string, role: CompareEnd["role"]): CompareEnd => ({
    session,
    leafId: leaf(side),
    file: session.file,
    title: side,
    role,
  });
  return [end("x", "active"), end("y", "fork")];
}

/** Compare's time and the parse's, both medians; the diffable flags prove the final texts were worked out. */
function measure(bytes: Buffer, runs: number): { compareMs: number; parseMs: number } {
  const parse = () => {
    const r = parseSession("bench.jsonl", bytes, { validate: false });
    if (!r.ok) throw new Error("bench session rejected");
    return r.session;
  };
  const parseMs = median(parse, runs);
  const session = parse();
  const compareMs = median(() => {
    const [a, b] = ends(parse());
    const model = compareModel(a, b, "/home/bench");
    if (!model.bothEdited.length || !model.bothEdited.every((f) => f.diffable))
      throw new Error("bench: the final texts were not worked out");
  }, runs);
  void session;
  return { compareMs: Math.max(0, compareMs - parseMs), parseMs };
}

export function compareRows(quick: boolean): Row[] {
  const runs = quick ? 3 : 5;
  const rows: Row[] = [];
  const cases = [
    { what: "tool calls in one message", sizes: quick ? [5000, 10000] : [20000, 40000], make: manyCalls },
    // A side's edits may search and build 256 M characters in all (EDIT_WORK_BUDGET in node/views/compare.ts): about
    // 85 edits of a 1 MB file. Past it the file's final text is unknown, so the row stays inside the budget.
    { what: "edits of a 1 MB file", sizes: quick ? [20, 40] : [40, 80], make: manyEdits },
  ];
  for (const c of cases) {
    const [small, large] = c.sizes.map((n) => measure(c.make(n), runs)) as [
      ReturnType<typeof measure>,
      ReturnType<typeof measure>,
    ];
    const growth = large.compareMs / Math.max(small.compareMs, 0.01);
    rows.push({
      n: 32,
      measure: `compare: ${c.sizes[1]} ${c.what} (${c.sizes[0]} → ${c.sizes[1]})`,
      value: `${ms(large.compareMs)} ms (${ms(small.compareMs)} ms at ${c.sizes[0]})`,
      baseline: `parse ${ms(large.parseMs)} ms`,
      ratio: `${(large.compareMs / large.parseMs).toFixed(2)}× the parse; ${growth.toFixed(1)}× for 2× the size`,
      goal: "≤ 2.5× for 2× the size (linear)",
      met: growth <= 2.5,
    });
  }
  return rows;
}
