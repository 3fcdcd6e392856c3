/**
 * Row 22 of `npm run bench` (issue #22): the fork-family index the Sessions view's rows come from, built once after
 * each listing change, against the warm listing it is built from.
 */
import { FamilyIndex, type StoreSession } from "../src/node/store/index.js";
import { medianOf, ms, type Row } from "./row.js";

export function familiesRow(sessions: StoreSession[], warmMs: number): Row {
  let index!: FamilyIndex;
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    index = new FamilyIndex(sessions);
    times.push(performance.now() - t);
  }
  const t = medianOf(times);
  return {
    n: 22,
    measure: `fork families of the warm listing (${index.tops(sessions).length} families, ${sessions.length} sessions)`,
    value: `${ms(t)} ms`,
    baseline: `warm listing ${ms(warmMs)} ms`,
    ratio: `${((t / warmMs) * 100).toFixed(1)}%`,
    goal: "",
    met: null,
  };
}
