// Localization (issue #15): every user-facing string of package.json is a %key% that package.nls.json resolves, and
// every key is used; the extension's runtime strings go through vscode.l10n.t, and l10n/bundle.l10n.json is exactly
// what @vscode/l10n-dev extracts from the code (regenerate: npm run l10n).
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/fixtures.js";
import { withTempDir } from "../support/helpers.js";

const raw = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, unknown>;
const nls = JSON.parse(readFileSync(join(ROOT, "package.nls.json"), "utf8")) as Record<string, string>;

/** Keys of package.json whose string values users read. */
const USER_FACING = new Set([
  "displayName",
  "description",
  "title",
  "name",
  "contextualTitle",
  "contents",
  "markdownDescription",
  "enumDescriptions",
  "category",
  "altText",
  "userDescription",
  "label",
]);

/** Keys whose values are for a language model or are ids, not for users: the tools' names, schemas and words. */
const MODEL_FACING = new Set(["inputSchema", "modelDescription", "toolReferenceName", "tags", "icon"]);

/** Every [path, value] of a user-facing string in package.json (the manifest's own fields included). */
function userStrings(value: unknown, path: string[] = []): [string, string][] {
  if (typeof value === "string")
    return USER_FACING.has(path.find((p) => USER_FACING.has(p)) ?? "") ? [[path.join("."), value]] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => userStrings(v, [...path, String(i)]));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) =>
      // Not shown to users: ids, when clauses, command ids, scripts, dependencies, enum values.
      ["scripts", "devDependencies", "repository", "bugs", "engines", "galleryBanner", "keywords"].includes(k) &&
      path.length === 0
        ? []
        : (path.length === 0 && k === "name") || // the package name, not a label
            (path[1] === "languageModelTools" && k === "name") || // a tool's name is an id
            MODEL_FACING.has(k)
          ? []
          : userStrings(v, [...path, k]),
    );
  return [];
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));

describe("localization", () => {
  it("every user-facing string in package.json is a %key% that package.nls.json resolves", () => {
    const strings = userStrings(raw);
    assert.ok(strings.length > 60, `found ${strings.length}`);
    const literal = strings.filter(([, v]) => !/^%[^%]+%$/.test(v));
    assert.deepEqual(literal, [], "literal strings in package.json");
    const missing = strings.filter(([, v]) => nls[v.slice(1, -1)] === undefined);
    assert.deepEqual(missing, [], "keys package.nls.json lacks");
  });

  it("no command has a literal title or category, and every nls key is used", () => {
    const commands = (raw.contributes as { commands: { command: string; title: string; category: string }[] }).commands;
    for (const c of commands) {
      assert.match(c.title, /^%command\.[A-Za-z]+\.title%$/, c.command);
      assert.equal(c.category, "%category%", c.command);
    }
    const used = new Set(
      JSON.stringify(raw)
        .match(/%[^%"]+%/g)!
        .map((k) => k.slice(1, -1)),
    );
    assert.deepEqual(
      Object.keys(nls).filter((k) => !used.has(k)),
      [],
      "unused keys in package.nls.json",
    );
    assert.equal(raw.l10n, "./l10n");
  });

  it("l10n/bundle.l10n.json is what @vscode/l10n-dev extracts from the code", function () {
    this.timeout(60_000);
    withTempDir((dir) => {
      execFileSync(
        process.execPath,
        [
          join(ROOT, "node_modules/@vscode/l10n-dev/dist/cli.js"),
          "export",
          "--outDir",
          dir,
          "./src/extension",
          "./src/webview",
        ],
        { cwd: ROOT, encoding: "utf8" },
      );
      const extracted = JSON.parse(readFileSync(join(dir, "bundle.l10n.json"), "utf8")) as Record<string, string>;
      const committed = JSON.parse(readFileSync(join(ROOT, "l10n/bundle.l10n.json"), "utf8")) as Record<string, string>;
      assert.deepEqual(committed, extracted, "run npm run l10n");
      assert.ok(Object.keys(extracted).length > 150);
    });
  });

  it("the extension's messages, titles, labels and tree text are not literal English", () => {
    // A call or a field that shows text to the user, given a literal that starts with a word: it must be l10n.t.
    const shown =
      /(show(Information|Warning|Error)Message|setStatusBarMessage|new vscode\.TreeItem)\(\s*["'`][A-Za-z]|\b(title|placeHolder|prompt|description|detail|text|tooltip|message):\s*["'`][A-Za-z(]|\.(label|description|message|tooltip) = ["'`][A-Za-z(]/;
    // Any other literal of several words, in a return, a throw, a push or an argument, is text too.
    const words = /(return|throw new Error\(|push\(|\? |: )\s*(["'][a-z][a-z]+[ :] ?[a-z]|`[^`]*[a-z]{2,} [a-z]{2,})/;
    // Product names are not translated.
    const allowed = /label: "(OpenAI|Azure OpenAI|ChatGPT Codex)"/;
    const offenders: string[] = [];
    for (const file of sourceFiles(join(ROOT, "src/extension")))
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          // Interpolations are code, not text: `${vscode.l10n.t("…")}` inside a template is fine.
          const outside = line.replace(/\$\{(?:[^{}]|\{[^{}]*\})*\}/g, "");
          const text = shown.test(line) || (words.test(outside) && !/logger\.|contextValue|when:/.test(line));
          if (text && !allowed.test(line) && !/^\s*(\*|\/\/|\/\*\*)/.test(line))
            offenders.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    assert.deepEqual(offenders, []);
  });

  it("the panels' text goes through l10n.t, with the display language's bundle passed in by the host", () => {
    // A literal of two or more words, or one in parentheses, that is not the argument of l10n.t.
    const literal = /(?<!l10n\.t\()(?<![\w.])"([A-Z][a-z]+|\([a-z]+)[ ,:][^"]*"|(?<!l10n\.t\()`[A-Z][a-z]+ [^`]*`/;
    const offenders: string[] = [];
    for (const file of sourceFiles(join(ROOT, "src/webview"))) {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((line, i) => {
        const inCall = /l10n\.t\($/.test(lines[i - 1]?.trim() ?? "");
        if (literal.test(line) && !inCall && !/^\s*(\/\/|\*|\/\*\*)/.test(line))
          offenders.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    assert.deepEqual(offenders, []);
    // Every page sets up l10n.t with the bundle before it renders: the pages' shared runtimes import it first.
    const setup = readFileSync(join(ROOT, "src/webview/translations.ts"), "utf8");
    assert.match(setup, /l10n\.config\(\{ contents \}\)/);
    for (const runtime of ["common.ts", "transcript.ts"])
      assert.match(readFileSync(join(ROOT, "src/webview", runtime), "utf8"), /^import "\.\/translations\.js";$/m);
    const html = readFileSync(join(ROOT, "src/extension/webviews/html.ts"), "utf8");
    assert.match(html, /data-l10n="\$\{escapeAttribute\(l10n\)\}"/);
    assert.match(html, /JSON\.stringify\(vscode\.l10n\.bundle \?\? \{\}\)/);
  });
});
