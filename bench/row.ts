/** One row of `npm run bench`'s table: a figure, its baseline measured in the same run, and the goal it answers. */
export interface Row {
  n: number;
  measure: string;
  value: string;
  baseline: string;
  ratio: string;
  goal: string;
  /** null: a figure with no goal of its own. */
  met: boolean | null;
}

/** The median of some measurements (the upper one of an even count). */
export const medianOf = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Milliseconds as the bench's tables write them: two decimals below 10. */
export const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(0));

/** Bytes in MB, one decimal. */
export const mb = (n: number) => (n / 1048576).toFixed(1);

/** The median time of `runs` calls of `fn`, after one untimed (the JIT's first runs); `setup` before each, untimed. */
export function median(fn: () => unknown, runs: number, setup?: () => void): number {
  const times: number[] = [];
  setup?.();
  fn();
  for (let i = 0; i < runs; i++) {
    setup?.();
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** `median` of an asynchronous `fn`. */
export async function medianAsync(fn: () => Promise<unknown>, runs: number, setup?: () => void): Promise<number> {
  const times: number[] = [];
  setup?.();
  await fn();
  for (let i = 0; i < runs; i++) {
    setup?.();
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
