import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { saveWikiConfig } from '../../../services/save-wiki-config.js';
import type { AppOptions } from '../../app-options.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, Nullable, withErrors } from '../../schema-types.js';

/** The wiki configuration (spec 2.9), with the site address as an optional addition. */
const WikiConfigBody = Type.Object({
  wikiApiToken: Type.String({ minLength: 1, maxLength: 8192 }),
  wikiUsername: Type.String({ maxLength: 320 }),
  wikiSpaceKey: Type.String({ minLength: 1, maxLength: 255 }),
  wikiBaseUrl: Nullable.String({ format: 'http-url', maxLength: 2048 }),
});

const WikiConnectorView = Type.Object(
  {
    id: Type.Integer(),
    slug: Type.String(),
    name: Type.String(),
    team_id: Type.Integer(),
    status: Type.String(),
    result_id: Type.String({
      description: 'the first sync of the space: follow it at GET /v1/jobs/{result_id}',
    }),
    result_ready: Type.Boolean(),
    config: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'base_url, username, space_key, and auth_scheme: `basic` (Cloud: e-mail + API token) or `bearer` (Data Center PAT)',
      },
    ),
  },
  { additionalProperties: true },
);

export const wikiRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.post(
    '/v1/wiki/config',
    {
      schema: {
        tags: ['wiki'],
        summary:
          "Check the credentials and space against the wiki, save the team's wiki (Confluence) connector and start indexing the space",
        description:
          'The API token is stored encrypted and never returned. Rejected credentials, an unknown space or a wiki address this server may not reach answer 400 naming the problem, and nothing is saved. The answer carries the first sync job (`result_id`).',
        security: bearerSecurity,
        body: WikiConfigBody,
        response: withErrors({ 200: WikiConnectorView, 201: WikiConnectorView }),
      },
    },
    async (request, reply) => {
      const result = await saveWikiConfig(deps, callerOf(request), request.body);
      return reply.code(result.created ? 201 : 200).send({ ...result.connector, ...result.sync });
    },
  );
};
