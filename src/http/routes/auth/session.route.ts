import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { signInSession } from '../../../services/sign-in-session.js';
import { signOutSession } from '../../../services/sign-out-session.js';
import type { AppOptions } from '../../app-options.js';
import { credentialOf, refuseCrossOrigin, refuseOtherOrigin } from '../../auth.js';
import { ErrorDetail, ValidationErrorBody } from '../../schema-types.js';
import { clearedSessionCookie, SESSION_COOKIE, sessionCookie } from '../../session-cookie.js';
import { UserContextView } from '../users/users.schema.js';
import { SIGN_IN_DESCRIPTION, SignInBody, throttled } from './auth.route.js';

const COOKIE_DESCRIPTION = `\`Set-Cookie: ${SESSION_COOKIE}=<token>; Path=/; HttpOnly; SameSite=Strict; Max-Age=<ACCESS_TOKEN_TTL_SECONDS>\`, with \`; Secure\` over https (behind a proxy: TRUST_PROXY and X-Forwarded-Proto). Every endpoint takes the cookie as it takes a bearer token; a cookie-authenticated request other than GET, HEAD and OPTIONS must carry an \`Origin\` header naming this service (403 otherwise).`;

/** Browser sessions: the token in an HttpOnly cookie instead of the page's hands. */
export const sessionRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.post(
    '/v1/auth/session',
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        summary: "Sign a browser in: sets the session cookie, answers the user's user_context",
        description: `The same body, checks and throttling as POST /v1/auth/token: ${SIGN_IN_DESCRIPTION} ${COOKIE_DESCRIPTION} A request whose \`Origin\` names another site is refused (403), so no page elsewhere can sign a browser into an account of its choosing.`,
        body: SignInBody,
        response: {
          200: UserContextView,
          401: ErrorDetail,
          403: ErrorDetail,
          422: ValidationErrorBody,
          ...throttled,
        },
      },
    },
    async (request, reply) => {
      refuseOtherOrigin(request);
      const session = await signInSession(deps, { ...request.body, clientAddress: request.ip });
      reply.header('set-cookie', sessionCookie(session.token, session.maxAgeSeconds, isHttps(request)));
      return session.user;
    },
  );

  app.delete(
    '/v1/auth/session',
    {
      // Public so that it always clears the cookie: a session that expired must sign out too.
      config: { public: true },
      schema: {
        tags: ['auth'],
        summary:
          'Sign a browser out: revokes the token of this request (cookie or bearer), clears the cookie',
        description: `Answers 204 and \`Set-Cookie: ${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0\` even when the session is no longer valid. Cookie-authenticated, it needs this service's \`Origin\` (403 otherwise, nothing revoked).`,
        response: { 204: Type.Null(), 403: ErrorDetail, 503: ErrorDetail },
      },
    },
    async (request, reply) => {
      const credential = credentialOf(request);
      refuseCrossOrigin(request, credential);
      await signOutSession(deps, credential?.token);
      return reply
        .code(204)
        .header('set-cookie', clearedSessionCookie(isHttps(request)))
        .send(null);
    },
  );
};

function isHttps(request: { readonly protocol: string }): boolean {
  return request.protocol === 'https';
}
