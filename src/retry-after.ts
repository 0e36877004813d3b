// `Retry-After` read one way by every client of another server: the adapters (through
// adapters/http/headers.ts), the job retry policy and the CLI.

/**
 * The most seconds `parseRetryAfter` returns: 2^31, the value RFC 9111 (§1.2.2) has caches use for
 * delta-seconds too large to represent. Callers apply their own, lower, caps.
 */
export const MAX_RETRY_AFTER_HEADER_SECONDS = 2 ** 31;

/**
 * `Retry-After` (RFC 9110 §10.2.3) as whole seconds from `now`:
 * - delta-seconds (digits only, surrounding spaces ignored) as they are;
 * - an HTTP-date (IMF-fixdate, RFC 850 or asctime, all GMT) as the seconds until then, rounded
 *   up; a date already past is 0;
 * - either capped at `MAX_RETRY_AFTER_HEADER_SECONDS`;
 * - undefined for anything else: absent, empty, negative (`-5`), fractional (`1.5`), a date that
 *   does not exist (`31 Feb`), or garbage. A hint that cannot be read is no hint: the caller's own
 *   backoff applies.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text), MAX_RETRY_AFTER_HEADER_SECONDS);
  const date = parseHttpDate(text, now);
  if (date === undefined) return undefined;
  return Math.min(Math.max(0, Math.ceil((date - now) / 1000)), MAX_RETRY_AFTER_HEADER_SECONDS);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

// The three forms RFC 9110 §5.6.7 has recipients accept. Not Date.parse: it reads "-5" or "2025" as
// dates, and asctime (which has no zone) as local time.
/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = /^[a-z]{3}, (\d{1,2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/i;
/** `Sunday, 06-Nov-94 08:49:37 GMT` */
const RFC_850_DATE = /^[a-z]{6,9}, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/i;
/** `Sun Nov  6 08:49:37 1994` */
const ASCTIME_DATE = /^[a-z]{3} ([a-z]{3}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i;

/** An HTTP-date as epoch milliseconds; undefined when it is none or names a time that does not exist. */
function parseHttpDate(text: string, now: number): number | undefined {
  let parts: { day: string; month: string; year: number; hour: string; minute: string; second: string };
  const imf = IMF_FIXDATE.exec(text);
  const rfc850 = RFC_850_DATE.exec(text);
  const asctime = ASCTIME_DATE.exec(text);
  if (imf !== null) {
    const [, day = '', month = '', year = '', hour = '', minute = '', second = ''] = imf;
    parts = { day, month, year: Number(year), hour, minute, second };
  } else if (rfc850 !== null) {
    const [, day = '', month = '', year = '', hour = '', minute = '', second = ''] = rfc850;
    parts = { day, month, year: twoDigitYear(Number(year), now), hour, minute, second };
  } else if (asctime !== null) {
    const [, month = '', day = '', hour = '', minute = '', second = '', year = ''] = asctime;
    parts = { day, month, year: Number(year), hour, minute, second };
  } else {
    return undefined;
  }
  const month = MONTHS.indexOf(parts.month.toLowerCase());
  const [day, hour, minute, second] = [parts.day, parts.hour, parts.minute, parts.second].map(Number);
  if (month < 0 || day === undefined || hour === undefined || minute === undefined || second === undefined)
    return undefined;
  // Second 60 is a leap second (RFC 9110 allows it); Date.UTC rolls it into the next minute.
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  // Date.UTC rolls 31 Feb over into March: a day that does not exist in its month is no date.
  if (new Date(Date.UTC(parts.year, month, day)).getUTCDate() !== day) return undefined;
  return Date.UTC(parts.year, month, day, hour, minute, second);
}

/** RFC 9110 §5.6.7: a two-digit year more than 50 years ahead is the latest past year ending so. */
function twoDigitYear(year: number, now: number): number {
  const currentYear = new Date(now).getUTCFullYear();
  const candidate = currentYear - (currentYear % 100) + year;
  return candidate > currentYear + 50 ? candidate - 100 : candidate;
}
