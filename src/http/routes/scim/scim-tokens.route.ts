import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { scimCreateToken } from '../../../services/scim-create-token.js';
import { scimDeleteToken } from '../../../services/scim-delete-token.js';
import { scimListTokens } from '../../../services/scim-list-tokens.js';
import type { AppOptions } from '../../app-options.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, withErrors } from '../../schema-types.js';

const NewScimToken = Type.Object({
  id: Type.String({ format: 'uuid' }),
  token: Type.String({
    description: 'the secret, shown only here: give it to the directory as its bearer token',
  }),
  created_at: Type.String(),
});

const ScimTokenList = Type.Object({
  tokens: Type.Array(
    Type.Object({
      id: Type.String(),
      created_at: Type.String(),
      last_used_at: Type.Union([Type.String(), Type.Null()], {
        description: 'when /scim/v2 last served it (to the minute); null before',
      }),
    }),
  ),
});

/** The team's SCIM tokens (owners and admins): what its directory provisions people with at /scim/v2. */
export const scimTokenRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.post(
    '/v1/teams/scim-tokens',
    {
      schema: {
        tags: ['team'],
        summary: "Make a SCIM token for the team's directory (owners and admins)",
        description:
          'The directory (Okta, Entra ID) provisions and deprovisions people at `<PUBLIC_URL>/scim/v2` with `Authorization: Bearer <token>`. The token is shown only here. 403 for a member.',
        security: bearerSecurity,
        response: withErrors({ 201: NewScimToken, 403: ErrorDetail }),
      },
    },
    async (request, reply) => reply.code(201).send(await scimCreateToken(deps, callerOf(request))),
  );

  app.get(
    '/v1/teams/scim-tokens',
    {
      schema: {
        tags: ['team'],
        summary: "The team's SCIM tokens, oldest first (owners and admins); never their secrets",
        security: bearerSecurity,
        response: withErrors({ 200: ScimTokenList, 403: ErrorDetail }),
      },
    },
    async (request) => scimListTokens(deps, callerOf(request)),
  );

  app.delete(
    '/v1/teams/scim-tokens/:token_id',
    {
      schema: {
        tags: ['team'],
        summary: 'Revoke a SCIM token: it stops working at once (owners and admins)',
        description: "404 for another team's or an unknown id.",
        security: bearerSecurity,
        params: Type.Object({ token_id: Type.String() }),
        response: withErrors({ 204: Type.Null(), 403: ErrorDetail, 404: ErrorDetail }),
      },
    },
    async (request, reply) => {
      await scimDeleteToken(deps, callerOf(request), request.params.token_id);
      return reply.code(204).send(null);
    },
  );
};
