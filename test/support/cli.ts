/** The CLI run in process against one agent dir, its output collected: what the CLI tests call. */
import { run } from "../../src/cli/main.js";

export function cliIn(agentDir: () => string) {
  return async (...args: string[]) => {
    let out = "";
    let err = "";
    const io = { out: (t: string) => (out += `${t}\n`), err: (t: string) => (err += `${t}\n`) };
    const code = await run([...args, "--agent-dir", agentDir()], io);
    return { code, out, err };
  };
}

/** Run `fn` with `vars` set in the environment (the CLI and `pg` read it from the process), then put it back. */
export async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const k of Object.keys(vars)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

/** The CLI run in process with `env` set, its output collected. */
export function cliWithEnv(env: Record<string, string>, ...args: string[]) {
  return withEnv(env, async () => {
    let out = "";
    let err = "";
    const code = await run(args, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) });
    return { code, out, err };
  });
}
