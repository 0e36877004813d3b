import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../db/repositories/users.js';
import { ServiceError } from '../errors.js';
import type { CallerDirectory } from '../services/caller-directory.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in caller; set on every route that is not marked public. */
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** Reachable without a bearer token (registration, login, health, docs, Slack's signed calls). */
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

/** The caller of an authenticated route; the auth hook has already refused anyone else. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw new ServiceError('unauthenticated', 'Not authenticated');
  return request.caller;
}

/**
 * Secure by default: every route needs a valid bearer token unless its config says `public`.
 * The docs page (`/docs…`) is public unless `docsPublic` is off (DOCS_PUBLIC=false).
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
    const token = bearerTokenOf(request);
    const caller = token === undefined ? undefined : await callers.find(token);
    if (caller === undefined) throw new ServiceError('unauthenticated', 'Not authenticated');
    request.caller = caller;
  });
}
