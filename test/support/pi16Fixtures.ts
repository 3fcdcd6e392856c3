/** The real pi 1.6.0 sessions (fixtures/real/pi-1.6) and their oracles, as the pi 1.6 tests read them. */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSession, type Session } from "../../src/core/session/index.js";
import { REAL } from "./fixtures.js";
import { listFiles } from "./helpers.js";

export const PI16_FILES = listFiles(join(REAL, "pi-1.6", "sessions"), ".jsonl");

/** What pi 1.6.0's own code answered for the file (make-oracles-pi16.mjs). */
export const pi16Oracle = (file: string): Record<string, any> =>
  JSON.parse(readFileSync(`${file}.oracle.json`, "utf8"));

/** The file's name, short enough for a test title. */
export const shortName = (file: string) => file.slice(file.lastIndexOf("/") + 1, file.lastIndexOf("/") + 30);

export function parsedFixture(file: string): Session {
  const r = parseSession(file, readFileSync(file));
  assert.ok(r.ok, `${file} is read`);
  return r.session;
}
