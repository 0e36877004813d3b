/** String formats checked as pydantic checks them (more lenient than RFC 3339 about the zone). */
export const STRING_FORMATS = {
  'date-time': isDateTime,
  date: isCalendarDate,
  'http-url': isHttpUrl,
} as const;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  return match !== null && validDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

export function isDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (match === null || !validDate(Number(match[1]), Number(match[2]), Number(match[3]))) return false;
  const [hour, minute, second] = [match[4], match[5], match[6]].map((part) => Number(part ?? 0));
  return (hour ?? 0) < 24 && (minute ?? 0) < 60 && (second ?? 0) < 60;
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
