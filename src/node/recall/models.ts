/**
 * Full session models for the recall tools: the library's when it follows the file (read once, kept current), else a
 * read of the tools' own, of which the most recently read few are kept while their files are unchanged (paging
 * through a long session's windows reads it once), so that tools never hold every session they were asked about.
 */
import type { ParseResult } from "../../core/session/index.js";
import type { SessionLibrary } from "../library.js";
import { readSessionFile } from "../readSession.js";
import type { StoreSession } from "../store/index.js";

/** Models kept besides the library's (each is a whole session's tree; a long one is large). */
const KEPT = 2;

export class RecallModels {
  private readonly kept = new Map<string, { stamp: string; result: ParseResult }>();

  constructor(private readonly library: () => SessionLibrary) {}

  async open(session: StoreSession): Promise<ParseResult> {
    const library = this.library();
    const followed = library.isFollowed(session.file) ? library.peek(session.file) : undefined;
    if (followed) return followed;
    const stamp = `${session.sizeBytes}:${session.mtimeMs}`;
    const hit = this.kept.get(session.file);
    this.kept.delete(session.file);
    if (hit?.stamp === stamp) {
      this.kept.set(session.file, hit);
      return hit.result;
    }
    const result = await readSessionFile(session.file, { validate: false });
    this.kept.set(session.file, { stamp, result });
    while (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value!);
    return result;
  }
}
