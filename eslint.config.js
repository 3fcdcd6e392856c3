// The layers of docs/architecture.md, enforced per directory (GitLens keeps its layers the same way), plus the
// type-aware promise rules. test/project/lint.test.ts proves each layer rule with a file under test/lint-fixtures/ that
// breaks it. Globs start with `**/` so that those fixtures (which mirror src/) fall under the same rules.
import { builtinModules } from "node:module";
import stylistic from "@stylistic/eslint-plugin";
import tseslint from "typescript-eslint";

/** Node's built-in modules, with and without `node:`. */
const NODE_BUILTINS = ["node:*", ...builtinModules, ...builtinModules.map((m) => `${m}/*`)];

const vscode = { name: "vscode", message: "Only src/extension may depend on vscode." };
const nodeIo = (message) => ({ group: NODE_BUILTINS, message });
/** An import that reaches another top-level folder of src/ (from any depth). */
const reaches = (folders, message) => ({ regex: `^(\\.\\./)+(${folders.join("|")})(/|$)`, message });

/**
 * `node/store` and `node/search` are reached from outside only through their index.ts (their public surfaces). From
 * src/node a sibling folder is `./store/…` or `../search/…`; from src/cli and src/extension it is `…/node/store/…`.
 */
const SURFACE_MESSAGE = "Import node/store and node/search through their index.js.";
const surfacesFromNode = { regex: "^(\\./|(\\.\\./)+)(store|search)/(?!index\\.js$)", message: SURFACE_MESSAGE };
const surfacesFromAbove = { regex: "^(\\.\\./)+node/(store|search)/(?!index\\.js$)", message: SURFACE_MESSAGE };

/** One `no-restricted-imports` setting per layer (a later setting for the same files replaces an earlier one). */
function layer(files, { paths = [], patterns = [] }, ignores = []) {
  return { files, ignores, rules: { "no-restricted-imports": ["error", { paths, patterns }] } };
}

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "fixtures/**",
      ".vscode-test/**",
      ".vscode-runtime/**",
      ".demo/**",
      "out/**",
      "test/lint-fixtures/**",
      // AssemblyScript (its own types: i32, usize, v128), compiled by scripts/build-wasm.ts and tested through it.
      "wasm/**",
    ],
  },
  ...tseslint.configs.recommended,
  {
    // Prettier wraps code at 120 columns; this catches what it cannot wrap (long strings and comments).
    plugins: { "@stylistic": stylistic },
    rules: { "@stylistic/max-len": ["error", { code: 120, tabWidth: 2, ignoreRegExpLiterals: true }] },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Promises are awaited, returned or explicitly `void`ed; a promise is never passed where a callback's result is
    // ignored; only thenables are awaited. These need the type checker.
    files: ["**/*.ts"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
    },
  },
  {
    // Oracle JSON written by the real agents is untyped data.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },

  // ---- The layers ------------------------------------------------------------------------------------------
  // src/core: the parser and the session model. Pure: no vscode, no Node I/O, nothing from the layers above it.
  layer(["**/src/core/**/*.ts"], {
    paths: [vscode],
    patterns: [
      nodeIo("src/core is environment-neutral: Node I/O belongs in src/node."),
      reaches(
        ["node", "extension", "cli", "webview"],
        "src/core is the bottom layer: it imports only itself, protocol and zod.",
      ),
    ],
  }),
  // src/protocol: the shapes and formats shared with the webviews. Itself and zod only.
  layer(["**/src/protocol/**/*.ts"], {
    patterns: [{ regex: "^(?!\\./|zod$)", message: "src/protocol imports only itself and zod." }],
  }),
  // src/webview: browser bundles. The protocol, themselves, and their browser libraries.
  layer(["**/src/webview/**/*.ts"], {
    paths: [vscode],
    patterns: [
      nodeIo("src/webview runs in a browser: no Node modules."),
      reaches(["core", "node", "extension", "cli"], "src/webview imports only ../protocol and its browser libraries."),
    ],
  }),
  // src/node: Node I/O over the core (store, library, compaction, views). No vscode.
  layer(["**/src/node/**/*.ts"], {
    paths: [vscode],
    patterns: [
      reaches(["extension", "cli", "webview"], "src/node sits below src/extension and src/cli."),
      surfacesFromNode,
    ],
  }),
  // src/cli: the command line. No vscode.
  layer(["**/src/cli/**/*.ts"], {
    paths: [vscode],
    patterns: [
      reaches(["extension", "webview"], "src/cli does not depend on the extension or the webviews."),
      surfacesFromAbove,
    ],
  }),
  // src/extension: the VS Code host. The tree is reached through its index only.
  layer(
    ["**/src/extension/**/*.ts"],
    {
      patterns: [
        reaches(["cli", "webview"], "src/extension does not depend on the CLI or the webview bundles."),
        { regex: "(^|/)tree/(?!index\\.js$)", message: "Import the Sessions tree through tree/index.js." },
        surfacesFromAbove,
      ],
    },
    ["**/src/extension/tree/**"],
  ),
  layer(["**/src/extension/tree/**/*.ts"], {
    patterns: [
      reaches(["cli", "webview"], "src/extension does not depend on the CLI or the webview bundles."),
      surfacesFromAbove,
    ],
  }),
);
