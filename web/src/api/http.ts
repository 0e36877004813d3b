import { reportSessionExpired } from './session-events';
import type { ValidationIssue } from './types';

export const UNAVAILABLE_MESSAGE = 'The service is unavailable right now; try again in a moment.';
const UNREACHABLE_MESSAGE = 'The service could not be reached; check your connection and try again.';

/** A refused or failed API request: its status, and the service's own words for it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    /** A 422's problems, each at its `loc` (`["body", "password"]`). */
    readonly issues: readonly ValidationIssue[] = [],
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

/** Words for any error a request can end with. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.detail;
  if (error instanceof Error && error.message !== '') return error.message;
  return 'Something went wrong; try again.';
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

function isValidationIssue(value: unknown): value is ValidationIssue {
  if (value === null || typeof value !== 'object') return false;
  const issue = value as Record<string, unknown>;
  return Array.isArray(issue.loc) && typeof issue.msg === 'string';
}

/** The ApiError for a response that was not ok: `{"detail": "…"}`, a 422's list, or the status. */
export function errorFromBody(status: number, body: unknown): ApiError {
  const detail =
    body !== null && typeof body === 'object' ? (body as { detail?: unknown }).detail : undefined;
  if (Array.isArray(detail)) {
    const issues = detail.filter(isValidationIssue);
    const words = issues.map((issue) => issue.msg).join('; ');
    return new ApiError(status, words === '' ? 'The request was refused as invalid.' : words, issues);
  }
  // 503 always reads the same to a person, whatever the server's reason (database, overload).
  if (status === 503) return new ApiError(status, UNAVAILABLE_MESSAGE);
  if (typeof detail === 'string' && detail !== '') return new ApiError(status, detail);
  if (status === 401) return new ApiError(status, 'You are signed out; sign in again.');
  if (status === 404) return new ApiError(status, 'Not found.');
  if (status === 429) return new ApiError(status, 'Too many attempts; wait a little and try again.');
  return new ApiError(status, `The request failed (HTTP ${status}); try again.`);
}

export async function errorFromResponse(response: Response): Promise<ApiError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  return errorFromBody(response.status, body);
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** A 401 here is an answer (a wrong password), not a lost session. */
  expectUnauthorized?: boolean;
}

/**
 * Sends one same-origin request: the session cookie goes with it, and the browser adds the Origin
 * header to writes (the service checks it on cookie-authenticated writes). Resolves to the response
 * for a 2xx, throws an ApiError otherwise.
 */
export async function send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  const init: RequestInit = { method, headers, credentials: 'same-origin' };
  if (options.signal !== undefined) init.signal = options.signal;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(url.pathname + url.search, init);
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new ApiError(0, UNREACHABLE_MESSAGE);
  }
  if (response.ok) return response;
  if (response.status === 401 && options.expectUnauthorized !== true) reportSessionExpired();
  throw await errorFromResponse(response);
}

/** A request whose answer is JSON. */
export async function requestJson<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(method, path, options);
  return (await response.json()) as T;
}

/** A request whose answer has no body (204). */
export async function requestNothing(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<void> {
  await send(method, path, options);
}
