import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { databaseUnavailableError, isDatabaseUnavailable } from '../../../db/database-availability.js';
import { ServiceError, type ServiceErrorCode } from '../../../errors.js';
import { ScimError, type ScimType } from '../../../services/scim-error.js';
import { describeByteLimit, describeForLog, STATUS_BY_CODE } from '../../errors.js';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';

/**
 * The one place /scim/v2's errors become HTTP: RFC 7644 3.12's body (`schemas`, `status` as text,
 * `detail`, and `scimType` where the RFC names one) for every refusal, as directories parse it.
 * The rest of the API keeps its FastAPI shapes (http/errors.ts).
 */
const SCIM_STATUS_BY_CODE: Readonly<Record<ServiceErrorCode, number>> = {
  ...STATUS_BY_CODE,
  // A request SCIM cannot read is a 400 (fastify's checks, a body that is not JSON).
  validation: 400,
};

/** An RFC 7644 error body. */
export function scimErrorBody(status: number, detail: string, scimType?: ScimType) {
  return {
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(status),
    ...(scimType === undefined ? {} : { scimType }),
    detail,
  };
}

export function sendScimError(reply: FastifyReply, status: number, detail: string, scimType?: ScimType) {
  if (status === 401) reply.header('www-authenticate', 'Bearer realm="scim"');
  return reply
    .code(status)
    .type(SCIM_CONTENT_TYPE)
    .send(scimErrorBody(status, detail, scimType));
}

/** The /scim/v2 routes' error handler. */
export function handleScimError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (!(error instanceof ServiceError) && isDatabaseUnavailable(error)) {
    return sendServiceError(databaseUnavailableError(), reply);
  }
  if (error instanceof ServiceError) return sendServiceError(error, reply);
  const fastifyError = error as FastifyError;
  if (fastifyError.validation !== undefined) {
    return sendScimError(reply, 400, `The request is not valid: ${fastifyError.message}`, 'invalidSyntax');
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendScimError(
        reply,
        413,
        `The request body is larger than the ${describeByteLimit(request.routeOptions.bodyLimit)} limit`,
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return sendScimError(reply, 400, 'Content-Length does not match the body', 'invalidSyntax');
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) return sendScimError(reply, status, fastifyError.message);
  request.log.error({ failure: describeForLog(error) }, 'unhandled error');
  return sendScimError(reply, 500, 'Internal Server Error');
}

function sendServiceError(error: ServiceError, reply: FastifyReply) {
  const status = SCIM_STATUS_BY_CODE[error.code];
  if (status >= 500) reply.log.warn({ code: error.code, detail: error.message }, 'upstream failure');
  const { retryAfterSeconds } = error.options;
  if (retryAfterSeconds !== undefined)
    reply.header('retry-after', String(Math.max(1, Math.ceil(retryAfterSeconds))));
  if (error.code === 'validation') {
    const notJson = error.options.issues?.some((issue) => issue.type === 'json_invalid') === true;
    return sendScimError(
      reply,
      400,
      notJson ? 'The request body is not valid JSON' : (error.options.issues?.[0]?.msg ?? error.message),
      'invalidSyntax',
    );
  }
  return sendScimError(reply, status, error.message, error instanceof ScimError ? error.scimType : undefined);
}
