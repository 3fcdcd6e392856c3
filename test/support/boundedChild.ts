// One reader over generated data, run by test/node/store/boundedMemory.test.ts in a child process whose heap is
// capped (`--max-old-space-size`): what it read on stdout as JSON. A reader that holds a whole file, its tree or its
// bytes runs out of that heap and the child dies; one bounded by design completes.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseQuery } from "../../src/core/search/query.js";
import { SearchIndex } from "../../src/node/search/searchIndex.js";
import { indexTargets } from "../../src/node/search/targets.js";
import { summarizeFileSync, unpackSummary } from "../../src/node/store/index.js";
import { ownedStore } from "./forkFamily.js";

const [what, target, word] = process.argv.slice(2) as [string, string, string | undefined];

async function answer(): Promise<unknown> {
  switch (what) {
    // A long session's summary as a listing (`full`) and a usage report (`usage`) make it, streamed.
    case "lean-full":
    case "lean-usage": {
      const s = summarizeFileSync(target, what === "lean-full" ? "full" : "usage", 0);
      const read = typeof s === "string" || !("packed" in s) ? s : unpackSummary(s);
      if (typeof read === "string" || !read.ok) return { error: read };
      return { entries: read.entries.length, usage: read.usage.length };
    }
    // The control: the same file parsed whole (the cap must be too small for it, or the test proves nothing).
    case "whole": {
      const s = summarizeFileSync(target, "full", Infinity);
      return { ok: typeof s !== "string" };
    }
    // The search index built over an agent dir: its long session indexed as it streams past (the control: whole).
    case "search":
    case "search-whole": {
      const cacheDir = join(mkdtempSync(join(tmpdir(), "pi-bounded-")), "cache");
      const options = what === "search" ? {} : { streamBytes: Infinity };
      const index = await SearchIndex.open(cacheDir, [{ dir: target }], "", options);
      try {
        await index.update(indexTargets((await ownedStore(target)).sessions));
        const q = parseQuery(word ?? "");
        if (!q.ok) throw new Error(q.message);
        return { hits: index.query(q).length };
      } finally {
        index.close();
      }
    }
    // A store's listing: every session's summary held, no file's bytes.
    case "store":
      return { sessions: (await ownedStore(target)).sessions.length };
    default:
      throw new Error(`unknown reader ${what}`);
  }
}

process.stdout.write(JSON.stringify(await answer()));
