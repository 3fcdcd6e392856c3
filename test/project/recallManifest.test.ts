// The recall tools have one definition (src/node/recall/schemas.ts) and two front doors: the MCP server takes the
// zod shapes, VS Code reads package.json. The manifest declares each tool with the same name, words and input
// schema (zod's own JSON Schema conversion of the shape), so agent mode and MCP clients see the same tools.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TOOL_NAMES, TOOLS } from "../../src/node/recall/schemas.js";
import { McpProviderId } from "../../src/extension/ids.js";
import { ROOT } from "../support/fixtures.js";
import { toolInputSchema } from "../../scripts/recall-manifest.js";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const nls = JSON.parse(readFileSync(join(ROOT, "package.nls.json"), "utf8")) as Record<string, string>;

interface ToolContribution {
  name: string;
  displayName: string;
  modelDescription: string;
  userDescription: string;
  canBeReferencedInPrompt: boolean;
  toolReferenceName: string;
  inputSchema: Record<string, unknown>;
}

describe("package.json: the recall tools", () => {
  const tools = pkg.contributes.languageModelTools as ToolContribution[];

  it("declares the five tools with the MCP server's names, descriptions and input schemas", () => {
    assert.deepEqual(
      tools.map((t) => t.name),
      TOOL_NAMES,
    );
    for (const t of tools) {
      const tool = TOOLS[t.name as keyof typeof TOOLS];
      assert.deepEqual(
        t.inputSchema,
        toolInputSchema(t.name as keyof typeof TOOLS),
        `${t.name}: run node --import tsx scripts/recall-manifest.ts`,
      );
      assert.equal(t.modelDescription, tool.description, t.name);
      assert.equal(nls[t.displayName.replace(/%/g, "")], tool.title, t.name);
      assert.ok(nls[t.userDescription.replace(/%/g, "")], t.name);
      assert.equal(t.canBeReferencedInPrompt, true);
      assert.match(t.toolReferenceName, /^pi[A-Z]\w+$/);
    }
  });

  it("offers the MCP server under the provider id the code registers", () => {
    assert.deepEqual(
      (pkg.contributes.mcpServerDefinitionProviders as { id: string }[]).map((p) => p.id),
      [McpProviderId],
    );
  });
});
