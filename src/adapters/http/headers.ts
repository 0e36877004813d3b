// Reading response headers the same way whichever client (fetch, node:http, gaxios, @slack/web-api)
// handed them over.

/** What `headerValue` reads: a `Headers`(-like) object with `get`, or a plain record. */
export type HeaderSource =
  | { get(name: string): unknown }
  | Readonly<Record<string, string | readonly string[] | number | undefined>>;

/**
 * One header's value, its name matched without regard to case; a repeated header (a record's
 * array) gives its first value. Undefined when absent or not text. Takes any `HeaderSource`, as
 * `unknown`: some clients (gaxios) type their headers no better.
 */
export function headerValue(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const get: unknown = (headers as { get?: unknown }).get;
  if (typeof get === 'function') {
    const value: unknown = get.call(headers, name);
    return typeof value === 'string' ? value : undefined;
  }
  const wanted = name.toLowerCase();
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === wanted);
  const value: unknown = Array.isArray(entry?.[1]) ? entry[1][0] : entry?.[1];
  return typeof value === 'string' ? value : undefined;
}

// Retry-After is read one way by every client, the CLI's included (it may not import adapters/).
export { MAX_RETRY_AFTER_HEADER_SECONDS, parseRetryAfter } from '../../retry-after.js';
