import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getOAuthProviders } from '../../../services/get-oauth-providers.js';
import { proxyTokenRequest } from '../../../services/proxy-token-request.js';
import type { AppOptions } from '../../app-options.js';
import { bearerSecurity, ErrorDetail, Nullable, withErrors } from '../../schema-types.js';

/** The token proxy request (spec 2.10). */
const TokenProxyBody = Type.Object({
  endpoint: Type.String({ format: 'http-url', maxLength: 2048 }),
  headers: Type.Object({
    content_type: Type.String({ maxLength: 200 }),
    accept: Nullable.String({ maxLength: 200 }),
    authorization: Nullable.String({ maxLength: 8192 }),
    x_connector: Nullable.String({ maxLength: 100 }),
  }),
  body: Nullable.String(),
});

const GoogleDriveAuthorization = Type.Object({
  client_id: Type.String(),
  authorize_url: Type.String({ description: "Google's authorization endpoint (GOOGLE_AUTH_URL)" }),
  token_url: Type.String({
    description: 'exchange the code here through POST /v1/oauth-proxy/token with x_connector googledrive',
  }),
  redirect_uri: Type.String({
    description: 'GOOGLE_REDIRECT_URI, by default PUBLIC_URL/connectors/google-drive/callback',
  }),
  scope: Type.String(),
});

const SlackAuthorization = Type.Object({
  client_id: Type.String(),
  authorize_url: Type.String({ description: "Slack's OAuth v2 authorize page (SLACK_AUTHORIZE_URL)" }),
  redirect_uri: Type.Union([Type.String(), Type.Null()], {
    description: "SLACK_REDIRECT_URI; null: the Slack app's configured redirect URL",
  }),
  scope: Type.String({ description: 'bot scopes, comma-separated' }),
});

const OAuthProviders = Type.Object({
  google_drive: Type.Union([GoogleDriveAuthorization, Type.Null()], {
    description:
      'null unless GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET (or googledrive client credentials) are set',
  }),
  slack: Type.Union([SlackAuthorization, Type.Null()], {
    description: 'null unless SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set',
  }),
});

export const oauthProxyRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.get(
    '/v1/oauth/providers',
    {
      schema: {
        tags: ['auth'],
        summary: 'The OAuth clients a browser can connect sources with (public client ids, never secrets)',
        description:
          'What the web app needs to start "Connect Google Drive" (authorization code with PKCE, the code exchanged through `/v1/oauth-proxy/token`) and "Add to Slack" (OAuth v2 install, the code sent to `POST /v1/chatapp/install`).',
        security: bearerSecurity,
        response: withErrors({ 200: OAuthProviders }),
      },
    },
    async () => getOAuthProviders(deps),
  );

  app.post(
    '/v1/oauth-proxy/token',
    {
      // Token requests and answers carry secrets: keep them out of the logs entirely.
      logLevel: 'warn',
      schema: {
        tags: ['auth'],
        summary: "Make a browser's OAuth token request to an allowlisted third-party endpoint",
        description:
          "Forwards a POST to an exact URL on OAUTH_PROXY_ALLOWLIST (https only, public addresses only, no redirects) and answers with the provider's status and JSON body. `x_connector` adds that connector's server-side client credentials.",
        security: bearerSecurity,
        body: TokenProxyBody,
        response: withErrors({
          403: ErrorDetail,
          502: ErrorDetail,
          504: ErrorDetail,
        }),
      },
    },
    async (request, reply) => {
      const result = await proxyTokenRequest(deps, request.body);
      // The provider's status and body go back as they are: our error schemas must not reshape them.
      return reply
        .code(result.status as 403)
        .type('application/json; charset=utf-8')
        .serializer((payload: unknown) => JSON.stringify(payload))
        .send(result.body as { detail: string });
    },
  );
};
