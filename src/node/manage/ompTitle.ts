/**
 * How Oh My Pi (18.x) names a session, so that our rename is the one `omp` shows (docs/session-format.md, "How the
 * agents write"): `setSessionName(name, "user")` appends a `title_change` record and then rewrites, in place, the
 * file's first line: a fixed 256-byte title slot padded with spaces. That slot is what OMP's loader and pickers read.
 */

/** The slot's size in UTF-8 bytes, its newline included (OMP's SESSION_TITLE_SLOT_BYTES). */
const TITLE_SLOT_BYTES = 256;

/** A title as OMP keeps it (`#cleanTitle`): control characters as spaces, runs of spaces as one, trimmed. */
export function cleanOmpTitle(raw: string): string {
  return raw
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, " ")
    .replace(/ +/g, " ")
    .trim();
}

const slotJson = (title: string, updatedAt: string, pad: string) =>
  `${JSON.stringify({ type: "title", v: 1, title, source: "user", updatedAt, pad })}\n`;

/**
 * The slot line OMP writes for a user title: the title cut by code points to the longest that fits (OMP's
 * `truncateTitleForSlot`; the whole title is in the `title_change` record), then spaces to exactly 256 bytes.
 */
export function userTitleSlot(title: string, updatedAt: string): Buffer {
  const points = [...title];
  let low = 0;
  let high = points.length;
  let best = "";
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const candidate = points.slice(0, mid).join("");
    if (Buffer.byteLength(slotJson(candidate, updatedAt, "")) <= TITLE_SLOT_BYTES) {
      best = candidate;
      low = mid + 1;
    } else high = mid - 1;
  }
  const pad = TITLE_SLOT_BYTES - Buffer.byteLength(slotJson(best, updatedAt, ""));
  if (pad < 0) throw new Error("the title slot's own fields do not fit in 256 bytes");
  return Buffer.from(slotJson(best, updatedAt, " ".repeat(pad)), "utf8");
}

/** The file's title slot bytes, when its first line is one OMP can rewrite in place (else null). */
export function titleSlotBytes(bytes: Uint8Array): Buffer | null {
  if (bytes.length < TITLE_SLOT_BYTES || bytes[TITLE_SLOT_BYTES - 1] !== 0x0a) return null;
  const head = Buffer.from(bytes.subarray(0, TITLE_SLOT_BYTES));
  if (head.subarray(0, TITLE_SLOT_BYTES - 1).includes(0x0a)) return null;
  try {
    const slot = JSON.parse(head.toString("utf8")) as Record<string, unknown>;
    return slot.type === "title" && slot.v === 1 && typeof slot.pad === "string" ? head : null;
  } catch {
    return null;
  }
}
