import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../../errors.js';
import { OAuthError } from '../../../services/oauth-error.js';
import { handleError, STATUS_BY_CODE } from '../../errors.js';

/** RFC 6749 5.2's error body. */
export function oauthErrorBody(error: string, description: string) {
  return { error, error_description: description };
}

/**
 * The one place the authorization server's refusals become HTTP: RFC 6749 5.2's
 * `{"error", "error_description"}` with `Cache-Control: no-store`, as OAuth clients parse them.
 * What is not an OAuth refusal (a full database, a body too large) keeps the API's usual answer.
 */
export function handleOAuthError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  // The metadata document is read by anyone: its errors are the API's.
  if (!request.url.startsWith('/oauth/')) return handleError(error, request, reply);
  reply.header('cache-control', 'no-store');
  if (error instanceof OAuthError) {
    return reply.code(STATUS_BY_CODE[error.code]).send(oauthErrorBody(error.oauthCode, error.message));
  }
  if (error instanceof ServiceError && error.code === 'too_many_requests') {
    const seconds = error.options.retryAfterSeconds;
    if (seconds !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(seconds))));
    return reply.code(429).send(oauthErrorBody('too_many_requests', error.message));
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation !== undefined || fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return reply.code(400).send(oauthErrorBody('invalid_request', fastifyError.message));
  }
  if (error instanceof ServiceError && error.code === 'validation') {
    return reply.code(400).send(oauthErrorBody('invalid_request', 'The request is not valid'));
  }
  return handleError(error, request, reply);
}
