import { drive, type drive_v3 } from '@googleapis/drive';
import { headerValue, parseRetryAfter } from '../http/headers.js';
import { SourceError, type SourceFailure } from '../source-error.js';
import type { DriveFile, DriveFolderPage, DrivePermission, GoogleDrive } from './google-drive.js';

const DEFAULT_API_URL = 'https://www.googleapis.com/';
const DEFAULT_TIMEOUT_MS = 60_000;
const PERMISSION_FIELDS = 'type,emailAddress,domain,role,allowFileDiscovery';
const FILE_FIELDS = `id,name,mimeType,modifiedTime,size,md5Checksum,webViewLink,driveId,trashed,permissions(${PERMISSION_FIELDS})`;
/** Drive's largest `permissions.list` page. */
const PERMISSIONS_PAGE_SIZE = 100;
/**
 * Pages of one file's permissions we follow at most: a shared drive has at most 600 members, so
 * far more pages than that means a server that never stops.
 */
const MAX_PERMISSION_PAGES = 100;
/** An error body longer than this is cut: only its reason and message matter. */
const ERROR_BODY_LIMIT_BYTES = 64 * 1024;
const MESSAGE_LIMIT_CHARS = 300;

/** 403 reasons that mean "slow down", not "you may not": another attempt after a pause can succeed. */
const RATE_LIMIT_REASONS: ReadonlySet<string> = new Set([
  'userRateLimitExceeded',
  'rateLimitExceeded',
  'sharingRateLimitExceeded',
  'quotaExceeded',
  'servingLimitExceeded',
]);

/**
 * 403 reasons for quotas counted per day. Retrying in seconds cannot help, but they do reset (the
 * project's daily quota at midnight Pacific Time), so they stay retryable with a long `Retry-After`
 * rather than failing the file for good; the job layer caps the wait and gives up after its retries.
 */
const DAILY_QUOTA_REASONS: ReadonlySet<string> = new Set([
  'dailyLimitExceeded',
  'dailyLimitExceededUnreg',
  'downloadQuotaExceeded',
]);

/** 403 reasons that say the wrong operation was asked for the kind of file: no permission is missing. */
const WRONG_OPERATION_REASONS: ReadonlySet<string> = new Set(['fileNotDownloadable', 'fileNotExportable']);

export interface GoogleApisDriveOptions {
  /** Root URL of Google's APIs (`GOOGLE_DRIVE_API_URL`); only its origin counts. */
  readonly apiUrl?: string;
  /** Per call, response body included: a download that takes longer is a `timeout`. */
  readonly timeoutMs?: number;
}

/**
 * `GoogleDrive` on `@googleapis/drive` (Drive v3). Each call carries the caller's access token as
 * `Authorization: Bearer` and makes exactly one request: no token refresh and no library retries,
 * since the job layer retries with backoff and honours `Retry-After` itself.
 *
 * Aborting through the caller's `signal` rejects with `signal.reason` as it is (the caller chose
 * to stop; nothing failed), not with a `SourceError`. Only our own `timeoutMs` is a `timeout`.
 */
export class GoogleApisDrive implements GoogleDrive {
  private readonly client: drive_v3.Drive;
  private readonly timeoutMs: number;

  constructor(options: GoogleApisDriveOptions = {}) {
    this.client = drive({ version: 'v3', rootUrl: options.apiUrl ?? DEFAULT_API_URL });
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async getFile(accessToken: string, fileId: string, signal?: AbortSignal): Promise<DriveFile> {
    const operation = `Google Drive files.get of ${fileId}`;
    return this.call(operation, accessToken, signal, async (callSignal) => {
      const response = await this.client.files.get(
        { fileId, fields: FILE_FIELDS, supportsAllDrives: true },
        jsonOptions(accessToken, callSignal),
      );
      if (!isSuccess(response.status)) {
        throw errorFromResponse(operation, response.status, response.headers, response.data, accessToken);
      }
      return toDriveFile(operation, response.data);
    });
  }

  async listFolder(
    accessToken: string,
    folderId: string,
    pageToken: string | undefined,
    signal?: AbortSignal,
  ): Promise<DriveFolderPage> {
    const operation = `Google Drive files.list of folder ${folderId}`;
    return this.call(operation, accessToken, signal, async (callSignal) => {
      const response = await this.client.files.list(
        {
          q: `'${escapeQueryString(folderId)}' in parents and trashed = false`,
          pageSize: 1000,
          ...(pageToken === undefined ? {} : { pageToken }),
          fields: `nextPageToken,files(${FILE_FIELDS})`,
          // A folder on a shared drive lists nothing without all three.
          supportsAllDrives: true,
          includeItemsFromAllDrives: true,
          corpora: 'allDrives',
        },
        jsonOptions(accessToken, callSignal),
      );
      if (!isSuccess(response.status)) {
        throw errorFromResponse(operation, response.status, response.headers, response.data, accessToken);
      }
      const body: unknown = response.data;
      if (!isRecord(body)) throw new SourceError('bad_response', `${operation}: the answer is not JSON`);
      const files = body.files ?? [];
      if (!Array.isArray(files)) throw new SourceError('bad_response', `${operation}: "files" is not a list`);
      const nextPageToken = body.nextPageToken;
      return {
        files: files.map((file: unknown) => toDriveFile(operation, file)),
        nextPageToken: typeof nextPageToken === 'string' && nextPageToken !== '' ? nextPageToken : undefined,
      };
    });
  }

  async exportFile(
    accessToken: string,
    fileId: string,
    mimeType: string,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    const operation = `Google Drive files.export of ${fileId} as ${mimeType}`;
    return this.call(operation, accessToken, signal, async (callSignal) => {
      const response = await this.client.files.export(
        { fileId, mimeType },
        streamOptions(accessToken, callSignal),
      );
      return readContent(operation, response, maxBytes, accessToken);
    });
  }

  async downloadFile(
    accessToken: string,
    fileId: string,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    const operation = `Google Drive download of ${fileId}`;
    return this.call(operation, accessToken, signal, async (callSignal) => {
      const response = await this.client.files.get(
        { fileId, alt: 'media', supportsAllDrives: true },
        streamOptions(accessToken, callSignal),
      );
      return readContent(operation, response, maxBytes, accessToken);
    });
  }

  async listPermissions(
    accessToken: string,
    fileId: string,
    signal?: AbortSignal,
  ): Promise<readonly DrivePermission[]> {
    const operation = `Google Drive permissions.list of ${fileId}`;
    const permissions: DrivePermission[] = [];
    let pageToken: string | undefined;
    for (let pages = 0; ; pages += 1) {
      if (pages === MAX_PERMISSION_PAGES) {
        throw new SourceError('bad_response', `${operation}: more than ${MAX_PERMISSION_PAGES} pages`);
      }
      const page = await this.call(operation, accessToken, signal, async (callSignal) => {
        const response = await this.client.permissions.list(
          {
            fileId,
            pageSize: PERMISSIONS_PAGE_SIZE,
            ...(pageToken === undefined ? {} : { pageToken }),
            fields: `nextPageToken,permissions(${PERMISSION_FIELDS})`,
            supportsAllDrives: true,
          },
          jsonOptions(accessToken, callSignal),
        );
        if (!isSuccess(response.status)) {
          throw errorFromResponse(operation, response.status, response.headers, response.data, accessToken);
        }
        const body: unknown = response.data;
        if (!isRecord(body)) throw new SourceError('bad_response', `${operation}: the answer is not JSON`);
        // An empty list is left out of the answer altogether.
        const listed = body.permissions ?? [];
        if (!Array.isArray(listed)) {
          throw new SourceError('bad_response', `${operation}: "permissions" is not a list`);
        }
        const next = body.nextPageToken;
        return {
          permissions: toPermissions(listed),
          nextPageToken: typeof next === 'string' && next !== '' ? next : undefined,
        };
      });
      permissions.push(...page.permissions);
      if (page.nextPageToken === undefined || page.nextPageToken === pageToken) return permissions;
      pageToken = page.nextPageToken;
    }
  }

  /**
   * Runs one request under our time-out and the caller's signal, and turns whatever the transport
   * throws into a `SourceError` (or the caller's abort reason).
   */
  private async call<T>(
    operation: string,
    accessToken: string,
    callerSignal: AbortSignal | undefined,
    request: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    callerSignal?.throwIfAborted();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`${operation} timed out`));
    }, this.timeoutMs);
    const forwardAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', forwardAbort, { once: true });
    try {
      return await request(controller.signal);
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (error instanceof SourceError) throw error;
      if (timedOut) {
        throw new SourceError('timeout', `${operation}: no complete answer within ${this.timeoutMs} ms`);
      }
      throw transportError(operation, error, accessToken);
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', forwardAbort);
    }
  }
}

/** Every status comes back to us (`validateStatus`), so the mapping, `Retry-After` included, is ours. */
function jsonOptions(accessToken: string, signal: AbortSignal) {
  return {
    headers: { Authorization: `Bearer ${accessToken}` },
    retry: false,
    validateStatus: () => true,
    responseType: 'json' as const,
    signal,
  };
}

function streamOptions(accessToken: string, signal: AbortSignal) {
  return { ...jsonOptions(accessToken, signal), responseType: 'stream' as const };
}

interface ContentResponse {
  readonly status: number;
  readonly headers: unknown;
  readonly data: unknown;
}

/** Reads a streamed body, giving up (and closing the connection) as soon as it passes `maxBytes`. */
async function readContent(
  operation: string,
  response: ContentResponse,
  maxBytes: number,
  accessToken: string,
): Promise<Uint8Array> {
  if (!isSuccess(response.status)) {
    const text = new TextDecoder().decode(await readAtMost(response.data, ERROR_BODY_LIMIT_BYTES));
    throw errorFromResponse(operation, response.status, response.headers, parseJson(text), accessToken);
  }
  const tooLarge = () =>
    new SourceError('too_large', `${operation}: more than ${maxBytes} bytes`, { status: response.status });
  const declaredLength = Number(headerValue(response.headers, 'content-length'));
  // A compressed length says little about the decoded size, so only an identity length is trusted.
  if (headerValue(response.headers, 'content-encoding') === undefined && declaredLength > maxBytes) {
    await discard(response.data);
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Leaving the loop early destroys the stream, which closes the connection.
  for await (const chunk of asChunks(operation, response.data)) {
    total += chunk.byteLength;
    if (total > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return concat(chunks, total);
}

async function readAtMost(body: unknown, limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of asChunks('error body', body)) {
    chunks.push(chunk);
    total += chunk.byteLength;
    if (total >= limit) break;
  }
  return concat(chunks, total).subarray(0, limit);
}

/** The body gaxios hands over: a Node `Readable` with node-fetch, a web `ReadableStream` with fetch. */
async function* asChunks(operation: string, body: unknown): AsyncGenerator<Uint8Array> {
  if (typeof body === 'string') {
    yield new TextEncoder().encode(body);
    return;
  }
  if (body === null || body === undefined) return;
  if (typeof body !== 'object' || !(Symbol.asyncIterator in body)) {
    throw new SourceError('bad_response', `${operation}: the answer has no readable body`);
  }
  for await (const chunk of body as AsyncIterable<unknown>) {
    if (typeof chunk === 'string') yield new TextEncoder().encode(chunk);
    else if (chunk instanceof Uint8Array) yield chunk;
    else throw new SourceError('bad_response', `${operation}: the body is not bytes`);
  }
}

async function discard(body: unknown): Promise<void> {
  if (typeof body !== 'object' || body === null) return;
  const stream = body as { destroy?: () => void; cancel?: () => Promise<void> };
  if (typeof stream.destroy === 'function') stream.destroy();
  else if (typeof stream.cancel === 'function') await stream.cancel().catch(() => undefined);
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function toDriveFile(operation: string, raw: unknown): DriveFile {
  if (!isRecord(raw)) throw new SourceError('bad_response', `${operation}: a file is not a JSON object`);
  const { id, name, mimeType } = raw;
  if (typeof id !== 'string' || typeof name !== 'string' || typeof mimeType !== 'string') {
    throw new SourceError('bad_response', `${operation}: a file lacks its id, name or mimeType`);
  }
  // Drive sends int64 values such as `size` as strings.
  const size = typeof raw.size === 'string' || typeof raw.size === 'number' ? Number(raw.size) : Number.NaN;
  return {
    id,
    name,
    mimeType,
    modifiedTime: optionalString(raw.modifiedTime),
    size: Number.isFinite(size) ? size : undefined,
    md5Checksum: optionalString(raw.md5Checksum),
    webViewLink: optionalString(raw.webViewLink),
    driveId: optionalString(raw.driveId),
    trashed: raw.trashed === true,
    // Left out when Drive does not tell (shared drives, files the user may not share).
    permissions: Array.isArray(raw.permissions) ? toPermissions(raw.permissions) : undefined,
  };
}

const PERMISSION_TYPES: ReadonlySet<string> = new Set(['user', 'group', 'domain', 'anyone']);

/**
 * Drive's permission resources, trimmed to what access needs. A grant of a kind we do not know
 * (a type Google adds later) is left out: leaving a grant out can only narrow who may open it.
 */
function toPermissions(raw: readonly unknown[]): DrivePermission[] {
  const permissions: DrivePermission[] = [];
  for (const entry of raw) {
    if (!isRecord(entry) || typeof entry.type !== 'string' || !PERMISSION_TYPES.has(entry.type)) continue;
    const emailAddress = optionalString(entry.emailAddress);
    const domain = optionalString(entry.domain);
    permissions.push({
      type: entry.type as DrivePermission['type'],
      role: optionalString(entry.role) ?? '',
      ...(emailAddress === undefined ? {} : { emailAddress }),
      ...(domain === undefined ? {} : { domain }),
      ...(typeof entry.allowFileDiscovery === 'boolean'
        ? { allowFileDiscovery: entry.allowFileDiscovery }
        : {}),
    });
  }
  return permissions;
}

/** Drive's query language: string literals in single quotes, `'` and `\` escaped with `\`. */
function escapeQueryString(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}

interface GoogleErrorDetail {
  readonly reason: string | undefined;
  readonly domain: string | undefined;
  readonly message: string | undefined;
  readonly status: string | undefined;
}

/** Reads `{"error": {"code", "message", "errors": [{"domain", "reason", "message"}], "status"}}`. */
function googleErrorDetail(body: unknown): GoogleErrorDetail {
  const error = isRecord(body) ? body.error : undefined;
  if (typeof error === 'string') {
    // OAuth-style `{"error": "invalid_token", "error_description": "…"}`.
    return {
      reason: error,
      domain: undefined,
      message: isRecord(body) ? optionalString(body.error_description) : undefined,
      status: undefined,
    };
  }
  if (!isRecord(error))
    return { reason: undefined, domain: undefined, message: undefined, status: undefined };
  const first: unknown = Array.isArray(error.errors) ? error.errors[0] : undefined;
  return {
    reason: isRecord(first) ? optionalString(first.reason) : undefined,
    domain: isRecord(first) ? optionalString(first.domain) : undefined,
    message: optionalString(error.message) ?? (isRecord(first) ? optionalString(first.message) : undefined),
    status: optionalString(error.status),
  };
}

function errorFromResponse(
  operation: string,
  status: number,
  headers: unknown,
  body: unknown,
  accessToken: string,
): SourceError {
  const detail = googleErrorDetail(body);
  const retryAfterSeconds = parseRetryAfter(headerValue(headers, 'retry-after'));
  const said = [detail.reason, detail.message].filter((part) => part !== undefined).join(': ');
  const message = redact(`${operation}: HTTP ${status}${said === '' ? '' : ` ${said}`}`, accessToken);
  const failure = failureFor(status, detail);
  const dailyHint =
    failure === 'rate_limited' && detail.reason !== undefined && DAILY_QUOTA_REASONS.has(detail.reason)
      ? secondsUntilPacificMidnight(new Date())
      : undefined;
  const hint = retryAfterSeconds ?? dailyHint;
  const keepsHint = failure === 'rate_limited' || failure === 'unavailable';
  return new SourceError(failure, message, {
    status,
    ...(keepsHint && hint !== undefined ? { retryAfterSeconds: hint } : {}),
  });
}

function failureFor(status: number, detail: GoogleErrorDetail): SourceFailure {
  if (status === 401) return 'unauthorized';
  if (status === 403) return failureFor403(detail);
  if (status === 404 || status === 410) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  return 'bad_response';
}

function failureFor403({ reason, domain, status }: GoogleErrorDetail): SourceFailure {
  if (reason === 'exportSizeLimitExceeded') return 'too_large';
  if (reason !== undefined && (RATE_LIMIT_REASONS.has(reason) || DAILY_QUOTA_REASONS.has(reason))) {
    return 'rate_limited';
  }
  if (reason !== undefined && WRONG_OPERATION_REASONS.has(reason)) return 'bad_response';
  // Quota reasons Google adds later still come from the usageLimits domain.
  if (domain === 'usageLimits' || status === 'RESOURCE_EXHAUSTED') return 'rate_limited';
  return 'permission_denied';
}

/** A failure with no HTTP answer: the connection was refused, reset, or cut short. */
function transportError(operation: string, error: unknown, accessToken: string): unknown {
  const code = errorCode(error);
  const fromGaxios = isRecord(error) && 'config' in error;
  // Anything else is a bug, not an outage: left as it is so no retry hides it.
  if (code === undefined && !fromGaxios) return error;
  const failure: SourceFailure = code === 'ETIMEDOUT' || code === 'TimeoutError' ? 'timeout' : 'unavailable';
  const reason = code ?? 'connection failed';
  // Not the gaxios error as cause: its config carries the request headers.
  return new SourceError(failure, redact(`${operation}: no answer (${reason})`, accessToken), {
    cause: rootCause(error),
  });
}

/** The first string `code` along the cause chain (gaxios copies the system error's). */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && isRecord(current); depth += 1) {
    if (typeof current.code === 'string' && current.code !== '') return current.code;
    current = current.cause;
  }
  return undefined;
}

function rootCause(error: unknown): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && isRecord(current) && current.cause !== undefined; depth += 1) {
    current = current.cause;
  }
  return current === error ? undefined : current;
}

/** Google's daily quotas reset at midnight Pacific Time. */
function secondsUntilPacificMidnight(now: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/Los_Angeles',
    hourCycle: 'h23',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(now);
  const part = (type: string) => Number(parts.find((entry) => entry.type === type)?.value ?? 0);
  const elapsed = part('hour') * 3600 + part('minute') * 60 + part('second');
  return Math.max(1, 86_400 - elapsed);
}

/** Never lets the token into a message, whatever a server echoes back. */
function redact(text: string, accessToken: string): string {
  const safe = accessToken === '' ? text : text.split(accessToken).join('[redacted]');
  return safe.length > MESSAGE_LIMIT_CHARS ? `${safe.slice(0, MESSAGE_LIMIT_CHARS)}…` : safe;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
