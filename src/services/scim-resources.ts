import type { ScimGroupMember, ScimGroupRow, ScimUserFields, ScimUserRow } from '../db/repositories/scim.js';
import { isUuid } from '../uuid.js';
import type { ScimGroupFields } from './scim-attributes.js';
import { SCIM_GROUP_SCHEMA, SCIM_USER_SCHEMA } from './scim-attributes.js';
import { ScimError } from './scim-error.js';

export const SCIM_LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
/** The most resources one listing answers with (ServiceProviderConfig's `filter.maxResults`). */
export const SCIM_MAX_RESULTS = 200;
const DEFAULT_COUNT = 100;

/** Where the SCIM resources live: `<PUBLIC_URL>/scim/v2`. */
export function scimBaseUrl(publicUrl: string): string {
  return `${publicUrl}/scim/v2`;
}

/** A user as SCIM shows them (RFC 7643 4.1); the address is both `userName` and the work e-mail. */
export function scimUserResource(row: ScimUserRow, baseUrl: string) {
  const name = {
    ...(row.givenName === null ? {} : { givenName: row.givenName }),
    ...(row.familyName === null ? {} : { familyName: row.familyName }),
  };
  return {
    schemas: [SCIM_USER_SCHEMA],
    id: row.id,
    ...(row.externalId === null ? {} : { externalId: row.externalId }),
    userName: row.userName,
    ...(Object.keys(name).length === 0 ? {} : { name }),
    ...(row.displayName === null ? {} : { displayName: row.displayName }),
    active: row.active,
    emails: [{ value: row.userName, primary: true, type: 'work' }],
    meta: {
      resourceType: 'User',
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: `${baseUrl}/Users/${row.id}`,
    },
  };
}

/** A group as SCIM shows it (RFC 7643 4.2); without `members` when the client excluded them. */
export function scimGroupResource(
  row: ScimGroupRow,
  members: readonly ScimGroupMember[] | undefined,
  baseUrl: string,
) {
  return {
    schemas: [SCIM_GROUP_SCHEMA],
    id: row.id,
    ...(row.externalId === null ? {} : { externalId: row.externalId }),
    displayName: row.displayName,
    ...(members === undefined
      ? {}
      : {
          members: members.map((member) => ({
            value: member.scimUserId,
            display: member.displayName ?? member.userName,
            $ref: `${baseUrl}/Users/${member.scimUserId}`,
            type: 'User',
          })),
        }),
    meta: {
      resourceType: 'Group',
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: `${baseUrl}/Groups/${row.id}`,
    },
  };
}

/** A listing's answer (RFC 7644 3.4.2). */
export function scimListResponse<Resource>(
  resources: readonly Resource[],
  total: number,
  startIndex: number,
) {
  return {
    schemas: [SCIM_LIST_SCHEMA],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

/** What a listing asks for: RFC 7644 3.4.2.4's paging, 1-based, and the attributes it leaves out. */
export interface ScimListQuery {
  readonly filter?: string | undefined;
  readonly startIndex?: string | undefined;
  readonly count?: string | undefined;
  readonly excludedAttributes?: string | undefined;
}

/**
 * The page a listing asks for: `startIndex` below 1 is 1, `count` below 0 is 0 and above
 * SCIM_MAX_RESULTS is that; text that is no integer is a 400 `invalidValue`.
 */
export function scimPage(query: ScimListQuery): { startIndex: number; offset: number; limit: number } {
  const startIndex = Math.max(1, integerParameter(query.startIndex, 'startIndex') ?? 1);
  const count = Math.min(
    SCIM_MAX_RESULTS,
    Math.max(0, integerParameter(query.count, 'count') ?? DEFAULT_COUNT),
  );
  return { startIndex, offset: startIndex - 1, limit: count };
}

function integerParameter(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  if (!/^\s*-?\d{1,15}\s*$/.test(text)) throw ScimError.invalidValue(`${name} must be an integer`);
  return Number(text);
}

/** Whether a listing or resource leaves `attribute` out (`excludedAttributes=members`). */
export function excludes(excludedAttributes: string | undefined, attribute: string): boolean {
  return (excludedAttributes ?? '')
    .split(',')
    .some((name) => name.trim().toLowerCase() === attribute.toLowerCase());
}

/** A user row's SCIM attributes. */
export function scimUserFieldsOf(row: ScimUserRow): ScimUserFields {
  return {
    userName: row.userName,
    externalId: row.externalId,
    active: row.active,
    displayName: row.displayName,
    givenName: row.givenName,
    familyName: row.familyName,
  };
}

/** A group row's attributes with its members' ids. */
export function scimGroupFieldsOf(row: ScimGroupRow, members: readonly ScimGroupMember[]): ScimGroupFields {
  return {
    displayName: row.displayName,
    externalId: row.externalId,
    memberIds: members.map((m) => m.scimUserId),
  };
}

/** A resource id as stored (lower-cased uuid), or undefined for text that names none (then 404). */
export function scimId(id: string): string | undefined {
  return isUuid(id) ? id.toLowerCase() : undefined;
}
