import { setTimeout as sleep } from 'node:timers/promises';
import { parseRetryAfter } from '../retry-after.js';
import { formatDuration } from './progress.js';

/** A response of the service, its body parsed as JSON when it is JSON. */
export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

/**
 * The request never got a useful answer, even after the retries: no answer at all, or a 503 for
 * longer than the outage budget. Every further request would fare the same.
 */
export class ServerUnreachableError extends Error {
  override readonly name = 'ServerUnreachableError';
}

export interface ApiClientOptions {
  /** The service's root, e.g. `http://127.0.0.1:8000` (a path prefix is kept). */
  readonly baseUrl: URL;
  readonly token: string;
  /** Retries after a network error, 429 or 5xx; 0 tries once. */
  readonly retries: number;
  /**
   * How long an outage (a 503, a refused or reset connection) is waited out, beyond the
   * `retries`; 0 (the default) leaves only `retries`.
   */
  readonly maxWaitMs?: number;
  /** The first retry's delay; each next one doubles. */
  readonly retryBaseMs?: number;
  /** Told once when an outage begins to be waited out (not at each retry), e.g. to tell the user. */
  readonly onUnavailable?: (message: string) => void;
}

const DEFAULT_RETRY_BASE_MS = 500;
/** A server asking for longer than this is not waited on any longer. */
const MAX_RETRY_DELAY_MS = 60_000;
/** Backoff without Retry-After stops growing here, so a service back from an outage is seen soon. */
const MAX_BACKOFF_MS = 15_000;
const GET_TIMEOUT_MS = 30_000;
/** Uploads may carry tens of megabytes to a busy server. */
const POST_TIMEOUT_MS = 10 * 60_000;

/**
 * Error codes under which fetch reports that the connection, not the request, failed: the
 * service is away (restarting, failing over), and these are waited out like a 503. Anything else
 * (a file that vanished while its upload was being read) is the caller's to report.
 */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** A small client for the service's HTTP API: bearer auth, time-outs, retries with backoff. */
export class ApiClient {
  private readonly base: URL;
  private readonly retryBaseMs: number;
  private readonly maxWaitMs: number;
  /**
   * The service has answered once: refused connections are an outage from then on, while before,
   * a wrong --url or a service not started fails fast.
   */
  private answered = false;
  /** The current outage was told (once for all requests); any answer but a 503 ends it. */
  private outageTold = false;
  /** When a request last met an outage (0: never). */
  lastUnavailableAt = 0;

  constructor(private readonly options: ApiClientOptions) {
    const base = new URL(options.baseUrl);
    // fetch refuses URLs with credentials, and the token is what authenticates.
    base.username = '';
    base.password = '';
    base.search = '';
    base.hash = '';
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    this.base = base;
    this.retryBaseMs = options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
    this.maxWaitMs = options.maxWaitMs ?? 0;
  }

  /** The service's address as it may be shown: without credentials, query or token. */
  get displayUrl(): string {
    return `${this.base.origin}${this.base.pathname.replace(/\/$/, '')}`;
  }

  get(path: string): Promise<ApiResponse> {
    return this.send('GET', path, async () => ({}), GET_TIMEOUT_MS);
  }

  postJson(path: string, json: string): Promise<ApiResponse> {
    return this.send(
      'POST',
      path,
      async () => ({ body: json, contentType: 'application/json' }),
      POST_TIMEOUT_MS,
    );
  }

  /** `buildForm` runs again for each attempt: a form's file bodies are read once. */
  postForm(path: string, buildForm: () => Promise<FormData>): Promise<ApiResponse> {
    return this.send('POST', path, async () => ({ body: await buildForm() }), POST_TIMEOUT_MS);
  }

  private async send(
    method: string,
    path: string,
    buildBody: () => Promise<{ body?: string | FormData; contentType?: string }>,
    timeoutMs: number,
  ): Promise<ApiResponse> {
    const url = new URL(path.replace(/^\//, ''), this.base);
    const request = `${method} ${this.displayUrl}/${path.replace(/^\//, '')}`;
    // This request's own clock: others being answered meanwhile must not keep it waiting for ever.
    let outageSince: number | undefined;
    for (let attempt = 0; ; attempt += 1) {
      const { body, contentType } = await buildBody();
      const headers: Record<string, string> = {
        authorization: `Bearer ${this.options.token}`,
        accept: 'application/json',
      };
      if (contentType !== undefined) headers['content-type'] = contentType;
      let response: Response;
      try {
        response = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        if (!isNetworkError(error)) throw error;
        const code = connectionErrorCode(error);
        const delayMs = this.backoffMs(attempt);
        const outage = code === undefined || !this.answered ? undefined : `service unreachable (${code})`;
        if (outage !== undefined) outageSince ??= Date.now();
        if (!this.shouldRetry(attempt, delayMs, outage, outageSince)) {
          throw new ServerUnreachableError(`${request} got no answer: ${describeNetworkError(error)}`);
        }
        await sleep(delayMs);
        continue;
      }
      this.answered = true;
      if (response.status !== 503) this.outageTold = false;
      const answer = { status: response.status, body: await readBody(response) };
      if (answer.status !== 429 && answer.status < 500) return answer;
      const delayMs = retryAfterMs(response.headers.get('retry-after')) ?? this.backoffMs(attempt);
      const outage =
        answer.status === 503 ? `service unavailable (503: ${detailOf(answer.body)})` : undefined;
      if (outage !== undefined) outageSince ??= Date.now();
      if (this.shouldRetry(attempt, delayMs, outage, outageSince)) {
        await sleep(delayMs);
        continue;
      }
      if (outage === undefined) return answer;
      const waited = formatDuration(Date.now() - (outageSince ?? Date.now()));
      throw new ServerUnreachableError(
        `${request} still unavailable after ${waited} (503: ${detailOf(answer.body)})`,
      );
    }
  }

  /**
   * Whether a failed attempt is tried again after `delayMs`. A restart or failover of the service
   * or its database (a 503, refused connections: `outage` describes it) lasts from seconds to a
   * couple of minutes, longer than a few quick retries, so it is waited out for up to `maxWaitMs`
   * however many attempts that takes; anything else (429, 500, 502, 504, a time-out) gets only
   * `retries` more attempts. The user is told once per outage, not at each retry.
   */
  private shouldRetry(
    attempt: number,
    delayMs: number,
    outage: string | undefined,
    outageSince: number | undefined,
  ): boolean {
    if (outage === undefined || outageSince === undefined) return attempt < this.options.retries;
    const now = Date.now();
    this.lastUnavailableAt = now;
    const retry = attempt < this.options.retries || now + delayMs - outageSince <= this.maxWaitMs;
    if (retry && !this.outageTold) {
      this.outageTold = true;
      const budget = this.maxWaitMs > 0 ? ` for up to ${Math.round(this.maxWaitMs / 1000)} s` : '';
      this.options.onUnavailable?.(`${outage}; retrying${budget}`);
    }
    return retry;
  }

  private backoffMs(attempt: number): number {
    const exponential = this.retryBaseMs * 2 ** Math.min(attempt, 30);
    // Jitter, so that several clients refused at once do not come back at once.
    return Math.min(MAX_BACKOFF_MS, exponential * (0.75 + Math.random() * 0.5));
  }
}

/**
 * `Retry-After` (seconds or an HTTP date, read as every client of this project reads it:
 * `parseRetryAfter`) in milliseconds, at most MAX_RETRY_DELAY_MS; undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  const seconds = parseRetryAfter(header, now);
  return seconds === undefined ? undefined : Math.min(MAX_RETRY_DELAY_MS, seconds * 1000);
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true;
  const cause: unknown = error.cause;
  if (!(cause instanceof Error)) return error.name === 'TypeError' && error.message === 'fetch failed';
  const code = (cause as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  return NETWORK_ERROR_CODES.has(code) || code.startsWith('UND_ERR');
}

/** The code of a connection that could not be made or was cut (not a time-out awaiting the answer). */
function connectionErrorCode(error: unknown): string | undefined {
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  const code = cause instanceof Error ? (cause as { code?: unknown }).code : undefined;
  return typeof code === 'string' && NETWORK_ERROR_CODES.has(code) ? code : undefined;
}

function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return 'timed out';
  const cause: unknown = error.cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' ? `${code} (${cause.message})` : cause.message;
  }
  return error.message;
}

/** The human part of an error answer: `{"detail": "…"}` or FastAPI's list of issues. */
export function detailOf(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 300);
  if (typeof body !== 'object' || body === null) return '';
  const detail = (body as { detail?: unknown }).detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return validationIssuesOf(body)
      .map((issue) => `${issue.loc.join('.')}: ${issue.msg}`)
      .join('; ');
  }
  return JSON.stringify(body).slice(0, 300);
}

/** One entry of a 422's `detail` list. */
export interface ValidationIssue {
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly type: string;
  readonly ctx?: Readonly<Record<string, unknown>>;
}

/** The issues of a 422 answer; [] for any other shape. */
export function validationIssuesOf(body: unknown): ValidationIssue[] {
  if (typeof body !== 'object' || body === null) return [];
  const detail = (body as { detail?: unknown }).detail;
  if (!Array.isArray(detail)) return [];
  return detail.flatMap((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null) return [];
    const { loc, msg, type, ctx } = entry as Record<string, unknown>;
    if (!Array.isArray(loc)) return [];
    return [
      {
        loc: loc.filter(
          (part): part is string | number => typeof part === 'string' || typeof part === 'number',
        ),
        msg: typeof msg === 'string' ? msg : '',
        type: typeof type === 'string' ? type : '',
        ...(typeof ctx === 'object' && ctx !== null ? { ctx: ctx as Record<string, unknown> } : {}),
      },
    ];
  });
}
