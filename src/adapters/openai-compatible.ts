import OpenAI from 'openai';
import { parseRetryAfter } from './http/headers.js';
import type { SourceFailure } from './source-error.js';

// What the clients of OpenAI-compatible servers (embeddings, chat completions) share.

/** What the `openai` client needs when the server wants no key (it refuses an absent one). */
const NO_API_KEY = 'no-api-key';

/**
 * The `openai` client for one server, configured only from what it is given: no retries of its
 * own (callers decide), no logging, and explicit nulls so that it reads no OPENAI_* variables
 * (only config.ts reads the environment).
 */
export function openAiClient(options: {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly timeoutMs: number;
}): OpenAI {
  return new OpenAI({
    baseURL: normaliseBaseUrl(options.baseUrl),
    apiKey: options.apiKey ?? NO_API_KEY,
    organization: null,
    project: null,
    webhookSecret: null,
    logLevel: 'off',
    maxRetries: 0,
    timeout: options.timeoutMs,
  });
}

/** `http://host:port` becomes `http://host:port/v1`; a URL with a path is kept; no trailing slash. */
export function normaliseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new RangeError(`not an absolute URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RangeError(`the server URL must be http or https, got ${url.protocol}`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path === '' ? '/v1' : path;
  return url.toString().replace(/\/+$/, '');
}

/** `retry-after-ms` (OpenAI's, more precise) or `retry-after` (headers.ts reads it), in seconds. */
export function retryAfterFrom(headers: Headers | undefined): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds / 1000;
  return parseRetryAfter(headers?.get('retry-after'));
}

/**
 * What an OpenAI-compatible server's HTTP error means for a retry: 429 and 5xx can pass, an
 * exhausted quota (OpenAI's 429 `insufficient_quota`) and refusals cannot.
 */
export function failureOfStatus(error: {
  readonly status: number | undefined;
  readonly code?: string | null | undefined;
  readonly headers?: Headers | undefined;
}): { failure: SourceFailure; retryAfterSeconds?: number } {
  const { status } = error;
  if (status === undefined) return { failure: 'unavailable' };
  if (status === 401) return { failure: 'unauthorized' };
  if (status === 403) return { failure: 'permission_denied' };
  if (status === 404 || status === 410) return { failure: 'not_found' };
  if (status === 429) {
    if (error.code === 'insufficient_quota') return { failure: 'permission_denied' };
    const retryAfterSeconds = retryAfterFrom(error.headers);
    return retryAfterSeconds === undefined
      ? { failure: 'rate_limited' }
      : { failure: 'rate_limited', retryAfterSeconds };
  }
  if (status === 408 || status === 504) return { failure: 'timeout' };
  if (status >= 500) return { failure: 'unavailable' };
  return { failure: 'bad_response' };
}

/** Drops the key and the server's echo of it (OpenAI's 401 says "Incorrect API key provided: sk-…"). */
export function redactApiKey(message: string, apiKey: string | undefined): string {
  let safe = message.replace(/(API key provided:\s*)\S+/gi, '$1[redacted]');
  if (apiKey !== undefined) safe = safe.split(apiKey).join('[redacted]');
  return safe.length > 500 ? `${safe.slice(0, 500)}…` : safe;
}
