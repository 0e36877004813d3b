import { setTimeout as sleep } from 'node:timers/promises';

/** A response of the service, its body parsed as JSON when it is JSON. */
export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

/** The request never got an answer, even after the retries. */
export class ServerUnreachableError extends Error {
  override readonly name = 'ServerUnreachableError';
}

export interface ApiClientOptions {
  /** The service's root, e.g. `http://127.0.0.1:8000` (a path prefix is kept). */
  readonly baseUrl: URL;
  readonly token: string;
  /** Retries after a network error, 429 or 5xx; 0 tries once. */
  readonly retries: number;
  /** The first retry's delay; each next one doubles. */
  readonly retryBaseMs?: number;
}

const DEFAULT_RETRY_BASE_MS = 500;
/** A server asking for longer than this is not waited on any longer. */
const MAX_RETRY_DELAY_MS = 60_000;
const GET_TIMEOUT_MS = 30_000;
/** Uploads may carry tens of megabytes to a busy server. */
const POST_TIMEOUT_MS = 10 * 60_000;

/**
 * Error codes under which fetch reports that the connection, not the request, failed. Anything
 * else (a file that vanished while its upload was being read) is the caller's to report.
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
]);

/** A small client for the service's HTTP API: bearer auth, time-outs, retries with backoff. */
export class ApiClient {
  private readonly base: URL;
  private readonly retryBaseMs: number;

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
        if (attempt >= this.options.retries) {
          throw new ServerUnreachableError(
            `${method} ${this.displayUrl}/${path.replace(/^\//, '')} got no answer: ${describeNetworkError(error)}`,
          );
        }
        await sleep(this.backoffMs(attempt));
        continue;
      }
      const retryable = response.status === 429 || response.status >= 500;
      if (retryable && attempt < this.options.retries) {
        await response.body?.cancel();
        await sleep(retryAfterMs(response.headers.get('retry-after')) ?? this.backoffMs(attempt));
        continue;
      }
      return { status: response.status, body: await readBody(response) };
    }
  }

  private backoffMs(attempt: number): number {
    const exponential = this.retryBaseMs * 2 ** attempt;
    // Jitter, so that several clients refused at once do not come back at once.
    return Math.min(MAX_RETRY_DELAY_MS, exponential * (0.75 + Math.random() * 0.5));
  }
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.min(MAX_RETRY_DELAY_MS, Math.max(0, seconds * 1000));
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(0, date - now));
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
