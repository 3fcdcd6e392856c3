/**
 * What the lean summarizer (core/leanSummary.ts) keeps per entry of a long session, in memory a long session can
 * afford: numbers in typed columns (4 or 8 bytes a slot; a JS array takes 8 bytes a slot, a boxed number more, and
 * grows with slack), and an index of ids by their latest position in one array of integers (a `Map` of 750,000 ids
 * took about 45 bytes an entry). Measured on a 1.8 GB session (757,827 entries): the summarizer's live heap fell from
 * 155 MB to 62 MB (bench/RESULTS.md, issue #38).
 */

type Typed = Int32Array | Float64Array | Uint8Array;

/** A column of numbers that grows by half as values are pushed. */
export class Column<A extends Typed> {
  length = 0;
  private data: A;

  constructor(private readonly make: new (length: number) => A) {
    this.data = new make(1024);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new this.make(Math.ceil(this.data.length * 1.5));
      next.set(this.data as never);
      this.data = next;
    }
    this.data[this.length++] = value;
  }

  at(i: number): number {
    return this.data[i]!;
  }

  set(i: number, value: number): void {
    this.data[i] = value;
  }
}

/**
 * Entry ids in order, and for each id its latest position (a later duplicate wins, as pi's Map has it): open
 * addressing over positions, the id compared with the one kept at that position. Ids come from files anyone could
 * have written: the hash is seeded per process, and a probe longer than `maxProbes` (ids made to collide) turns the
 * index into a `Map` for the rest of the file, the cost of a `Map` rather than quadratic.
 */
export class IdIndex {
  readonly ids: string[] = [];
  /** Position + 1 of the latest entry of an id hashed here; 0: empty. */
  private slots = new Int32Array(2048);
  private used = 0;
  private map: Map<string, number> | null = null;

  constructor(private readonly maxProbes = 64) {}

  /** The latest position of `id` (undefined: not seen). */
  latest(id: string): number | undefined {
    const slot = this.map ? -1 : this.slotOf(id);
    if (slot < 0) return this.map!.get(id);
    const at = this.slots[slot]!;
    return at ? at - 1 : undefined;
  }

  /** Appends `id` as the entry at the next position; returns the position of its previous entry, if any. */
  push(id: string): number | undefined {
    const at = this.ids.length;
    const slot = this.map ? -1 : this.slotOf(id);
    this.ids.push(id);
    if (slot < 0) {
      const previous = this.map!.get(id);
      this.map!.set(id, at);
      return previous;
    }
    const previous = this.slots[slot]!;
    this.slots[slot] = at + 1;
    if (previous) return previous - 1;
    if (++this.used * 2 > this.slots.length) this.grow();
    return undefined;
  }

  /** The slot of `id` (its own or the empty one it would take); -1 once the index is a `Map`. */
  private slotOf(id: string): number {
    const mask = this.slots.length - 1;
    let slot = hash(id) & mask;
    for (let probes = 0; ; probes++) {
      const at = this.slots[slot]!;
      if (!at || this.ids[at - 1] === id) return slot;
      if (probes >= this.maxProbes) return this.toMap();
      slot = (slot + 1) & mask;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    const mask = this.slots.length - 1;
    for (const at of old) {
      if (!at) continue;
      let slot = hash(this.ids[at - 1]!) & mask;
      for (let probes = 0; this.slots[slot]; probes++) {
        if (probes >= this.maxProbes) return void this.toMap();
        slot = (slot + 1) & mask;
      }
      this.slots[slot] = at;
    }
  }

  /** Every id's latest position in a `Map` from now on. */
  private toMap(): -1 {
    this.map = new Map();
    for (let i = 0; i < this.ids.length; i++) this.map.set(this.ids[i]!, i);
    this.slots = new Int32Array(0);
    return -1;
  }
}

/** Different in every process: collisions cannot be made ahead for it. */
const SEED = (Math.random() * 0x100000000) >>> 0;

/** FNV-1a over the id's UTF-16 code units from a random start, then murmur3's finalizer (every bit mixed down). */
function hash(id: string): number {
  let h = 0x811c9dc5 ^ SEED;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
