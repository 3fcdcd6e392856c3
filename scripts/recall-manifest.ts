// The recall tools' input schemas and model descriptions in package.json (`contributes.languageModelTools`), from
// their one definition (src/node/recall/schemas.ts): `node --import tsx scripts/recall-manifest.ts` rewrites them;
// test/project/recallManifest.test.ts fails when they drift.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";
import { TOOLS, type ToolName } from "../src/node/recall/schemas.js";

/** A tool's input as JSON Schema (draft 7), as VS Code reads it. */
export function toolInputSchema(name: ToolName): Record<string, unknown> {
  const { $schema: _schema, ...schema } = z.toJSONSchema(z.object(TOOLS[name].input).strict(), { target: "draft-7" });
  return schema;
}

if (process.argv[1]?.endsWith("recall-manifest.ts")) {
  const file = join(import.meta.dirname, "..", "package.json");
  const pkg = JSON.parse(readFileSync(file, "utf8"));
  for (const t of pkg.contributes.languageModelTools as {
    name: ToolName;
    inputSchema: unknown;
    modelDescription: string;
  }[]) {
    t.inputSchema = toolInputSchema(t.name);
    t.modelDescription = TOOLS[t.name].description;
  }
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
}
