// The README's settings and commands tables, its CLI table and docs/cli.md are generated from package.json and the
// CLI's own help (scripts/docs-sections.ts); this fails when any of them drifts from what they describe.
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { generatedDocs } from "../../scripts/docs-sections.js";

describe("generated documentation", () => {
  it("README.md and docs/cli.md match package.json and pi-sessions --help (scripts/docs-sections.ts)", async () => {
    const readme = readFileSync("README.md", "utf8");
    const next = await generatedDocs(readme);
    assert.equal(readme, next.readme, "README.md is out of date");
    assert.equal(readFileSync("docs/cli.md", "utf8"), next.cli, "docs/cli.md is out of date");
    // The generated blocks hold every setting and every command.
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
      contributes: { configuration: { properties: Record<string, unknown> }; commands: unknown[] };
    };
    for (const key of Object.keys(pkg.contributes.configuration.properties))
      assert.ok(readme.includes(`| \`${key}\` |`), key);
    assert.equal((readme.match(/^\| \*\*/gm) ?? []).length, pkg.contributes.commands.length);
    for (const c of ["tree", "context", "export", "lint", "checkpoints", "list", "usage", "compact", "repair"])
      assert.ok(next.cli.includes(`## pi-sessions ${c}\n\n\`\`\`text\nUsage: pi-sessions ${c} `), c);
  });

  it("the README opens for users: what it is, a screenshot, Install, Requirements; then Privacy and the source", () => {
    const readme = readFileSync("README.md", "utf8");
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    assert.deepEqual(headings.slice(0, 3), ["Install", "Requirements", "Features"]);
    for (const h of ["Settings", "Commands", "Privacy", "Try it from source"]) assert.ok(headings.includes(h), h);
    const intro = readme.slice(readme.indexOf("\n\n") + 2, readme.indexOf("\n## "));
    assert.match(intro, /^See what your[\s\S]*\n\n!\[[^\]]+\]\(docs\/images\/[a-z-]+\.webp\)\n$/);
    assert.ok(readme.includes("npm install && npm run demo"));
    assert.ok(readme.includes("npm test"));
    assert.match(readme, /no telemetry/i);
  });
});
