import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { decideOAuthConsent } from '../../../services/decide-oauth-consent.js';
import { listConnectedClients } from '../../../services/list-connected-clients.js';
import { reviewOAuthConsent } from '../../../services/review-oauth-consent.js';
import { revokeConnectedClient } from '../../../services/revoke-connected-client.js';
import type { AppOptions } from '../../app-options.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, withErrors } from '../../schema-types.js';

const text = (description: string) => Type.Optional(Type.String({ maxLength: 4000, description }));

/** The authorization request as GET /oauth/authorize received it (and passed on to the consent page). */
const AuthorizationFields = {
  response_type: text('`code`'),
  client_id: text('the registered client'),
  redirect_uri: text('one of its registered redirect URIs'),
  code_challenge: text('PKCE S256 challenge'),
  code_challenge_method: text('`S256`'),
  state: text('returned to the client unchanged'),
  scope: text('granted as `mcp` whatever is asked'),
  resource: text('`<PUBLIC_URL>/mcp` (RFC 8707)'),
};

const ConsentView = Type.Object({
  client_id: Type.String(),
  client_name: Type.String({ description: "the client's own name for itself: not vouched for" }),
  client_uri: Type.Union([Type.String(), Type.Null()]),
  redirect_uri: Type.String(),
  redirect_host: Type.String({ description: 'where the browser goes after the decision' }),
  scope: Type.String(),
  abilities: Type.Array(Type.String(), { description: 'what the client may do, in sentences' }),
  signed_in_as: Type.String({ description: 'who the client will act as' }),
});

const ConsentDecisionBody = Type.Object({
  ...AuthorizationFields,
  decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
});

const ConnectedClientList = Type.Object({
  clients: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid', description: 'the connection, to revoke it by' }),
      client_id: Type.String(),
      client_name: Type.String(),
      client_uri: Type.Union([Type.String(), Type.Null()]),
      connected_at: Type.String({ format: 'date-time' }),
      last_used_at: Type.String({
        format: 'date-time',
        description: 'its latest token exchange or token use, to about a minute',
      }),
    }),
  ),
});

/**
 * The consent page's API (the web app's `/authorize`) and the caller's connected clients: the
 * signed-in side of OAuth for MCP clients (authorization-server.route.ts is the protocol side).
 */
export const consentRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.get(
    '/v1/oauth/consent',
    {
      schema: {
        tags: ['oauth'],
        summary: 'What the consent page shows for an authorization request',
        description:
          'The query is the authorization request GET /oauth/authorize received. 400 with why when it cannot be shown (an unknown client, a redirect URI it did not register, a missing PKCE challenge).',
        security: bearerSecurity,
        querystring: Type.Object(AuthorizationFields),
        response: withErrors({ 200: ConsentView, 400: ErrorDetail }),
      },
    },
    async (request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .send(await reviewOAuthConsent(deps, callerOf(request), request.query)),
  );

  app.post(
    '/v1/oauth/consent',
    {
      schema: {
        tags: ['oauth'],
        summary: "The person's Allow or Deny: where to send the browser next",
        description:
          '`decision: "allow"` answers `redirect_to`, the client\'s redirect URI with a one-use `code` (5 minutes) and the `state`; `"deny"` with `error=access_denied`. From a browser this needs the session cookie and this service\'s Origin (no other site can submit it), and the page cannot be framed.',
        security: bearerSecurity,
        body: ConsentDecisionBody,
        response: withErrors({ 200: Type.Object({ redirect_to: Type.String() }), 400: ErrorDetail }),
      },
    },
    async (request, reply) => {
      const { decision, ...parameters } = request.body;
      const decided = await decideOAuthConsent(deps, callerOf(request), parameters, decision === 'allow');
      return reply.header('cache-control', 'no-store').send(decided);
    },
  );

  app.get(
    '/v1/users/me/connected-clients',
    {
      schema: {
        tags: ['user'],
        summary: 'The MCP clients you connected (allowed on their consent page), newest first',
        security: bearerSecurity,
        response: withErrors({ 200: ConnectedClientList }),
      },
    },
    async (request) => listConnectedClients(deps, callerOf(request)),
  );

  app.delete(
    '/v1/users/me/connected-clients/:id',
    {
      schema: {
        tags: ['user'],
        summary: 'Disconnect a client: its access and refresh tokens stop working',
        description:
          "At once in this process, in other API processes within AUTH_CACHE_TTL_SECONDS. 404 for an id that names none of your connections (another person's included).",
        security: bearerSecurity,
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: withErrors({ 204: Type.Null(), 404: ErrorDetail }),
      },
    },
    async (request, reply) => {
      await revokeConnectedClient(deps, callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
