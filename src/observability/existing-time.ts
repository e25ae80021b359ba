/**
 * A time as the generation filters read it (`GET /generations`, `switchboard usage`), refusing what RFC 3339
 * has no such time for. Pure.
 */

const DATE_AND_HOUR = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}))?/;

/**
 * The time `value` names, or an invalid date (NaN) for one that does not exist: JavaScript's dates read a day
 * past its month's end (02-30) and hour 24 as the next day, which RFC 3339 has neither of, so such a time is
 * refused rather than silently another one. A bare day is midnight UTC.
 */
export function existingTime(value: string): Date {
  const parts = DATE_AND_HOUR.exec(value);
  if (parts) {
    const [year, month, day] = parts.slice(1, 4).map(Number) as [number, number, number];
    const hour = parts[4] === undefined ? 0 : Number(parts[4]);
    if (day > new Date(Date.UTC(year, month, 0)).getUTCDate() || hour > 23) return new Date(Number.NaN);
  }
  return new Date(value);
}
