// Regenerates src/core/compact/pi-data.json from the installed pi packages (devDependencies): pi's summarization
// prompts (so an LLM summary has pi's own format; pi-mono is MIT licensed) and pi-ai's prices for the models of the
// three Responses surfaces (so the cost of an LLM summary can be shown before the call).
// Run after upgrading @mariozechner/pi-coding-agent or pi-ai: node scripts/gen-compaction-data.mjs
// A unit test fails when the file and the installed packages disagree.
import { readFileSync, writeFileSync } from "fs";
import path from "path";
import { fileURLToPath } from "url";
import { getModels } from "@mariozechner/pi-ai";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export function compactionData() {
  const dir = path.join(root, "node_modules/@mariozechner/pi-coding-agent/dist/core/compaction");
  const src = readFileSync(path.join(dir, "compaction.js"), "utf8") + readFileSync(path.join(dir, "utils.js"), "utf8");
  const constant = (name) => {
    const m = new RegExp(`const ${name} = \`([\\s\\S]*?)\`;`).exec(src);
    if (!m) throw new Error(`${name} not found in pi's compaction.js`);
    return m[1];
  };
  const prices = {};
  for (const provider of ["openai", "azure-openai-responses", "openai-codex"]) {
    for (const m of getModels(provider)) prices[`${provider}/${m.id}`] = { input: m.cost.input, output: m.cost.output };
  }
  const piVersion = JSON.parse(
    readFileSync(path.join(root, "node_modules/@mariozechner/pi-coding-agent/package.json"), "utf8"),
  ).version;
  return {
    source: `@mariozechner/pi-coding-agent@${piVersion} and @mariozechner/pi-ai (MIT)`,
    systemPrompt: constant("SUMMARIZATION_SYSTEM_PROMPT"),
    summarizationPrompt: constant("SUMMARIZATION_PROMPT"),
    updateSummarizationPrompt: constant("UPDATE_SUMMARIZATION_PROMPT"),
    turnPrefixPrompt: constant("TURN_PREFIX_SUMMARIZATION_PROMPT"),
    prices,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(path.join(root, "src/core/compact/pi-data.json"), `${JSON.stringify(compactionData(), null, 2)}\n`);
  console.log("wrote src/core/compact/pi-data.json");
}
