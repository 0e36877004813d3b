import { SCIM_GROUP_SCHEMA, SCIM_USER_SCHEMA } from '../../../services/scim-attributes.js';
import { SCIM_MAX_RESULTS } from '../../../services/scim-resources.js';

/**
 * What /scim/v2 tells a directory about itself (RFC 7643 5-7): enough for Okta and Entra ID to
 * connect. PATCH and equality filters are supported; bulk, sorting, ETags and password changes
 * are not; the only authentication is the team's bearer token.
 */

const SERVICE_PROVIDER_CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: "The team's SCIM token (POST /v1/teams/scim-tokens), as Authorization: Bearer <token>",
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
  };
}

export function resourceTypes(baseUrl: string) {
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A person of the team, by e-mail address (userName)',
      schema: SCIM_USER_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description:
        "A group of the team's people; named by an e-mail address, it opens documents shared with it",
      schema: SCIM_GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/Group` },
    },
  ];
}

interface AttributeOptions {
  readonly type?: 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime';
  readonly multiValued?: boolean;
  readonly required?: boolean;
  readonly caseExact?: boolean;
  readonly mutability?: 'readOnly' | 'readWrite' | 'immutable';
  readonly uniqueness?: 'none' | 'server';
  readonly subAttributes?: readonly SchemaAttribute[];
  readonly referenceTypes?: readonly string[];
}

/** An attribute's definition (RFC 7643 7). */
interface SchemaAttribute {
  readonly name: string;
  readonly type: string;
  readonly multiValued: boolean;
  readonly description: string;
  readonly required: boolean;
  readonly caseExact: boolean;
  readonly mutability: string;
  readonly returned: string;
  readonly uniqueness: string;
  readonly subAttributes?: readonly SchemaAttribute[];
  readonly referenceTypes?: readonly string[];
}

function attribute(name: string, description: string, options: AttributeOptions = {}): SchemaAttribute {
  const { subAttributes, referenceTypes, ...rest } = options;
  return {
    name,
    type: rest.type ?? 'string',
    multiValued: rest.multiValued ?? false,
    description,
    required: rest.required ?? false,
    caseExact: rest.caseExact ?? false,
    mutability: rest.mutability ?? 'readWrite',
    returned: 'default',
    uniqueness: rest.uniqueness ?? 'none',
    ...(subAttributes === undefined ? {} : { subAttributes }),
    ...(referenceTypes === undefined ? {} : { referenceTypes }),
  };
}

export function schemas(baseUrl: string) {
  return [
    {
      schemas: [SCHEMA_SCHEMA],
      id: SCIM_USER_SCHEMA,
      name: 'User',
      description: 'A person of the team',
      attributes: [
        attribute('userName', 'The e-mail address the person signs in with', {
          required: true,
          uniqueness: 'server',
        }),
        attribute('externalId', "The directory's id of the person", { caseExact: true }),
        attribute('name', 'The parts of the name', {
          type: 'complex',
          subAttributes: [attribute('givenName', 'First name'), attribute('familyName', 'Last name')],
        }),
        attribute('displayName', 'The name shown'),
        attribute('active', 'False keeps the person out of the team (their sessions end at once)', {
          type: 'boolean',
        }),
        attribute('emails', 'The e-mail address (the userName)', {
          multiValued: true,
          type: 'complex',
          mutability: 'readOnly',
          subAttributes: [
            attribute('value', 'The address', { mutability: 'readOnly' }),
            attribute('type', '"work"', { mutability: 'readOnly' }),
            attribute('primary', 'Always true', { type: 'boolean', mutability: 'readOnly' }),
          ],
        }),
      ],
      meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${SCIM_USER_SCHEMA}` },
    },
    {
      schemas: [SCHEMA_SCHEMA],
      id: SCIM_GROUP_SCHEMA,
      name: 'Group',
      description: "A group of the team's people",
      attributes: [
        attribute('displayName', 'The name; an e-mail address opens documents shared with that group', {
          required: true,
        }),
        attribute('externalId', "The directory's id of the group, or its e-mail address", {
          caseExact: true,
        }),
        attribute('members', 'The people in the group', {
          multiValued: true,
          type: 'complex',
          subAttributes: [
            attribute('value', 'The user id', { mutability: 'immutable' }),
            attribute('display', 'The user name', { mutability: 'readOnly' }),
            attribute('$ref', 'The user', {
              type: 'reference',
              mutability: 'immutable',
              referenceTypes: ['User'],
            }),
          ],
        }),
      ],
      meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${SCIM_GROUP_SCHEMA}` },
    },
  ];
}
