/**
 * Calendar periods for usage reports: the day a timestamp falls on (local, or in an IANA time zone), and the week
 * (starting Monday, ISO 8601, keyed by that Monday's date) and month it belongs to. Dates are `YYYY-MM-DD` strings,
 * which sort as they should.
 */

export type Period = "day" | "week" | "month";

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Days of recent quarter hours, per zone: a report asks for the day of every record, and most share a quarter. */
const quarterDays = new Map<string, Map<number, string>>();
const QUARTER = 15 * 60 * 1000;
const SINCE_2000 = Date.UTC(2000, 0, 1);

/** The calendar day of a ms timestamp, in `timeZone` (default: the process's local zone); "unknown" for no time. */
export function dayOf(ms: number, timeZone?: string): string {
  if (!Number.isFinite(ms)) return "unknown";
  // Since 2000 every zone's offset is a multiple of 15 minutes, so its day changes only at a quarter hour: a quarter
  // whose first and last millisecond fall on one day is that day throughout. Older times (local mean times, such as
  // Monrovia's −0:44:30 until 1972) are not remembered.
  if (ms < SINCE_2000) return computeDay(ms, timeZone);
  const quarter = Math.floor(ms / QUARTER);
  let days = quarterDays.get(timeZone ?? "");
  if (!days) quarterDays.set(timeZone ?? "", (days = new Map()));
  const known = days.get(quarter);
  if (known !== undefined) return known;
  const day = computeDay(ms, timeZone);
  const first = computeDay(quarter * QUARTER, timeZone);
  if (first === day && computeDay(quarter * QUARTER + QUARTER - 1, timeZone) === day) {
    if (days.size >= 100_000) days.clear();
    days.set(quarter, day);
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
  const part = (type: string) => f.formatToParts(ms).find((p) => p.type === type)?.value ?? "??";
  return `${part("year")}-${part("month")}-${part("day")}`;
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
