/** One validation problem, in FastAPI's (pydantic 2) vocabulary. */
export interface ValidationIssue {
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly type: string;
  readonly input?: unknown;
  readonly ctx?: Readonly<Record<string, unknown>>;
}

export type ServiceErrorCode =
  | 'validation'
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'too_many_requests'
  | 'unsupported_media_type'
  | 'bad_gateway'
  | 'gateway_timeout'
  | 'unavailable';

/**
 * The one error type of the domain. Services throw it; the HTTP layer maps `code` to a status in
 * one place. `retryable` tells jobs whether trying again can help.
 */
export class ServiceError extends Error {
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    readonly options: {
      readonly issues?: readonly ValidationIssue[];
      readonly retryable?: boolean;
      /** Sent as `Retry-After` (429, 503): when trying again can succeed. */
      readonly retryAfterSeconds?: number;
    } = {},
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  get retryable(): boolean {
    return this.options.retryable ?? false;
  }

  static validation(issues: readonly ValidationIssue[]): ServiceError {
    return new ServiceError('validation', 'Validation failed', { issues });
  }
}

/** An error and the errors it wraps (`cause`), outermost first; drivers and ORMs nest them. */
export function causeChain(error: unknown, maxDepth = 4): object[] {
  const chain: object[] = [];
  let current: unknown = error;
  while (chain.length < maxDepth && typeof current === 'object' && current !== null) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}
