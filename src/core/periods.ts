/**
 * Calendar periods for usage reports: the day a timestamp falls on (local, or in an IANA time zone), and the week
 * (starting Monday, ISO 8601, keyed by that Monday's date) and month it belongs to. Dates are `YYYY-MM-DD` strings,
 * which sort as they should.
 */

export type Period = "day" | "week" | "month";

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Days of recent quarter hours, per named zone: a report asks for every record's day, and most share a quarter. */
const quarterDays = new Map<string, Map<number, string>>();
const QUARTER = 15 * 60 * 1000;
const SINCE_2000 = Date.UTC(2000, 0, 1);
/** The last quarter whose end is still a valid time (8.64e15 ms). */
const LAST_QUARTER = Math.floor(8.64e15 / QUARTER) - 1;

/** The calendar day of a ms timestamp, in `timeZone` (default: the process's local zone); "unknown" for no time. */
export function dayOf(ms: number, timeZone?: string): string {
  if (!Number.isFinite(ms)) return "unknown";
  // The local zone is read from `Date` (cheap, and it follows a change of the process's zone); a named zone through
  // Intl, which is slow, so its days are remembered per quarter hour. Since 2000 every offset is a multiple of 15
  // minutes, so a local midnight falls on a quarter hour; a clock set back just after midnight (St. John's until
  // 2011, at 00:01) changes the day inside a quarter, and such a quarter's first and last millisecond disagree: it is
  // not remembered. Older times (local mean times, such as Monrovia's −0:44:30 until 1972) are not remembered at all.
  const quarter = Math.floor(ms / QUARTER);
  if (timeZone === undefined || ms < SINCE_2000 || quarter > LAST_QUARTER) return computeDay(ms, timeZone);
  const days = quarterDays.get(timeZone);
  const known = days?.get(quarter);
  if (known !== undefined) return known;
  const day = computeDay(ms, timeZone);
  const first = computeDay(quarter * QUARTER, timeZone);
  if (first === day && computeDay(quarter * QUARTER + QUARTER - 1, timeZone) === day) {
    if (!days) quarterDays.set(timeZone, new Map([[quarter, day]]));
    else {
      if (days.size >= 100_000) days.clear();
      days.set(quarter, day);
    }
  }
  return day;
}

function computeDay(ms: number, timeZone: string | undefined): string {
  if (timeZone === undefined) {
    const d = new Date(ms);
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  }
  let f = formatters.get(timeZone);
  if (!f) {
    // en-CA writes YYYY-MM-DD; the parts are read by type, so the locale's order does not matter anyway.
    f = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
    formatters.set(timeZone, f);
  }
  let year = "??";
  let month = "??";
  let day = "??";
  for (const p of f.formatToParts(ms)) {
    if (p.type === "year") year = p.value;
    else if (p.type === "month") month = p.value;
    else if (p.type === "day") day = p.value;
  }
  return `${year}-${month}-${day}`;
}

/** The key of the period a day belongs to: the day itself, its week's Monday, or `YYYY-MM`. */
export function periodOf(day: string, period: Period): string {
  if (day === "unknown" || period === "day") return day;
  if (period === "month") return day.slice(0, 7);
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const utc = new Date(Date.UTC(y, m - 1, d));
  utc.setUTCDate(utc.getUTCDate() - ((utc.getUTCDay() + 6) % 7));
  return `${pad(utc.getUTCFullYear(), 4)}-${pad(utc.getUTCMonth() + 1)}-${pad(utc.getUTCDate())}`;
}

/** `YYYY-MM-DD` or `YYYYMMDD` as `YYYY-MM-DD`; null when it is no calendar date (2026-13-45, 2026-02-30). */
export function parseDay(text: string): string | null {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(text);
  if (!m || text.length === 9) return null; // one dash but not the other
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/** Whether `zone` names a time zone this runtime knows (IANA names, UTC, fixed offsets like +02:00). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
