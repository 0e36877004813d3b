import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { databaseUnavailableError, isDatabaseUnavailable } from '../db/database-availability.js';
import { causeChain, ServiceError, type ServiceErrorCode, type ValidationIssue } from '../errors.js';
import { isAnsweredWhileReceiving } from './unread-body.js';
import { type RequestPart, requestPartOf, toValidationIssues } from './validation-errors.js';

/** Each error code's HTTP status (SCIM's answers, scim-errors.ts, differ only for validation). */
export const STATUS_BY_CODE: Readonly<Record<ServiceErrorCode, number>> = {
  validation: 422,
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  too_many_requests: 429,
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
  // An outage is logged once by the database's watch, not by each request it fails.
  if (!(error instanceof ServiceError) && isDatabaseUnavailable(error)) {
    return sendServiceError(databaseUnavailableError(), reply);
  }
  if (error instanceof ServiceError) {
    const status = STATUS_BY_CODE[error.code];
    if (status >= 500) request.log.warn({ code: error.code, detail: error.message }, 'upstream failure');
    return sendServiceError(error, reply);
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation !== undefined) {
    const part = requestPartOf(fastifyError.validationContext);
    return sendValidation(reply, everyValidationIssue(request, part, fastifyError.validation as never));
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const setting = request.routeOptions.config.bodyLimitSetting;
      const limit = describeByteLimit(request.routeOptions.bodyLimit);
      return reply.code(413).send({
        detail: `The request body is larger than the ${limit} limit${setting === undefined ? '' : ` (${setting})`}`,
      });
    }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return reply.code(415).send({ detail: 'Unsupported media type: send application/json' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return reply.code(400).send({ detail: 'Content-Length does not match the body' });
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500)
    return reply.code(status).send({ detail: FRAMEWORK_MESSAGES[fastifyError.code] ?? fastifyError.message });
  request.log.error({ failure: describeForLog(error) }, 'unhandled error');
  return reply.code(500).send({ detail: 'Internal Server Error' });
}

function sendServiceError(error: ServiceError, reply: FastifyReply) {
  if (error.code === 'validation') return sendValidation(reply, error.options.issues ?? []);
  const status = STATUS_BY_CODE[error.code];
  if (status === 401) reply.header('www-authenticate', 'Bearer');
  const { retryAfterSeconds } = error.options;
  if (retryAfterSeconds !== undefined)
    reply.header('retry-after', String(Math.max(1, Math.ceil(retryAfterSeconds))));
  return reply.code(status).send({ detail: error.message });
}

/** Plain words for fastify's own refusals, which otherwise name its internals. */
const FRAMEWORK_MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_BAD_URL: 'The request path is not a valid URL',
  FST_ERR_MAX_PARAM_LENGTH: 'A path parameter is too long',
  FST_ERR_ASYNC_CONSTRAINT: 'The request could not be routed',
};

/**
 * An error for the log without the data it may carry: a failed query's message holds its
 * parameters (e-mails, chat text, hashes), so only the query's text and the driver's reason go out.
 */
export function describeForLog(error: unknown): Record<string, unknown> {
  const errors = causeChain(error).filter((link): link is Error => link instanceof Error);
  return {
    chain: errors.map((link) => {
      const { code, query } = link as Error & { code?: unknown; query?: unknown };
      return {
        type: link.name,
        ...(typeof code === 'string' ? { code } : {}),
        ...(typeof query === 'string' ? { query } : { message: link.message.split('\n')[0]?.slice(0, 300) }),
        stack: link.stack
          ?.split('\n')
          .filter((line) => line.trimStart().startsWith('at '))
          .slice(0, 5)
          .join('\n'),
      };
    }),
  };
}

/** Each request part's validator and where FastAPI reports its errors, in FastAPI's order. */
const VALIDATED_PARTS = [
  ['params', 'path'],
  ['querystring', 'query'],
  ['headers', 'header'],
  ['body', 'body'],
] as const;

/**
 * fastify stops at the first part that fails (params, body, query, then headers); FastAPI lists the
 * errors of every part, path first and body last. So the parts fastify did not report are checked
 * here with the route's own validators, and all issues are listed in FastAPI's order.
 */
function everyValidationIssue(
  request: FastifyRequest,
  failed: RequestPart,
  errors: Parameters<typeof toValidationIssues>[1],
): ValidationIssue[] {
  return VALIDATED_PARTS.flatMap(([httpPart, part]) => {
    if (part === failed) return toValidationIssues(part, errors);
    const validate = request.getValidationFunction(httpPart);
    if (typeof validate !== 'function') return [];
    const value = httpPart === 'querystring' ? request.query : request[httpPart];
    return validate(value ?? null) ? [] : toValidationIssues(part, validate.errors ?? []);
  });
}

function sendValidation(reply: FastifyReply, issues: readonly ValidationIssue[]) {
  return reply.code(422).send({ detail: issues });
}

const CLIENT_ERROR_STATUS: Readonly<Record<string, [number, string]>> = {
  HPE_HEADER_OVERFLOW: [431, 'Request header fields too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timeout'],
};

/** How long a refused connection may take to read its answer before it is closed anyway. */
const CLOSE_GRACE_MS = 2000;

/**
 * Answers a request Node's HTTP server refused (malformed bytes, headers too large, not arrived
 * whole within REQUEST_TIMEOUT_MS) in the same `{"detail": …}` shape, and closes the connection,
 * since its framing can no longer be trusted. Closed, not only ended: Node's HTTP connections are
 * half-open, so after `end()` alone the server would go on reading (and could still handle) a
 * trickled request, which Node no longer times out, for as long as its client kept sending.
 */
export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  // A request answered while its body was still arriving (a 413) gets no second answer.
  if (!socket.writable || isAnsweredWhileReceiving(socket)) {
    socket.destroy();
    return;
  }
  const [status, detail] = CLIENT_ERROR_STATUS[error.code ?? ''] ?? [400, 'Bad Request'];
  const body = JSON.stringify({ detail });
  const closeAnyway = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
  closeAnyway.unref();
  socket.once('close', () => clearTimeout(closeAnyway));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/** "32 MiB", "512 KiB" or "1000 bytes": a limit as people read it. */
export function describeByteLimit(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
