import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppOptions } from '../../app-options.js';
import { scimTokenRoutes } from './scim-tokens.route.js';
import { scimV2Routes } from './scim-v2.route.js';

/** SCIM 2.0 provisioning (/scim/v2) and the team's SCIM tokens (/v1/teams/scim-tokens). */
export const scimRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, options) => {
  await app.register(scimTokenRoutes, options);
  // A plugin of its own: its error and not-found handlers answer in SCIM's shape, for /scim/v2 only.
  await app.register(scimV2Routes, { ...options, prefix: '/scim/v2' });
};
