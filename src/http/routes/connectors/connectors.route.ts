import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { deleteConnector } from '../../../services/delete-connector.js';
import { getConnector } from '../../../services/get-connector.js';
import { listConnectors } from '../../../services/list-connectors.js';
import { syncWikiConnector } from '../../../services/sync-wiki.js';
import type { AppOptions } from '../../app-options.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, withErrors } from '../../schema-types.js';
import { QueuedJobView } from '../shared-schemas.js';

const ConnectorParams = Type.Object({
  connector_slug: Type.String({ description: 'googledrive (drive), wiki (confluence) or chatapp (slack)' }),
  connector_id: Type.String(),
});

const ConnectorView = Type.Object(
  {
    id: Type.Integer(),
    slug: Type.String(),
    name: Type.String(),
    team_id: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    status: Type.String(),
    last_synced_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    document_count: Type.Integer(),
    config: Type.Object({}, { additionalProperties: true, description: 'non-secret settings' }),
    files: Type.Optional(
      Type.Array(
        Type.Object({
          id: Type.String(),
          name: Type.String(),
          status: Type.String({ description: 'indexed | skipped | failed (its latest indexing)' }),
          reason: Type.Union([Type.String(), Type.Null()]),
          chunks: Type.Integer(),
          url: Type.Union([Type.String(), Type.Null()]),
        }),
        { description: 'the first 1,000 files or pages, with their latest indexing outcome' },
      ),
    ),
    delegate_email: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: true },
);

const ConnectorList = Type.Object({
  connectors: Type.Array(ConnectorView, {
    description: 'oldest first; each as GET /v1/connectors/{connector_slug}/{connector_id} shows it',
  }),
  wiki_base_url_configured: Type.Boolean({
    description:
      'whether this server has a wiki address of its own (WIKI_BASE_URL): POST /v1/wiki/config may then leave out `wikiBaseUrl`, and must give it otherwise',
  }),
});

export const connectorRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.get(
    '/v1/connectors',
    {
      schema: {
        tags: ['connector'],
        summary: "The caller's team's connectors (Confluence, Google Drive, Slack)",
        description:
          "Each with its status, last sync, document count and non-secret settings, as `GET /v1/connectors/{connector_slug}/{connector_id}` answers it; tokens are never returned. Another team's connectors are never listed.",
        security: bearerSecurity,
        response: withErrors({ 200: ConnectorList }),
      },
    },
    async (request) => listConnectors(deps, callerOf(request)),
  );

  app.get(
    '/v1/connectors/:connector_slug/:connector_id',
    {
      schema: {
        tags: ['connector'],
        summary: "One of the caller's team's connectors",
        description:
          'Unknown slug, unknown id and another team\'s connector all answer 404 "Connector not found".',
        security: bearerSecurity,
        params: ConnectorParams,
        response: withErrors({ 200: ConnectorView, 404: ErrorDetail }),
      },
    },
    async (request) =>
      getConnector(deps, callerOf(request), request.params.connector_slug, request.params.connector_id),
  );

  app.delete(
    '/v1/connectors/:connector_slug/:connector_id',
    {
      schema: {
        tags: ['connector'],
        summary: "Delete one of the team's connectors with all its documents and chunks",
        description: 'Unfinished index jobs of the connector are cancelled and their stored tokens deleted.',
        security: bearerSecurity,
        params: ConnectorParams,
        response: withErrors({ 204: Type.Null(), 404: ErrorDetail }),
      },
    },
    async (request, reply) => {
      await deleteConnector(
        deps,
        callerOf(request),
        request.params.connector_slug,
        request.params.connector_id,
      );
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/connectors/:connector_slug/:connector_id/sync',
    {
      schema: {
        tags: ['connector'],
        summary: 'Sync the wiki connector now: changed pages are fetched again, removed ones deleted',
        description:
          'Answers 202 with the job to follow at `GET /v1/jobs/{result_id}`; while a sync runs, that one.',
        security: bearerSecurity,
        params: ConnectorParams,
        response: withErrors({ 202: QueuedJobView, 404: ErrorDetail }),
      },
    },
    async (request, reply) => {
      const { connector_slug, connector_id } = request.params;
      return reply
        .code(202)
        .send(await syncWikiConnector(deps, callerOf(request), connector_slug, connector_id));
    },
  );
};
