export * from "./context.js";
export * from "./describe.js";
export * from "./diagnostics.js";
export * from "./jsonl.js";
export * from "./schema.js";
export * from "./session.js";
export * from "./treeJson.js";
