import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "fixtures/**", ".vscode-test/**", "out/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-imports": "off",
    },
  },
  {
    // Oracle JSON written by the real agents is untyped data.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["src/core/**/*.ts", "src/node/**/*.ts", "src/cli/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "vscode", message: "src/core, src/node and src/cli must not depend on vscode." }] },
      ],
    },
  },
  {
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [{ name: "vscode", message: "src/core must not depend on vscode." }],
          patterns: [
            {
              group: ["node:*", "fs", "path", "os", "child_process"],
              message: "src/core is environment-neutral: put Node I/O in src/node.",
            },
          ],
        },
      ],
    },
  },
);
