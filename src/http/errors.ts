import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type ServiceErrorCode, type ValidationIssue } from '../errors.js';
import { requestPartOf, toValidationIssues } from './validation-errors.js';

const STATUS_BY_CODE: Readonly<Record<ServiceErrorCode, number>> = {
  validation: 422,
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  bad_gateway: 502,
  gateway_timeout: 504,
  unavailable: 503,
};

/** The one place where errors become HTTP answers: FastAPI's shapes, honest statuses, never a stack. */
export function handleError(
  error: FastifyError | ServiceError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (error instanceof ServiceError) {
    const status = STATUS_BY_CODE[error.code];
    if (error.code === 'validation') return sendValidation(reply, error.options.issues ?? []);
    if (status === 401) reply.header('www-authenticate', 'Bearer');
    if (status >= 500) request.log.warn({ code: error.code, detail: error.message }, 'upstream failure');
    return reply.code(status).send({ detail: error.message });
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation !== undefined) {
    const part = requestPartOf(fastifyError.validationContext);
    return sendValidation(reply, toValidationIssues(part, fastifyError.validation as never));
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return reply
        .code(413)
        .send({ detail: `Request body is too large (limit ${request.routeOptions.bodyLimit} bytes)` });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return reply.code(415).send({ detail: 'Unsupported media type: send application/json' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return reply.code(400).send({ detail: 'Content-Length does not match the body' });
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) return reply.code(status).send({ detail: fastifyError.message });
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send({ detail: 'Internal Server Error' });
}

function sendValidation(reply: FastifyReply, issues: readonly ValidationIssue[]) {
  return reply.code(422).send({ detail: issues });
}
