/** The product's SQLite (node-sqlite3-wasm, WebAssembly: no native build), shared by the search index and the readers
 * of other agents' databases. */
import type Sqlite from "node-sqlite3-wasm";

export type DatabaseClass = typeof Sqlite.Database;

/**
 * SQLite, loaded on first use: its WebAssembly is compiled when the module loads, which no other command should pay
 * for. (A CommonJS module whose exports Node's ESM loader cannot name: taken from its default export.)
 */
let loaded: Promise<DatabaseClass> | null = null;
export function loadSqlite(): Promise<DatabaseClass> {
  loaded ??= import("node-sqlite3-wasm").then((m) => (m.default ?? m).Database);
  return loaded;
}
