import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ServiceError } from '../../../errors.js';
import { SLACK_SIGNATURE_MESSAGES, slackSignatureProblem } from '../../../security/slack-signature.js';
import type { ServiceDependencies } from '../../../services/dependencies.js';
import { receiveChatappEvent } from '../../../services/receive-chatapp-event.js';
import type { AppOptions } from '../../app-options.js';
import { invalidJson, parseJsonBody } from '../../json-body.js';
import { ErrorDetail, ValidationErrorBody } from '../../schema-types.js';
import { ChallengeResponse, ChatappEnvelopeBody, EventAcknowledgement } from './chatapp.schema.js';

/**
 * Slack's Events API over HTTP. Authenticated by Slack's request signature, not a bearer token:
 * the signature covers the raw body, so this plugin reads bodies itself (its own content-type
 * parsers, encapsulated here) and checks them before any JSON is parsed. A request that fails
 * the check gets 401 and nothing else happens.
 */
export const chatappRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  // Requests whose signature the body parser checked; one without a body is checked before validation.
  const verified = new WeakSet<FastifyRequest>();

  app.removeAllContentTypeParsers();
  const parseSignedJson = (
    request: FastifyRequest,
    body: Buffer,
    done: (error: Error | null, value?: unknown) => void,
  ) => {
    const refusal = signatureRefusal(deps, request, body);
    if (refusal !== undefined) return done(refusal);
    verified.add(request);
    const text = body.toString('utf8');
    if (!/\S/.test(text)) return done(null, undefined);
    const parsed = parseJsonBody(text);
    if (parsed.ok) return done(null, parsed.value);
    done(invalidJson(parsed.offset));
  };
  // Slack sends JSON; any other content type is read as JSON too, as the rest of the API does.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseSignedJson);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, parseSignedJson);

  app.post(
    '/v1/chatapp/answer',
    {
      config: { public: true },
      schema: {
        tags: ['question_and_answering'],
        operationId: 'answer_chat_app',
        summary: 'Receive a Slack Events API delivery: URL verification, or a question for the bot',
        description:
          'Signed by Slack (`X-Slack-Signature`, `X-Slack-Request-Timestamp`, with the app\'s signing secret, over the raw body; at most 5 minutes old): anything else is refused with 401. `url_verification` answers `{"challenge": …}`. An `app_mention`, or a direct message to the bot, is acknowledged at once and answered in its thread from the documents of the team whose registration installed the bot in that workspace; each `event_id` is answered once, whatever Slack retries. 503 when the server has no SLACK_SIGNING_SECRET.',
        body: ChatappEnvelopeBody,
        response: {
          200: { anyOf: [ChallengeResponse, EventAcknowledgement] },
          401: ErrorDetail,
          422: ValidationErrorBody,
          503: ErrorDetail,
        },
      },
      preValidation: async (request) => {
        if (verified.has(request)) return;
        // No body reached the parser: the signature must then cover an empty one.
        const refusal = signatureRefusal(deps, request, Buffer.alloc(0));
        if (refusal !== undefined) throw refusal;
      },
    },
    async (request) => {
      const outcome = await receiveChatappEvent(deps, request.body);
      const delivery = {
        event_id: request.body.event_id ?? null,
        retry: request.headers['x-slack-retry-num'] ?? null,
      };
      switch (outcome.kind) {
        case 'challenge':
          return { challenge: outcome.challenge };
        case 'unknown_workspace':
          request.log.warn(
            { ...delivery, workspace: outcome.workspaceId },
            'Slack event from a workspace no team installed the bot into: not answered',
          );
          return { ok: true as const, status: outcome.kind };
        case 'ignored':
          request.log.debug({ ...delivery, reason: outcome.reason }, 'Slack event ignored');
          return { ok: true as const, status: outcome.kind };
        default:
          request.log.info({ ...delivery, outcome: outcome.kind }, 'Slack event received');
          return { ok: true as const, status: outcome.kind };
      }
    },
  );
};

/** Why this request is not taken as Slack's, or undefined when its signature holds. */
function signatureRefusal(
  deps: ServiceDependencies,
  request: FastifyRequest,
  rawBody: Buffer,
): ServiceError | undefined {
  const secret = deps.config.slack.signingSecret;
  if (secret === undefined) {
    // Without the secret no delivery can be told from a forgery: refuse them all, as the
    // server's fault (503), not the caller's.
    return new ServiceError(
      'unavailable',
      'Slack events are not accepted: SLACK_SIGNING_SECRET is not configured on this server',
    );
  }
  const problem = slackSignatureProblem(
    secret,
    {
      timestamp: singleHeader(request, 'x-slack-request-timestamp'),
      signature: singleHeader(request, 'x-slack-signature'),
      rawBody,
    },
    Math.floor(deps.now().getTime() / 1000),
  );
  if (problem === undefined) return undefined;
  request.log.info({ problem }, 'Slack signature refused');
  return new ServiceError('unauthenticated', SLACK_SIGNATURE_MESSAGES[problem]);
}

function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}
