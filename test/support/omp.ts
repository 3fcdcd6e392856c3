/**
 * The real Oh My Pi 18.2.3 as an oracle: test/oracles/omp/oracle.mjs run by the Bun installed next to it
 * (scripts/oracles/omp.mjs installs both; `npm test` runs it first). A missing install fails the test that needs it,
 * naming the command that fixes it: no test is skipped for it.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const HOME = join(import.meta.dirname, "..", "oracles", "omp");
const BUN = join(HOME, "node_modules", "bun", "bin", "bun.exe");

export interface OmpNames {
  file: string;
  name: string | null;
  titleSource: "auto" | "user" | null;
  titleSlot: { title: string; source?: string; updatedAt: string } | null;
  labels: Record<string, string>;
}

type OmpRequest =
  | { op: "names"; files: string[] }
  | { op: "pins"; agentDir: string }
  | { op: "togglePins"; agentDir: string; ids: string[]; gapMs?: number };

function checkInstalled() {
  if (!existsSync(BUN) || !existsSync(join(HOME, "node_modules", "@oh-my-pi", "pi-coding-agent")))
    throw new Error(`Oh My Pi 18.2.3 and Bun are not installed in ${HOME}: run node scripts/oracles/omp.mjs`);
}

const env = (agentDir?: string) => ({ ...process.env, PI_CODING_AGENT_DIR: agentDir ?? join(HOME, ".omp-agent") });

export function askOmp<T>(request: OmpRequest): T {
  checkInstalled();
  const agentDir = "agentDir" in request ? request.agentDir : undefined;
  const out = execFileSync(BUN, [join(HOME, "oracle.mjs")], {
    input: JSON.stringify(request),
    maxBuffer: 1 << 28,
    env: env(agentDir),
  });
  return JSON.parse(out.toString("utf8")) as T;
}

/** The same, without waiting: for races against our own writers. */
export function askOmpAsync<T>(request: OmpRequest): Promise<T> {
  checkInstalled();
  const agentDir = "agentDir" in request ? request.agentDir : undefined;
  return new Promise((resolve, reject) => {
    const child = execFile(BUN, [join(HOME, "oracle.mjs")], { env: env(agentDir), maxBuffer: 1 << 28 }, (err, out) =>
      err ? reject(err) : resolve(JSON.parse(out) as T),
    );
    child.stdin!.end(JSON.stringify(request));
  });
}
