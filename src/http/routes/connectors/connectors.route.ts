import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getConnector } from '../../../services/get-connector.js';
import type { AppOptions } from '../../app.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, withErrors } from '../../schema-types.js';

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
    files: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    delegate_email: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: true },
);

export const connectorRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
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
};
