import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppOptions } from '../../app-options.js';

/** SCIM 2.0 provisioning (/scim/v2) and the team's SCIM tokens (/v1/teams/scim-tokens). */
export const scimRoutes: FastifyPluginAsyncTypebox<AppOptions> = async () => {};
