import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AnswerError, type AnswerErrorCode } from '../../../answering/answer-error.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../../db/database-availability.js';
import { ServiceError } from '../../../errors.js';
import { OpenAiRequestError } from '../../../services/openai-chat-completion.js';
import { describeByteLimit, describeForLog, STATUS_BY_CODE } from '../../errors.js';

/** OpenAI's error body, as its clients parse it. */
export interface OpenAiErrorBody {
  readonly error: { readonly message: string; readonly type: string; readonly code: string | null };
}

/** A failure as an OpenAI client is told it: the status and the body. */
export interface OpenAiFailure {
  readonly status: number;
  readonly body: OpenAiErrorBody;
  readonly retryAfterSeconds?: number | undefined;
}

const ANSWER_STATUS: Readonly<Record<AnswerErrorCode, number>> = {
  model_unavailable: 502,
  model_rate_limited: 429,
  model_timeout: 504,
  model_refused: 502,
  model_bad_response: 502,
};

export function openAiFailure(status: number, message: string, code: string | null): OpenAiFailure {
  return { status, body: { error: { message, type: errorTypeOf(status), code } } };
}

/** OpenAI's `type`s: what the client did wrong, a limit it met, or the server's failure. */
function errorTypeOf(status: number): string {
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/**
 * Any error of these routes as OpenAI's shape; the log gets the details (never the model server's
 * words to the client). A request OpenAI's clients cannot send right (fastify's checks, a body that
 * is not JSON) is a 400, as OpenAI answers it, not the API's 422.
 */
export function describeOpenAiFailure(
  error: unknown,
  log: FastifyBaseLogger,
  bodyLimit?: number,
): OpenAiFailure {
  if (!(error instanceof ServiceError) && isDatabaseUnavailable(error)) {
    return openAiFailure(STATUS_BY_CODE.unavailable, DATABASE_UNAVAILABLE_MESSAGE, 'unavailable');
  }
  if (error instanceof AnswerError) {
    log.warn({ code: error.code, failure: describeForLog(error.cause) }, 'answer failed');
    return {
      ...openAiFailure(ANSWER_STATUS[error.code], error.message, error.code),
      retryAfterSeconds: error.options.retryAfterSeconds,
    };
  }
  if (error instanceof ServiceError) {
    if (error.code === 'unauthenticated') {
      return openAiFailure(401, error.message, 'invalid_api_key');
    }
    if (error.code === 'validation') {
      const notJson = error.options.issues?.some((issue) => issue.type === 'json_invalid') === true;
      const message = notJson
        ? 'The request body is not valid JSON'
        : (error.options.issues?.[0]?.msg ?? error.message);
      return openAiFailure(400, message, notJson ? 'invalid_json' : 'invalid_value');
    }
    const status = STATUS_BY_CODE[error.code];
    if (status >= 500) log.warn({ code: error.code, detail: error.message }, 'upstream failure');
    const code = error instanceof OpenAiRequestError ? error.openAiCode : error.code;
    return {
      ...openAiFailure(status, error.message, code),
      retryAfterSeconds: error.options.retryAfterSeconds,
    };
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation !== undefined) {
    return openAiFailure(400, `The request is not valid: ${fastifyError.message}`, 'invalid_value');
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return openAiFailure(
        413,
        `The request body is larger than the ${describeByteLimit(bodyLimit ?? 0)} limit`,
        'payload_too_large',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return openAiFailure(415, 'Unsupported media type: send application/json', 'unsupported_media_type');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return openAiFailure(400, 'Content-Length does not match the body', 'invalid_value');
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) return openAiFailure(status, fastifyError.message, null);
  log.error({ failure: describeForLog(error) }, 'unhandled error');
  return openAiFailure(500, 'The request failed; try again.', 'internal_error');
}

export function sendOpenAiFailure(reply: FastifyReply, failure: OpenAiFailure) {
  if (failure.status === 401) reply.header('www-authenticate', 'Bearer');
  if (failure.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(Math.max(1, Math.ceil(failure.retryAfterSeconds))));
  return reply.code(failure.status).type('application/json; charset=utf-8').send(failure.body);
}

/** The /openai/v1 routes' error handler: the one place their errors become HTTP. */
export function handleOpenAiError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  return sendOpenAiFailure(reply, describeOpenAiFailure(error, request.log, request.routeOptions.bodyLimit));
}
