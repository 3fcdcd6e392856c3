/**
 * Random pi 1.6 sessions as programs of SessionManager calls (test/oracles/pi16/oracle.mjs runs them in pi 1.6.0):
 * messages, system messages, branches and new roots, context-edit sequences, compactions with and without kept
 * entries, usage entries, branch summaries, labels and settings. Targets are indexes into the entries written so far.
 */
import fc from "fast-check";

const MODELS = [
  { provider: "anthropic", model: "claude-opus-5" },
  { provider: "openai", model: "gpt-6.1-sol" },
  { provider: "openai-codex", model: "gpt-6-sol" },
];

const usage = fc.record({
  input: fc.nat({ max: 5000 }),
  output: fc.nat({ max: 800 }),
  cacheRead: fc.nat({ max: 30000 }),
});
const text = fc.stringMatching(/^[a-z ]{1,24}$/);
const target = fc.nat({ max: 60 });
const model = fc.constantFrom(...MODELS);

const replacement = fc.oneof(
  fc.constant(null),
  text.map((t) => ({ content: t })),
  text.map((t) => ({ content: [{ type: "text", text: t }] })),
);

const op = fc.oneof(
  { weight: 4, arbitrary: text.map((t) => ({ op: "user", text: t })) },
  {
    weight: 5,
    arbitrary: fc
      .record({ text, usage, m: model, tool: fc.boolean() })
      .map(({ text, usage, m, tool }) => ({ op: "assistant", text, usage, ...m, ...(tool ? { tool: "call_1" } : {}) })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ text, usage: fc.option(usage, { nil: undefined }) })
      .map(({ text, usage }) => ({ op: "toolResult", tool: "call_1", text, ...(usage ? { usage } : {}) })),
  },
  {
    weight: 2,
    arbitrary: fc.record({ prompt: fc.option(text, { nil: null }), tools: fc.boolean() }).map(({ prompt, tools }) => ({
      op: "system",
      sections: { preamble: prompt },
      ...(tools ? { toolsAdded: [{ name: "read", description: "Read a file", parameters: { type: "object" } }] } : {}),
    })),
  },
  { weight: 1, arbitrary: text.map((t) => ({ op: "custom_message", text: t })) },
  { weight: 4, arbitrary: fc.record({ target, replacement }).map((r) => ({ op: "edit", ...r })) },
  { weight: 2, arbitrary: fc.record({ usage, m: model }).map(({ usage, m }) => ({ op: "usage", usage, ...m })) },
  {
    weight: 2,
    arbitrary: fc
      .record({ summary: text, keep: fc.option(target, { nil: null }), usage: fc.option(usage, { nil: undefined }) })
      .map((r) => ({ op: "compact", ...r })),
  },
  { weight: 2, arbitrary: target.map((at) => ({ op: "branch", at })) },
  {
    weight: 1,
    arbitrary: fc
      .record({ at: fc.option(target, { nil: null }), summary: text, usage: fc.option(usage, { nil: undefined }) })
      .map((r) => ({ op: "branchSummary", ...r })),
  },
  { weight: 1, arbitrary: fc.constant({ op: "reset" }) },
  { weight: 1, arbitrary: model.map((m) => ({ op: "model", ...m })) },
  { weight: 1, arbitrary: fc.constantFrom("off", "low", "high").map((level) => ({ op: "thinking", level })) },
  { weight: 1, arbitrary: fc.record({ target, label: text }).map((r) => ({ op: "label", ...r })) },
);

/** A program: a first user message (pi writes the file from then on), then up to 40 random calls. */
export const programs = fc
  .tuple(text, fc.array(op, { minLength: 1, maxLength: 40 }))
  .map(([first, rest]) => [{ op: "user", text: first }, ...rest]);
