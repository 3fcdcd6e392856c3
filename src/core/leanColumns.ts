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
 * addressing over positions, the id compared with the one kept at that position.
 */
export class IdIndex {
  readonly ids: string[] = [];
  /** Position + 1 of the latest entry of an id hashed here; 0: empty. */
  private slots = new Int32Array(2048);
  private used = 0;

  /** The latest position of `id` (undefined: not seen). */
  latest(id: string): number | undefined {
    const at = this.slots[this.slotOf(id)]!;
    return at ? at - 1 : undefined;
  }

  /** Appends `id` as the entry at the next position; returns the position of its previous entry, if any. */
  push(id: string): number | undefined {
    const at = this.ids.push(id) - 1;
    const slot = this.slotOf(id);
    const previous = this.slots[slot]!;
    this.slots[slot] = at + 1;
    if (previous) return previous - 1;
    if (++this.used * 2 > this.slots.length) this.grow();
    return undefined;
  }

  private slotOf(id: string): number {
    const mask = this.slots.length - 1;
    let slot = hash(id) & mask;
    for (;;) {
      const at = this.slots[slot]!;
      if (!at || this.ids[at - 1] === id) return slot;
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
      while (this.slots[slot]) slot = (slot + 1) & mask;
      this.slots[slot] = at;
    }
  }
}

/** FNV-1a over the id's UTF-16 code units. */
function hash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
