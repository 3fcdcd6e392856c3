// What the lean summarizer keeps per entry of a long session (core/leanColumns.ts) and how it writes a long session's
// details (core/jsonBytes.ts): the id index must answer as a Map does (a later duplicate wins), through its growth and
// colliding slots; columns keep what was pushed through their growth; the JSON bytes must read back as
// `JSON.stringify` of the same values, for ids JSON escapes and numbers it writes as null.
import * as assert from "node:assert/strict";
import { Column, IdIndex } from "../../src/core/leanColumns.js";
import { JsonBytes } from "../../src/core/jsonBytes.js";

describe("lean columns and JSON bytes (a long session's summary in bounded memory)", () => {
  it("the id index answers as a Map of latest positions, through growth and repeated ids", () => {
    const index = new IdIndex();
    const map = new Map<string, number>();
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let at = 0; at < 50_000; at++) {
      // A third of the ids repeat an earlier one; some are alike but for one character (neighbouring hashes).
      const id = rand() < 0.33 && at ? `id-${Math.floor(rand() * at)}` : `id-${at}`;
      assert.equal(index.push(id), map.get(id), `previous of ${id} at ${at}`);
      map.set(id, at);
    }
    assert.equal(index.ids.length, 50_000);
    for (const [id, at] of map) assert.equal(index.latest(id), at);
    for (const missing of ["", "id-", "id-50000", "constructor", "__proto__"])
      assert.equal(index.latest(missing), undefined);
  });

  it("ids that collide past the probe bound turn the index into a Map, answering the same through the switch", () => {
    for (const bound of [0, 1, 3]) {
      const index = new IdIndex(bound);
      const map = new Map<string, number>();
      for (let at = 0; at < 20_000; at++) {
        const id = at % 5 === 4 ? `x${at - 3}` : `x${at}`;
        assert.equal(index.push(id), map.get(id), `bound ${bound}: previous of ${id} at ${at}`);
        map.set(id, at);
        if (at % 997 === 0) assert.equal(index.latest(`x${at - 1}`), map.get(`x${at - 1}`));
      }
      for (const [id, at] of map) assert.equal(index.latest(id), at);
      assert.equal(index.latest("never"), undefined);
    }
  });

  it("columns keep every value pushed through their growth, in their type", () => {
    const times = new Column(Float64Array);
    const flags = new Column(Uint8Array);
    for (let i = 0; i < 5000; i++) {
      times.push(i === 7 ? Number.NaN : 1.7e12 + i / 3);
      flags.push(i & 7);
    }
    assert.equal(times.length, 5000);
    assert.ok(Number.isNaN(times.at(7)));
    assert.equal(times.at(4999), 1.7e12 + 4999 / 3);
    flags.set(10, flags.at(10) | 8);
    assert.equal(flags.at(10), 10);
    assert.equal(flags.at(4999), 4999 & 7);
  });

  it("JSON bytes read back as JSON.stringify writes the same values, across pieces", () => {
    const ids = [
      "plain",
      'quo"te',
      "back\\slash",
      "tab\there",
      "\u0000ctl",
      "é ü 😀",
      "\ud800lone",
      "x".repeat(300_000),
    ];
    const numbers = [0, -0, 1.5, -3, 1e21, 1.7e12, Number.NaN, Infinity, -Infinity, 2 ** 53 + 2];
    const out = new JsonBytes();
    out.raw('{"ids":"');
    ids.forEach((id, i) => {
      if (i) out.raw("\\n");
      out.stringBody(id);
    });
    out.raw('","n":[');
    numbers.forEach((n, i) => {
      if (i) out.raw(",");
      out.number(n);
    });
    out.raw("]}");
    const text = new TextDecoder().decode(out.finish());
    assert.equal(text, JSON.stringify({ ids: ids.join("\n"), n: numbers }));
  });
});
