// The extension-tests entry point VS Code loads inside the extension host (the @vscode/test-electron contract).
import * as fs from "node:fs";
import * as path from "node:path";

export async function run(): Promise<void> {
  // mocha is external to the bundle and resolved from the project's node_modules by the extension host.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require("mocha");
  const Mocha = (mod.default ?? mod) as typeof import("mocha");
  const mocha = new Mocha({ ui: "tdd", color: false, timeout: 60_000, reporter: "spec" });
  // PI_SESSIONS_GREP=<text> runs only the tests whose title contains it (while working on one suite).
  if (process.env.PI_SESSIONS_GREP) mocha.grep(process.env.PI_SESSIONS_GREP);
  // Two passes (scripts/vscode/run-integration.mjs): the trusted workspace runs every suite but untrusted.test,
  // Restricted Mode runs only that one.
  const untrusted = process.env.PI_SESSIONS_UNTRUSTED === "1";
  for (const f of fs.readdirSync(__dirname).sort()) {
    if (f.endsWith(".test.cjs") && f.startsWith("untrusted") === untrusted) mocha.addFile(path.join(__dirname, f));
  }
  await new Promise<void>((resolve, reject) => {
    mocha.run((failures) => (failures ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
  });
}
