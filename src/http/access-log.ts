import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { levels } from 'pino';

/** pino's number for `info`: a logger at this level or below writes the access line. */
const INFO = levels.values.info ?? 30;

/**
 * One line a request, at info, once it has been answered: the request (method, URL with secrets
 * censored, client), the status and the time it took. fastify's default writes a second line as
 * each request arrives; that one is at debug here (`LOG_LEVEL=debug` shows requests that never
 * end), since writing it cost a search a tenth of its time.
 */
export class AccessLogController extends LogController {
  /**
   * The service's logger without its redaction paths, made on first use. An answered request's
   * line holds only what the `req` serializer picks (no header, no body, the URL censored) and the
   * status: redacting it copied every line's objects for nothing, a search's most costly log work.
   * Error lines, which carry the error, keep the request's logger and its redaction.
   */
  private lines: FastifyBaseLogger | undefined;

  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) {
      reply.log.error({ ...fields, err: error }, 'request errored');
      return;
    }
    // The request's logger says whether the line is wanted (a route may log at warn only).
    if ((levels.values[reply.log.level] ?? Number.POSITIVE_INFINITY) > INFO) return;
    this.lines ??= request.server.log.child({}, { redact: [], level: 'info' });
    this.lines.info({ [this.requestIdLogLabel]: request.id, ...fields }, 'request completed');
  }
}
