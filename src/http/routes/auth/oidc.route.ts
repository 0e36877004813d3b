import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppOptions } from '../../app-options.js';

/** Single sign-on with OpenID Connect: /v1/auth/methods, /v1/auth/oidc/start, /v1/auth/oidc/callback. */
export const oidcRoutes: FastifyPluginAsyncTypebox<AppOptions> = async () => {};
