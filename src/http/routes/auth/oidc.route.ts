import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { signInWithOidc } from '../../../services/sign-in-with-oidc.js';
import { type OidcFailureResult, startOidcSignIn } from '../../../services/start-oidc-sign-in.js';
import type { AppOptions } from '../../app-options.js';
import { ErrorDetail } from '../../schema-types.js';
import { cookieValue, SESSION_COOKIE, sessionCookie } from '../../session-cookie.js';

/** The cookie that carries a single sign-on's sealed state, nonce and PKCE verifier to the callback. */
export const OIDC_LOGIN_COOKIE = 'ka_oidc';
const OIDC_PATH = '/v1/auth/oidc';
export const OIDC_START_PATH = `${OIDC_PATH}/start`;

/**
 * `SameSite=Lax`: the callback is a top-level navigation from the provider's site, which a Strict
 * cookie would not come back with. Only this path sees it, for ten minutes.
 */
function loginCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${OIDC_LOGIN_COOKIE}=${value}; Path=${OIDC_PATH}; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

function clearedLoginCookie(secure: boolean): string {
  return loginCookie('', 0, secure);
}

const SignInMethods = Type.Object({
  password: Type.Boolean({ description: 'Whether e-mail and password sign-in is on (PASSWORD_SIGN_IN)' }),
  oidc: Type.Union(
    [
      Type.Object({
        name: Type.String({ description: 'OIDC_DISPLAY_NAME: the button reads "Sign in with <name>"' }),
        start_url: Type.String({ description: 'Where the button goes' }),
      }),
      Type.Null(),
    ],
    { description: 'Single sign-on with the company provider; null when not configured' },
  ),
});

const REDIRECT_DESCRIPTION =
  'Failures answer 303 to `/?sso_error=<code>`, code one of `cancelled`, `provider_error`, `expired`, `invalid_token`, `email_not_verified`, `no_email`, `account_disabled`, `provider_unreachable`; the detail goes to the log only.';

/** Single sign-on with OpenID Connect: /v1/auth/methods, /v1/auth/oidc/start, /v1/auth/oidc/callback. */
export const oidcRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  const { signIn } = deps.config;

  app.get(
    '/v1/auth/methods',
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        summary: 'How people sign in here: passwords, the company provider, or both (the sign-in page)',
        response: { 200: SignInMethods },
      },
    },
    async () => ({
      password: signIn.password,
      oidc: signIn.oidc === undefined ? null : { name: signIn.providerName, start_url: OIDC_START_PATH },
    }),
  );

  app.get(
    OIDC_START_PATH,
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        summary:
          'Start a single sign-on: 302 to the provider (authorization code flow, PKCE S256, state, nonce)',
        description: `Sets \`${OIDC_LOGIN_COOKIE}\` (sealed state, nonce and PKCE verifier; HttpOnly, SameSite=Lax, Path=${OIDC_PATH}, Max-Age=600). 404 when single sign-on is not configured. ${REDIRECT_DESCRIPTION}`,
        querystring: Type.Object({
          return_to: Type.Optional(
            Type.String({
              maxLength: 4000,
              description:
                "A path of this service to come back to once signed in (an MCP client's consent page); anything else is ignored",
            }),
          ),
        }),
        response: { 302: Type.Null(), 303: Type.Null(), 404: ErrorDetail },
      },
    },
    async (request, reply) => {
      const started = await startOidcSignIn(deps, request.query.return_to);
      if (!started.ok) return failure(request, reply, started);
      return reply
        .code(302)
        .header('cache-control', 'no-store')
        .header('set-cookie', loginCookie(started.sealedLogin, started.maxAgeSeconds, isHttps(request)))
        .header('location', started.redirectUrl)
        .send(null);
    },
  );

  app.get(
    `${OIDC_PATH}/callback`,
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        summary:
          "Where the provider sends the browser back: signs in and 303 to / (or the start's return_to)",
        description: `On success sets the session cookie (\`${SESSION_COOKIE}\`, as POST /v1/auth/session does), clears \`${OIDC_LOGIN_COOKIE}\` and answers 303 to \`/\` (or the start's \`return_to\`). ${REDIRECT_DESCRIPTION}`,
        response: { 303: Type.Null(), 404: ErrorDetail },
      },
    },
    async (request, reply) => {
      const result = await signInWithOidc(deps, {
        sealedLogin: cookieValue(request.headers.cookie, OIDC_LOGIN_COOKIE),
        parameters: new URL(request.url, 'http://callback.invalid').searchParams,
      });
      if (!result.ok) return failure(request, reply, result);
      const secure = isHttps(request);
      request.log.info({ userId: result.userId }, 'single sign-on: signed in');
      return reply
        .code(303)
        .header('cache-control', 'no-store')
        .header('set-cookie', [
          sessionCookie(result.token, result.maxAgeSeconds, secure),
          clearedLoginCookie(secure),
        ])
        .header('location', result.returnTo)
        .send(null);
    },
  );
};

/** Nobody signed in, the login state gone, the sign-in page told why in a word; the log told the rest. */
function failure(request: FastifyRequest, reply: FastifyReply, result: OidcFailureResult): FastifyReply {
  request.log.warn({ ssoError: result.failure, detail: result.detail }, 'single sign-on failed');
  return reply
    .code(303)
    .header('cache-control', 'no-store')
    .header('set-cookie', clearedLoginCookie(isHttps(request)))
    .header('location', `/?sso_error=${result.failure}`)
    .send(null);
}

function isHttps(request: { readonly protocol: string }): boolean {
  return request.protocol === 'https';
}
