/** The project's fixtures: session files written by the real agents, with oracles. Tests read only fixtures/. */
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSession, type Session } from "../../src/core/session/index.js";
import { listFiles } from "./helpers.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const FIXTURES = join(ROOT, "fixtures");
export const REAL = join(FIXTURES, "real");

function listJsonl(dir: string): string[] {
  return listFiles(dir, ".jsonl");
}

/** pi-written fixtures (all versions) and the quirk files derived from them. */
const UPSTREAM_FIXTURES = listJsonl(join(FIXTURES, "upstream"));
export const PI_FIXTURES = [...listJsonl(join(REAL, "pi")), ...listJsonl(join(REAL, "quirks")), ...UPSTREAM_FIXTURES];
export const OMP_FIXTURES = listJsonl(join(REAL, "omp"));

export function rel(file: string): string {
  return file.startsWith(REAL) ? relative(REAL, file) : relative(FIXTURES, file);
}

export function oracleFor(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(REAL, "oracles", `${rel(file)}.oracle.json`), "utf8"));
}

export function loadFixture(file: string): Session {
  const result = parseSession(file, readFileSync(file));
  if (!result.ok) throw new Error(`${file} rejected: ${result.rejection.code} ${result.rejection.message}`);
  return result.session;
}

/** A real pi session file: `piSession(slug, name)`. */
export const piSession = (...names: string[]) => join(REAL, "pi", "sessions", ...names);
/** A real OMP session file: `ompSession(slug, name)`. */
export const ompSession = (...names: string[]) => join(REAL, "omp", "sessions", ...names);
