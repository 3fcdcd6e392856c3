/**
 * JSON written straight to UTF-8 bytes, piece by piece: a long session's packed details (core/leanSummary.ts) are
 * tens of MB of JSON; built as arrays, then one string, then bytes, they held three copies at once (about 100 MB more
 * than the bytes for a 1.8 GB session, issue #38). The text is what `JSON.stringify` writes for the same values.
 */

/** Text is encoded once this many UTF-16 units are pending. */
const PIECE = 1 << 18;

/** Characters `JSON.stringify` escapes in a string: quote, backslash, controls, and (lone) surrogates. */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

export class JsonBytes {
  private pending = "";
  private readonly pieces: Uint8Array[] = [];
  private readonly encoder = new TextEncoder();

  /** Text already in JSON form. */
  raw(text: string): void {
    this.pending += text;
    if (this.pending.length >= PIECE) this.flush();
  }

  /** A number as JSON writes it in an array: `null` when it is not finite. */
  number(n: number): void {
    this.raw(Number.isFinite(n) ? String(n) : "null");
  }

  /** A string's contents, escaped as in a JSON string, without its quotes. */
  stringBody(text: string): void {
    this.raw(ESCAPED.test(text) ? JSON.stringify(text).slice(1, -1) : text);
  }

  /** The bytes written, in one buffer of their own (it can be moved to another thread). */
  finish(): Uint8Array {
    this.flush();
    if (this.pieces.length === 1) return this.pieces.pop()!;
    const out = new Uint8Array(this.pieces.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of this.pieces) {
      out.set(p, at);
      at += p.length;
    }
    this.pieces.length = 0;
    return out;
  }

  private flush(): void {
    if (this.pending) this.pieces.push(this.encoder.encode(this.pending));
    this.pending = "";
  }
}
