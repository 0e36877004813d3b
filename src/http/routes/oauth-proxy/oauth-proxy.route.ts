import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { proxyTokenRequest } from '../../../services/proxy-token-request.js';
import type { AppOptions } from '../../app.js';
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

export const oauthProxyRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
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
