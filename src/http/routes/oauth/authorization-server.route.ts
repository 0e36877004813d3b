import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { exchangeOAuthToken, type TokenRequest } from '../../../services/exchange-oauth-token.js';
import {
  type AuthorizationParameters,
  checkAuthorizationRequest,
} from '../../../services/oauth-authorization-request.js';
import { MCP_SCOPE } from '../../../services/oauth-policy.js';
import { registerOAuthClient } from '../../../services/oauth-register-client.js';
import { type RevocationRequest, revokeOAuthToken } from '../../../services/revoke-oauth-token.js';
import type { AppOptions } from '../../app-options.js';
import { escapeHtml, sendPage } from '../../html-page.js';
import { handleOAuthError, oauthErrorBody } from './oauth-errors.js';

const FORM_TYPE = 'application/x-www-form-urlencoded';
/** Form bodies of the token and revocation endpoints: a few short fields. */
const FORM_BODY_LIMIT = 16 * 1024;
/** The web app's consent page, where GET /oauth/authorize sends a browser with a valid request. */
export const CONSENT_PAGE_PATH = '/authorize';

export const OAUTH_PATHS = {
  register: '/oauth/register',
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  revoke: '/oauth/revoke',
} as const;

const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });

const RegisteredClient = Type.Object({
  client_id: Type.String(),
  client_id_issued_at: Type.Integer(),
  client_name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  grant_types: Type.Array(Type.String()),
  response_types: Type.Array(Type.String()),
  token_endpoint_auth_method: Type.Literal('none'),
  client_uri: Type.Optional(Type.String()),
});

const Tokens = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  refresh_token: Type.String(),
  scope: Type.String(),
});

/**
 * Browser-based MCP clients (an inspector, a web assistant) call these from their own origin.
 * None of them reads a cookie, so any origin may: nothing here acts on a browser's session.
 */
function allowAnyOrigin(reply: FastifyReply): void {
  reply
    .header('access-control-allow-origin', '*')
    .header('access-control-allow-methods', 'GET, POST, OPTIONS')
    .header('access-control-allow-headers', 'authorization, content-type, mcp-protocol-version')
    .header('access-control-max-age', '86400');
}

/** A form's or JSON body's fields as strings (a field given twice, or not as text, is left out). */
function fieldsOf(body: unknown): Record<string, string> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  return Object.fromEntries(
    Object.entries(body as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

/**
 * A public client identifies itself by `client_id` in the body; one that sends it as HTTP Basic's
 * user name instead (with an empty secret) is read the same.
 */
function clientIdOf(request: FastifyRequest, fields: Record<string, string>): string | undefined {
  if (fields.client_id !== undefined) return fields.client_id;
  const match = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const user = decoded.slice(0, Math.max(0, decoded.indexOf(':')));
  try {
    return decodeURIComponent(user) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The OAuth 2.1 authorization server MCP clients use (the MCP authorization specification):
 * RFC 8414 metadata, RFC 7591 dynamic registration, the authorization endpoint (PKCE S256 and
 * RFC 8707 `resource`), the token endpoint and RFC 7009 revocation. The consent itself is the
 * web app's page (`/authorize`), which speaks /v1/oauth/consent.
 */
export const authorizationServerRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  const issuer = deps.config.publicUrl;
  app.setErrorHandler(handleOAuthError);
  // Only in this plugin's scope: elsewhere a form body is read as JSON (a 422), as FastAPI does.
  app.addContentTypeParser(
    FORM_TYPE,
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${issuer}${OAUTH_PATHS.token}`,
    registration_endpoint: `${issuer}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${issuer}${OAUTH_PATHS.revoke}`,
    scopes_supported: [MCP_SCOPE],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs`,
  };

  const corsPreflight = { config: { public: true }, schema: { hide: true } };
  for (const path of [
    '/.well-known/oauth-authorization-server',
    OAUTH_PATHS.register,
    OAUTH_PATHS.token,
    OAUTH_PATHS.revoke,
  ]) {
    app.options(path, corsPreflight, async (_request, reply) => {
      allowAnyOrigin(reply);
      return reply.code(204).send();
    });
  }

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      config: { public: true },
      schema: { tags: ['oauth'], summary: 'Authorization server metadata (RFC 8414), for MCP clients' },
    },
    async (_request, reply) => {
      allowAnyOrigin(reply);
      return metadata;
    },
  );

  app.post(
    OAUTH_PATHS.register,
    {
      config: { public: true },
      schema: {
        tags: ['oauth'],
        summary: 'Register an OAuth client (RFC 7591 dynamic client registration)',
        description:
          'Public clients only: `token_endpoint_auth_method` is always `none` (PKCE proves each exchange). `redirect_uris` must be `https://` or `http://` on localhost, 127.0.0.1 or [::1] (a loopback URI matches on any port). `client_name` is what the consent page shows. Limited per client address (OAUTH_CLIENT_REGISTRATIONS_PER_HOUR_PER_ADDRESS, 429 past it). Errors: 400 `invalid_redirect_uri` or `invalid_client_metadata`.',
        response: { 201: RegisteredClient, 400: OAuthErrorBody, 429: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      allowAnyOrigin(reply);
      const registered = await registerOAuthClient(deps, request.body, request.ip);
      return reply.code(201).header('cache-control', 'no-store').send(registered);
    },
  );

  app.get<{ Querystring: Record<string, string | string[] | undefined> }>(
    OAUTH_PATHS.authorize,
    {
      config: { public: true },
      schema: {
        tags: ['oauth'],
        summary: 'Authorization endpoint: 302 to the consent page (signing in first when needed)',
        description:
          "Takes `response_type=code`, `client_id`, `redirect_uri`, `code_challenge` with `code_challenge_method=S256` (required), `state`, `scope` and `resource` (RFC 8707: `<PUBLIC_URL>/mcp`). A valid request: 302 to the web app's consent page, where a signed-in person chooses Allow (302 to the redirect URI with `code`, `state` and `iss`) or Deny (`error=access_denied`). An unknown client or a redirect URI it did not register: 400, never redirected. Anything else wrong: 302 to the redirect URI with `error`.",
      },
    },
    async (request, reply) => {
      const parameters = singleValued(request.query);
      const checked = await checkAuthorizationRequest(deps, parameters);
      reply.header('cache-control', 'no-store');
      if (checked.kind === 'valid') {
        const query = request.url.slice(request.url.indexOf('?'));
        return reply.redirect(`${CONSENT_PAGE_PATH}${request.url.includes('?') ? query : ''}`, 302);
      }
      if (checked.kind === 'client-error') return reply.redirect(checked.redirectTo, 302);
      if ((request.headers.accept ?? '').includes('text/html')) {
        return sendPage(
          reply,
          400,
          'This connection request cannot be used',
          `<p>${escapeHtml(checked.description)}.</p>`,
        );
      }
      return reply.code(400).send(oauthErrorBody('invalid_request', checked.description));
    },
  );

  app.post(
    OAUTH_PATHS.token,
    {
      config: { public: true },
      schema: {
        tags: ['oauth'],
        summary: 'Token endpoint: an authorization code or refresh token for an access token',
        description:
          '`grant_type=authorization_code` with `code`, `redirect_uri`, `client_id` and `code_verifier`; or `grant_type=refresh_token` with `refresh_token` and `client_id`. Form-encoded (JSON is read too). Answers `access_token` (1 hour, for /mcp only), `refresh_token` (rotated on each use, 30 days), `token_type: "Bearer"`, `expires_in`, `scope`. A code works once: a replay is 400 `invalid_grant` and revokes what the code gave; a used refresh token presented again revokes the connection.',
        consumes: [FORM_TYPE, 'application/json'],
        response: { 200: Tokens, 400: OAuthErrorBody, 401: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      allowAnyOrigin(reply);
      const fields = fieldsOf(request.body);
      const tokenRequest: TokenRequest = { ...fields, client_id: clientIdOf(request, fields) };
      const tokens = await exchangeOAuthToken(deps, tokenRequest);
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(tokens);
    },
  );

  app.post(
    OAUTH_PATHS.revoke,
    {
      config: { public: true },
      schema: {
        tags: ['oauth'],
        summary: 'Revoke a refresh token (the whole connection) or an access token (RFC 7009)',
        description:
          '`token` and `client_id`, form-encoded. 200 whether or not the token was known (RFC 7009 2.2).',
        consumes: [FORM_TYPE, 'application/json'],
        response: { 200: Type.Object({}), 400: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      allowAnyOrigin(reply);
      const fields = fieldsOf(request.body);
      const revocation: RevocationRequest = { ...fields, client_id: clientIdOf(request, fields) };
      await revokeOAuthToken(deps, revocation);
      return reply.header('cache-control', 'no-store').send({});
    },
  );
};

/** A query's parameters; one given more than once is not used (RFC 6749 3.1: none may repeat). */
function singleValued(query: Record<string, string | string[] | undefined>): AuthorizationParameters {
  return Object.fromEntries(
    Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
