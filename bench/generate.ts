/**
 * Deterministic generator of realistic pi v3 sessions (fixed seed): user prompts, assistant turns with
 * thinking, tool calls and usage/cost, tool results of varied sizes (a few multi-hundred-KB ones),
 * model/thinking changes, labels, compactions and ~50 branch points.
 */
import { createWriteStream } from "node:fs";
import { once } from "node:events";

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = "the a function test file error value return import export const let type interface async await module build run check path tree node branch leaf session parse entry label compact summary token cost model".split(" ");

export interface GenerateOptions {
  targetBytes: number;
  branchPoints: number;
  seed: number;
}

/** Writes the session to `file`; returns entry count and bytes. */
export async function generateSession(file: string, opts: GenerateOptions): Promise<{ entries: number; bytes: number }> {
  const rand = rng(opts.seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const hex = () => Math.floor(rand() * 0xffffffff).toString(16).padStart(8, "0");
  const out = createWriteStream(file);
  let bytes = 0;
  let entries = 0;
  const start = Date.parse("2026-06-01T09:00:00.000Z");
  let clock = start;
  const write = async (obj: unknown) => {
    const line = JSON.stringify(obj) + "\n";
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, "drain");
  };
  const ids = new Set<string>();
  const newId = () => {
    let id = hex();
    while (ids.has(id)) id = hex();
    ids.add(id);
    return id;
  };
  const base = (type: string, parentId: string | null): { type: string; id: string; parentId: string | null; timestamp: string } => {
    clock += 1000 + Math.floor(rand() * 20000);
    entries++;
    return { type, id: newId(), parentId, timestamp: new Date(clock).toISOString() };
  };
  await write({ type: "session", version: 3, id: "0190a000-0000-7000-8000-000000000001", timestamp: new Date(start).toISOString(), cwd: "/home/u/src/bench" });
  let leaf: string | null = null;
  let e: Record<string, unknown> = { ...base("model_change", leaf), provider: "anthropic", modelId: "claude-sonnet-4-5" };
  await write(e);
  leaf = e.id as string;
  e = { ...base("thinking_level_change", leaf), thinkingLevel: "medium" };
  await write(e);
  leaf = e.id as string;
  const userIds: string[] = [];
  const branchEvery = Math.max(1, Math.floor(opts.targetBytes / (opts.branchPoints + 1)));
  let nextBranchAt = branchEvery;
  let call = 0;
  while (bytes < opts.targetBytes) {
    if (bytes >= nextBranchAt && userIds.length > 4) {
      // re-prompt from an earlier user message's parent: a new branch point
      nextBranchAt += branchEvery;
      const target = userIds[Math.floor(rand() * (userIds.length - 1))]!;
      leaf = target; // the new user message becomes a sibling of target's child
    }
    const user: { id: string; [k: string]: unknown } = { ...base("message", leaf), message: { role: "user", content: [{ type: "text", text: words(8 + Math.floor(rand() * 60)) }], timestamp: clock } };
    await write(user);
    leaf = user.id;
    userIds.push(user.id);
    const steps = 1 + Math.floor(rand() * 5);
    for (let s = 0; s < steps; s++) {
      const callId = `toolu_${(call++).toString(36).padStart(10, "0")}`;
      const input = 200 + Math.floor(rand() * 4000);
      const output = 50 + Math.floor(rand() * 1500);
      const cacheRead = Math.floor(rand() * 60000);
      const cost = { input: input * 3e-6, output: output * 15e-6, cacheRead: cacheRead * 3e-7, cacheWrite: 0, total: 0 };
      cost.total = cost.input + cost.output + cost.cacheRead;
      const assistant: { id: string; [k: string]: unknown } = {
        ...base("message", leaf),
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: words(20 + Math.floor(rand() * 80)), thinkingSignature: hex().repeat(8) },
            { type: "text", text: words(10 + Math.floor(rand() * 120)) },
            { type: "toolCall", id: callId, name: pick(["read", "bash", "edit", "write"]), arguments: { path: `src/${pick(WORDS)}/${pick(WORDS)}.ts`, command: words(6) } },
          ],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: { input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead, cost },
          stopReason: "toolUse",
          timestamp: clock,
        },
      };
      await write(assistant);
      leaf = assistant.id;
      const r = rand();
      const size = r < 0.6 ? 200 + Math.floor(rand() * 2000) : r < 0.97 ? 4000 + Math.floor(rand() * 20000) : 100_000 + Math.floor(rand() * 400_000);
      const text = "x".repeat(size).replace(/x{80}/g, () => words(12).padEnd(79, ".").slice(0, 79) + "\n");
      const result: { id: string; [k: string]: unknown } = { ...base("message", leaf), message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text }], isError: rand() < 0.05, timestamp: clock } };
      await write(result);
      leaf = result.id;
    }
    const final: { id: string; [k: string]: unknown } = { ...base("message", leaf), message: { role: "assistant", content: [{ type: "text", text: words(30) }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: { input: 100, output: 80, cacheRead: 5000, cacheWrite: 0, totalTokens: 5180, cost: { input: 0.0003, output: 0.0012, cacheRead: 0.0015, cacheWrite: 0, total: 0.003 } }, stopReason: "stop", timestamp: clock } };
    await write(final);
    leaf = final.id;
    if (rand() < 0.02) {
      const label: { id: string; [k: string]: unknown } = { ...base("label", leaf), targetId: user.id, label: words(2) };
      await write(label);
      leaf = label.id;
    }
    if (rand() < 0.005) {
      const compaction: { id: string; [k: string]: unknown } = { ...base("compaction", leaf), summary: words(200), firstKeptEntryId: user.id, tokensBefore: 150000, details: { readFiles: [], modifiedFiles: [] }, fromHook: false };
      await write(compaction);
      leaf = compaction.id;
    }
  }
  out.end();
  await once(out, "finish");
  return { entries, bytes };
}
