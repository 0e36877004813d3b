import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { SCIM_GROUP_SCHEMA, SCIM_USER_SCHEMA } from '../../../services/scim-attributes.js';
import { type ScimClient, scimAuthenticate } from '../../../services/scim-authenticate.js';
import { scimCreateGroup } from '../../../services/scim-create-group.js';
import { scimCreateUser } from '../../../services/scim-create-user.js';
import { scimDeleteGroup } from '../../../services/scim-delete-group.js';
import { scimDeleteUser } from '../../../services/scim-delete-user.js';
import { scimGetGroup } from '../../../services/scim-get-group.js';
import { scimGetUser } from '../../../services/scim-get-user.js';
import { scimListGroups } from '../../../services/scim-list-groups.js';
import { scimListUsers } from '../../../services/scim-list-users.js';
import { scimPatchGroup } from '../../../services/scim-patch-group.js';
import { scimPatchUser } from '../../../services/scim-patch-user.js';
import { scimReplaceGroup } from '../../../services/scim-replace-group.js';
import { scimReplaceUser } from '../../../services/scim-replace-user.js';
import { type ScimListQuery, scimBaseUrl, scimListResponse } from '../../../services/scim-resources.js';
import type { AppOptions } from '../../app-options.js';
import { bearerTokenOf } from '../../auth.js';
import { resourceTypes, schemas, serviceProviderConfig } from './scim-discovery.js';
import { handleScimError, SCIM_CONTENT_TYPE, sendScimError } from './scim-errors.js';

/**
 * SCIM 2.0 (RFC 7643, 7644) under /scim/v2, for a team's directory: public to the session check
 * (http/auth.ts), each request authenticated here by the team's SCIM token, and every answer,
 * errors included, `application/scim+json`.
 */
export const scimV2Routes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  const clients = new WeakMap<FastifyRequest, ScimClient>();
  const clientOf = (request: FastifyRequest): ScimClient => {
    const client = clients.get(request);
    // The hook below has authenticated every routed request.
    if (client === undefined) throw new Error('SCIM request without a client');
    return client;
  };
  const baseUrl = scimBaseUrl(deps.config.publicUrl);

  app.setErrorHandler(handleScimError);
  app.setNotFoundHandler((request, reply) =>
    sendScimError(reply, 404, `No SCIM resource at ${request.method} ${request.url.split('?', 1)[0]}`),
  );
  app.addHook('onRequest', async (request) => {
    if (request.is404) return;
    clients.set(request, await scimAuthenticate(deps, bearerTokenOf(request)));
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode !== 204) reply.type(SCIM_CONTENT_TYPE);
    return payload;
  });

  const config = { public: true };
  const schema = (summary: string, description?: string) => ({
    tags: ['scim'],
    summary,
    ...(description === undefined ? {} : { description }),
  });
  type ById = { Params: { id: string } };
  type Listing = { Querystring: ScimListQuery };

  app.get('/ServiceProviderConfig', { config, schema: schema('What this SCIM service supports') }, async () =>
    serviceProviderConfig(baseUrl),
  );
  app.get('/ResourceTypes', { config, schema: schema('User and Group') }, async () => {
    const types = resourceTypes(baseUrl);
    return scimListResponse(types, types.length, 1);
  });
  app.get<ById>(
    '/ResourceTypes/:id',
    { config, schema: schema('One resource type') },
    async (request, reply) => {
      const type = resourceTypes(baseUrl).find((candidate) => candidate.id === request.params.id);
      return type ?? sendScimError(reply, 404, `No resource type "${request.params.id}"`);
    },
  );
  app.get('/Schemas', { config, schema: schema('The User and Group schemas') }, async () => {
    const all = schemas(baseUrl);
    return scimListResponse(all, all.length, 1);
  });
  app.get<ById>('/Schemas/:id', { config, schema: schema('One schema') }, async (request, reply) => {
    const found = schemas(baseUrl).find((candidate) => candidate.id === request.params.id);
    return found ?? sendScimError(reply, 404, `No schema "${request.params.id}"`);
  });

  app.get<Listing>(
    '/Users',
    {
      config,
      schema: schema(
        "The team's people, a page at a time",
        `filter: userName eq "…" or externalId eq "…"; startIndex (1-based), count (at most 200). Schema ${SCIM_USER_SCHEMA}.`,
      ),
    },
    async (request) => scimListUsers(deps, clientOf(request), request.query),
  );
  app.post(
    '/Users',
    {
      config,
      schema: schema(
        'Provision a person (userName: their e-mail)',
        'A member-to-be whose first single sign-on brings them into the team; an account of the team with the address is linked. 409 (uniqueness) for a userName already provisioned.',
      ),
    },
    async (request, reply) =>
      reply.code(201).send(await scimCreateUser(deps, clientOf(request), request.body)),
  );
  app.get<ById>('/Users/:id', { config, schema: schema('One person') }, async (request) =>
    scimGetUser(deps, clientOf(request), request.params.id),
  );
  app.put<ById>(
    '/Users/:id',
    { config, schema: schema('Replace a person', 'active: false ends their membership at once.') },
    async (request) => scimReplaceUser(deps, clientOf(request), request.params.id, request.body),
  );
  app.patch<ById>(
    '/Users/:id',
    {
      config,
      schema: schema(
        'Change a person (PatchOp)',
        'active: false ends their membership at once (every session and token); true makes them a member-to-be again.',
      ),
    },
    async (request) => scimPatchUser(deps, clientOf(request), request.params.id, request.body),
  );
  app.delete<ById>(
    '/Users/:id',
    { config, schema: schema('Deprovision a person', 'Their membership ends at once.') },
    async (request, reply) => {
      await scimDeleteUser(deps, clientOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.get<Listing>(
    '/Groups',
    {
      config,
      schema: schema(
        "The team's groups, a page at a time",
        `filter: displayName eq "…" or externalId eq "…"; excludedAttributes=members. Schema ${SCIM_GROUP_SCHEMA}.`,
      ),
    },
    async (request) => scimListGroups(deps, clientOf(request), request.query),
  );
  app.post(
    '/Groups',
    {
      config,
      schema: schema(
        'Create a group',
        'A group named by an e-mail address (displayName or externalId) opens documents shared with that group to its members.',
      ),
    },
    async (request, reply) =>
      reply.code(201).send(await scimCreateGroup(deps, clientOf(request), request.body)),
  );
  app.get<ById & { Querystring: { excludedAttributes?: string } }>(
    '/Groups/:id',
    { config, schema: schema('One group') },
    async (request) => scimGetGroup(deps, clientOf(request), request.params.id, request.query),
  );
  app.put<ById>(
    '/Groups/:id',
    { config, schema: schema('Replace a group and its members') },
    async (request) => scimReplaceGroup(deps, clientOf(request), request.params.id, request.body),
  );
  app.patch<ById>(
    '/Groups/:id',
    { config, schema: schema('Change a group (PatchOp): members added or removed, a new name') },
    async (request) => scimPatchGroup(deps, clientOf(request), request.params.id, request.body),
  );
  app.delete<ById>('/Groups/:id', { config, schema: schema('Delete a group') }, async (request, reply) => {
    await scimDeleteGroup(deps, clientOf(request), request.params.id);
    return reply.code(204).send();
  });
};
