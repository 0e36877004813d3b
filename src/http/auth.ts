import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { CallerDirectory } from '../services/caller-directory.js';
import { sessionTokenOf } from './session-cookie.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in caller; set on every route that is not marked public. */
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** Reachable without a token (registration, login, health, docs, the web app, Slack's signed calls). */
    public?: boolean;
    /** The setting that sets the route's body limit, named in its 413. */
    bodyLimitSetting?: string;
  }
}

/** The token of an `Authorization: Bearer <token>` header, if the header has that form. */
export function bearerTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** A token the request offers, and how: a script's bearer header, or the browser's session cookie. */
export interface Credential {
  readonly token: string;
  readonly via: 'bearer' | 'cookie';
}

/** The request's credential: a bearer token when it has one (valid or not), else its session cookie. */
export function credentialOf(request: FastifyRequest): Credential | undefined {
  const bearer = bearerTokenOf(request);
  if (bearer !== undefined) return { token: bearer, via: 'bearer' };
  const token = sessionTokenOf(request);
  return token === undefined ? undefined : { token, via: 'cookie' };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses a cookie-authenticated request that changes something unless it comes from a page of
 * this service: browsers attach cookies to other sites' requests too (SameSite is the first
 * guard, not the only one: same-site subdomains, old browsers), and always send `Origin` on
 * such requests. Scripts use the bearer header and are not asked for it.
 */
export function refuseCrossOrigin(request: FastifyRequest, credential: Credential | undefined): void {
  if (credential?.via !== 'cookie' || SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.origin;
  if (origin === undefined || !isOwnOrigin(request, origin)) {
    throw new ServiceError('forbidden', 'Cross-origin request refused');
  }
}

/**
 * Refuses a request a page of another site sent (its `Origin` is not ours); requests without
 * `Origin` (scripts) pass. For sign-in: another site must not sign a browser into an account of
 * its choosing (login CSRF), which a text/plain form can post as JSON.
 */
export function refuseOtherOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin !== undefined && !isOwnOrigin(request, origin)) {
    throw new ServiceError('forbidden', 'Cross-origin request refused');
  }
}

/**
 * Whether `origin` is this service's as the request reached it: its scheme and Host (honouring
 * TRUST_PROXY), both as URL origins, so case and a spelled-out default port do not matter.
 */
function isOwnOrigin(request: FastifyRequest, origin: string): boolean {
  const own = urlOrigin(`${request.protocol}://${request.host}`);
  return own !== undefined && urlOrigin(origin) === own;
}

function urlOrigin(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const { origin } = new URL(text);
  // "null": an opaque origin (a sandboxed frame, a file), never ours.
  return origin === 'null' ? undefined : origin;
}

/**
 * An MCP client's OAuth access token was issued for `/mcp` (its audience, RFC 8707) and acts there
 * only: a client the person allowed to search and ask cannot also manage their account or team.
 */
export function refuseMcpOnlyToken(caller: Caller): void {
  if (caller.tokenKind === 'oauth') {
    throw new ServiceError('unauthenticated', "An MCP client's OAuth access token works at /mcp only");
  }
}

/** The caller of an authenticated route; the auth hook has already refused anyone else. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw new ServiceError('unauthenticated', 'Not authenticated');
  return request.caller;
}

/**
 * Secure by default: every route needs a valid token (bearer header or session cookie) unless
 * its config says `public`. The docs page (`/docs…`) is public unless `docsPublic` is off
 * (DOCS_PUBLIC=false).
 */
export function registerAuthentication(
  app: FastifyInstance,
  callers: CallerDirectory,
  options: { readonly docsPublic: boolean },
): void {
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request) => {
    if (
      request.is404 ||
      request.routeOptions.config.public === true ||
      (options.docsPublic && (request.routeOptions.url ?? '').startsWith('/docs'))
    )
      return;
    const credential = credentialOf(request);
    // Before the token is looked up: a forged request learns nothing and costs no query.
    refuseCrossOrigin(request, credential);
    const caller = credential === undefined ? undefined : await callers.find(credential.token);
    if (caller === undefined) throw new ServiceError('unauthenticated', 'Not authenticated');
    refuseMcpOnlyToken(caller);
    request.caller = caller;
  });
}
