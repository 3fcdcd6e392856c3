// The day of a timestamp in a time zone, which usage reports ask for every record: remembered per quarter hour (since
// 2000), and always the day Intl itself gives (zones whose offsets are not whole hours, and old local mean times, whose
// day changes off the quarter hour).
import * as assert from "node:assert/strict";
import fc from "fast-check";
import { dayOf } from "../../src/core/periods.js";

const ZONES = [
  "UTC",
  "Asia/Kathmandu",
  "Australia/Eucla",
  "America/St_Johns",
  "Africa/Abidjan",
  "Africa/Monrovia",
  "Pacific/Chatham",
];

/** The day as Intl gives it, with no memory. */
function intlDay(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
    .formatToParts(ms)
    .reduce<Record<string, string>>((o, p) => ({ ...o, [p.type]: p.value }), {});
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** Around local midnights: the instant a day starts, give or take a few milliseconds to an hour. */
const nearMidnight = fc
  .tuple(fc.integer({ min: -3_000_000_000, max: 4_000_000_000 }), fc.integer({ min: -3_600_000, max: 3_600_000 }))
  .map(([seconds, jitter]) => Math.round(seconds / 86_400) * 86_400_000 + jitter);

describe("the day of a timestamp", () => {
  it("is the day Intl gives, in every zone, near midnights, old local mean times included", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.oneof(nearMidnight, fc.integer({ min: -5e12, max: 5e12 })), (z, ms) => {
        // Twice: the second answer comes from the quarter-hour memory when the first stored one.
        assert.equal(dayOf(ms, z), intlDay(ms, z));
        assert.equal(dayOf(ms, z), intlDay(ms, z));
      }),
      { numRuns: 3000 },
    );
  });

  it("St. John's set its clock back at 00:01 until 2011: the day changes twice around it, and is kept exact", () => {
    // 2000-10-29 00:01 NDT (02:31Z) became 23:01 NST on the 28th: the quarter 02:30–02:45Z starts on the 29th.
    const back = Date.UTC(2000, 9, 29, 2, 31);
    const zone = "America/St_Johns";
    for (let i = 0; i < 2; i++) {
      assert.equal(dayOf(back - 60_001, zone), "2000-10-28");
      assert.equal(dayOf(back - 1, zone), "2000-10-29");
      assert.equal(dayOf(back, zone), "2000-10-28");
      assert.equal(dayOf(back + 13 * 60_000, zone), "2000-10-28");
    }
    assert.equal(intlDay(back - 1, zone), "2000-10-29", "the zone's history, as Intl has it");
  });

  it("the last valid times and an unknown zone", () => {
    assert.equal(dayOf(8.64e15, "UTC"), "275760-09-13");
    assert.equal(dayOf(8.64e15 - 1, "UTC"), "275760-09-12");
    assert.throws(() => dayOf(Date.UTC(2026, 0, 1), "Not/AZone"), RangeError);
  });

  it("in Abidjan's local mean time (-0:16:08) the day changes inside a quarter hour, and is kept exact", () => {
    // 1880-01-01 00:00 local = 1880-01-01T00:16:08Z; the quarter hour 00:15–00:30 UTC holds both days.
    const midnight = Date.UTC(1880, 0, 1, 0, 16, 8);
    assert.equal(intlDay(midnight - 1, "Africa/Abidjan"), "1879-12-31", "the zone's old offset, as Intl has it");
    for (let i = 0; i < 2; i++) {
      assert.equal(dayOf(midnight - 1, "Africa/Abidjan"), "1879-12-31");
      assert.equal(dayOf(midnight, "Africa/Abidjan"), "1880-01-01");
    }
    assert.equal(dayOf(Number.NaN, "UTC"), "unknown");
  });
});
