import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.js';
import {
  JobError,
  jobErrorFromHttpStatus,
  MAX_RETRY_AFTER_SECONDS,
  type RetrySettings,
  retryDelaySeconds,
  shouldRetry,
  toJobError,
} from './retry-policy.js';

describe('jobErrorFromHttpStatus', () => {
  it('retries 429, 408 and 5xx with their Retry-After, and fails other 4xx at once', () => {
    expect(jobErrorFromHttpStatus(429, new Headers({ 'retry-after': '7' }))).toMatchObject({
      reason: 'rate_limited',
      retryable: true,
      retryAfterSeconds: 7,
    });
    expect(jobErrorFromHttpStatus(503, { 'Retry-After': ['3'] })).toMatchObject({
      reason: 'upstream_unavailable',
      retryAfterSeconds: 3,
    });
    expect(jobErrorFromHttpStatus(500)).toMatchObject({ reason: 'upstream_unavailable', retryable: true });
    expect(jobErrorFromHttpStatus(504)).toMatchObject({ reason: 'timeout', retryable: true });
    expect(jobErrorFromHttpStatus(408)).toMatchObject({ reason: 'timeout', retryable: true });
    expect(jobErrorFromHttpStatus(501)).toMatchObject({ reason: 'unsupported', retryable: false });
    expect(jobErrorFromHttpStatus(401)).toMatchObject({ reason: 'unauthorized', retryable: false });
    expect(jobErrorFromHttpStatus(403)).toMatchObject({ reason: 'forbidden', retryable: false });
    expect(jobErrorFromHttpStatus(404)).toMatchObject({ reason: 'not_found', retryable: false });
    expect(jobErrorFromHttpStatus(422)).toMatchObject({ reason: 'bad_request', retryable: false });
  });
});

describe('toJobError', () => {
  it('keeps JobErrors and maps ServiceErrors by code and retryable flag', () => {
    const own = JobError.permanent('not_found', 'gone');
    expect(toJobError(own)).toBe(own);
    expect(toJobError(new ServiceError('bad_gateway', 'upstream said 502'))).toMatchObject({
      reason: 'upstream_unavailable',
      retryable: true,
    });
    expect(toJobError(new ServiceError('gateway_timeout', 'slow'))).toMatchObject({ reason: 'timeout' });
    expect(toJobError(new ServiceError('forbidden', 'no'))).toMatchObject({
      reason: 'forbidden',
      retryable: false,
    });
  });

  it('retries time-outs, network and transient database errors', () => {
    expect(toJobError(new DOMException('aborted', 'TimeoutError'))).toMatchObject({ reason: 'timeout' });
    expect(toJobError(new DOMException('aborted', 'AbortError'))).toMatchObject({ reason: 'timeout' });
    expect(toJobError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toMatchObject({
      reason: 'network',
      retryable: true,
    });
    const fetchFailed = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(toJobError(fetchFailed)).toMatchObject({ reason: 'network', retryable: true });
    expect(toJobError(Object.assign(new Error('could not serialize'), { code: '40001' }))).toMatchObject({
      reason: 'database_unavailable',
      retryable: true,
    });
    expect(toJobError(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toMatchObject({
      reason: 'database_unavailable',
    });
  });

  it('reads HTTP errors carrying a status, and says isRetryable errors are retryable', () => {
    const gaxios = Object.assign(new Error('Rate Limit Exceeded'), {
      response: { status: 429, headers: { 'retry-after': '12' } },
    });
    expect(toJobError(gaxios)).toMatchObject({ reason: 'rate_limited', retryAfterSeconds: 12 });
    expect(toJobError(Object.assign(new Error('Not Found'), { statusCode: 404 }))).toMatchObject({
      reason: 'not_found',
      retryable: false,
    });
    expect(toJobError(Object.assign(new Error('overloaded'), { isRetryable: true }))).toMatchObject({
      retryable: true,
    });
  });

  it('fails anything else permanently as internal: a bug is not cured by running it again', () => {
    expect(toJobError(new TypeError('x is not a function'))).toMatchObject({
      reason: 'internal',
      retryable: false,
    });
    expect(toJobError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toMatchObject({
      reason: 'internal',
    });
    expect(toJobError('a string')).toMatchObject({ reason: 'internal', message: 'a string' });
  });
});

describe('retry delays and limits', () => {
  const exponential: RetrySettings = { limit: 3, backoff: { type: 'exponential', delaySeconds: 2 } };
  const fixed: RetrySettings = { limit: 3, backoff: { type: 'fixed', delaySeconds: 5 } };

  it("follows pg-boss's exponential backoff with jitter, and a fixed delay", () => {
    expect(retryDelaySeconds(exponential, 1, undefined, () => 0)).toBe(2);
    expect(retryDelaySeconds(exponential, 1, undefined, () => 1)).toBe(4);
    expect(retryDelaySeconds(exponential, 3, undefined, () => 0)).toBe(8);
    expect(retryDelaySeconds(fixed, 3, undefined)).toBe(5);
    // Exponential backoff waits at least a second even when configured with 0 (plans.js insertJob).
    expect(
      retryDelaySeconds(
        { limit: 1, backoff: { type: 'exponential', delaySeconds: 0 } },
        1,
        undefined,
        () => 0,
      ),
    ).toBe(1);
  });

  it('waits at least Retry-After, up to the cap', () => {
    expect(retryDelaySeconds(fixed, 1, 30)).toBe(30);
    expect(retryDelaySeconds(fixed, 1, 1)).toBe(5);
    expect(retryDelaySeconds(fixed, 1, 10 * MAX_RETRY_AFTER_SECONDS)).toBe(MAX_RETRY_AFTER_SECONDS);
  });

  it('retries retryable failures while retries are left, permanent ones never', () => {
    const retryable = JobError.retryable('network', 'reset');
    expect(shouldRetry(fixed, 1, retryable)).toBe(true);
    expect(shouldRetry(fixed, 3, retryable)).toBe(true);
    expect(shouldRetry(fixed, 4, retryable)).toBe(false);
    expect(shouldRetry(fixed, 1, JobError.permanent('not_found', 'gone'))).toBe(false);
  });
});
