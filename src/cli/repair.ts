/** `pi-sessions repair`: remove an incomplete last line left by a crash, after a backup copy. */
import { inspectTail, RepairRefused, repairTail } from "../node/repair.js";
import { truncate } from "../protocol/format.js";
import { EXIT_NOT_WRITTEN, EXIT_OK, EXIT_REJECTED, type Io, text } from "./args.js";

export async function repairCli(file: string, values: { yes?: boolean; json?: boolean }, io: Io): Promise<number> {
  let seen;
  try {
    seen = await inspectTail(file);
  } catch (err) {
    if (!(err instanceof RepairRefused)) throw err;
    if (values.json) io.out(JSON.stringify({ file, repaired: false, reason: err.message }));
    else text(io).err(`pi-sessions repair: ${err.message}`);
    return EXIT_REJECTED;
  }
  if (!seen) {
    if (values.json) io.out(JSON.stringify({ file, repaired: false, reason: "the last line is complete" }));
    else text(io).out(`${file}: the last line is complete; nothing to repair`);
    return EXIT_OK;
  }
  if (!values.yes) {
    if (values.json)
      io.out(
        JSON.stringify({
          file,
          repaired: false,
          incompleteLine: { offset: seen.offset, bytes: seen.bytes, text: seen.text.slice(0, 500) },
        }),
      );
    else
      text(io).out(
        `${file}: the last line is incomplete (${seen.bytes} bytes at offset ${seen.offset}):\n` +
          `  ${truncate(seen.text, 300)}\n` +
          "re-run with --yes to remove it (a backup copy is written first)",
      );
    return EXIT_NOT_WRITTEN;
  }
  try {
    const r = await repairTail(file, seen);
    if (values.json) io.out(JSON.stringify({ file, repaired: true, removedBytes: r.removedBytes, backup: r.backup }));
    else text(io).out(`${file}: removed the incomplete last line (${r.removedBytes} bytes); backup: ${r.backup}`);
    return EXIT_OK;
  } catch (err) {
    text(io).err(`${file}: ${(err as Error).message}`);
    return EXIT_NOT_WRITTEN;
  }
}
