/** Process entry point of `pi-sessions` (bundled to dist/cli.js). */
import { wantsColor } from "./args.js";
import { run } from "./main.js";

// A reader that stops early (`pi-sessions tree FILE --json | head`) closes the pipe: stop quietly, with the command's
// own exit code when it had finished, else 141 (128 + SIGPIPE, the code of a `cat` stopped the same way).
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    process.exit(process.exitCode ?? 141);
  });

function write(stream: NodeJS.WriteStream, text: string): void {
  stream.write(text.endsWith("\n") ? text : `${text}\n`);
}

run(process.argv.slice(2), {
  out: (t) => write(process.stdout, t),
  part: (t) => process.stdout.write(t),
  err: (t) => write(process.stderr, t),
  columns: process.stdout.isTTY ? process.stdout.columns : undefined,
  color: wantsColor(process.env, process.stdout.isTTY === true),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`pi-sessions: internal error: ${String(err)}\n`);
    process.exitCode = 2;
  },
);
