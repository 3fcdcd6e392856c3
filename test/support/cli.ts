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
