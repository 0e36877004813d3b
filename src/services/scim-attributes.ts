import type { ScimUserFields } from '../db/repositories/scim.js';
import { normalizeEmail } from '../security/email-address.js';
import { ScimError } from './scim-error.js';

export const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** The longest text attribute kept (names, external ids): a directory's values are short. */
const MAX_TEXT_LENGTH = 1024;

/** A group as a request describes it. */
export interface ScimGroupFields {
  readonly displayName: string;
  readonly externalId: string | null;
  /** The SCIM user ids of its members. */
  readonly memberIds: readonly string[];
}

/** A JSON object, or a 400 `invalidSyntax` naming what it should have been. */
export function scimObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ScimError.invalidSyntax(`${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** An attribute of a resource, its name compared case-insensitively (RFC 7643 2.1). */
export function attributeOf(object: Record<string, unknown>, name: string): unknown {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(object)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** The e-mail a `userName` must be, lower-cased as accounts are keyed; 400 `invalidValue` otherwise. */
export function scimUserName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw ScimError.invalidValue("userName is required: the person's e-mail address");
  }
  const normalized = normalizeEmail(value);
  if (!normalized.ok)
    throw ScimError.invalidValue(`userName must be an e-mail address: ${normalized.problem}`);
  return normalized.email;
}

/** A boolean, also as directories send one in text (Entra ID's `"False"`). */
export function scimBoolean(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
  }
  throw ScimError.invalidValue(`${attribute} must be true or false`);
}

/** An optional text attribute: null when absent, null or blank. */
export function scimText(value: unknown, attribute: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw ScimError.invalidValue(`${attribute} must be a string`);
  if (value.length > MAX_TEXT_LENGTH) {
    throw ScimError.invalidValue(`${attribute} is longer than ${MAX_TEXT_LENGTH} characters`);
  }
  return value.trim() === '' ? null : value;
}

/**
 * A user as a create (POST) or replace (PUT) describes them: `userName` (the e-mail) required,
 * `active` true unless said otherwise, the other attributes null when absent. Attributes this
 * service does not keep (phone numbers, titles, the enterprise extension) are accepted and
 * ignored; `emails` too, since the address is the `userName`.
 */
export function readScimUser(body: unknown): ScimUserFields {
  const user = scimObject(body, 'The user');
  const name = attributeOf(user, 'name');
  const names = name === undefined || name === null ? {} : scimObject(name, 'name');
  const active = attributeOf(user, 'active');
  return {
    userName: scimUserName(attributeOf(user, 'userName')),
    externalId: scimText(attributeOf(user, 'externalId'), 'externalId'),
    active: active === undefined || active === null ? true : scimBoolean(active, 'active'),
    displayName: scimText(attributeOf(user, 'displayName'), 'displayName'),
    givenName: scimText(attributeOf(names, 'givenName'), 'name.givenName'),
    familyName: scimText(attributeOf(names, 'familyName'), 'name.familyName'),
  };
}

/** A group's `displayName`: required. */
export function scimGroupName(value: unknown): string {
  const displayName = scimText(value, 'displayName');
  if (displayName === null) throw ScimError.invalidValue('displayName is required');
  return displayName.trim();
}

/** The member ids of a `members` value: `[{"value": "<user id>"}, …]`. */
export function scimMemberIds(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const members = Array.isArray(value) ? value : [value];
  return members.map((member) => {
    const id = attributeOf(scimObject(member, 'A member'), 'value');
    if (typeof id !== 'string' || id === '')
      throw ScimError.invalidValue('A member\'s "value" must be a user id');
    // Ids are uuids, stored lower-cased.
    return id.toLowerCase();
  });
}

/** A group as a create (POST) or replace (PUT) describes it; members absent are none. */
export function readScimGroup(body: unknown): ScimGroupFields {
  const group = scimObject(body, 'The group');
  return {
    displayName: scimGroupName(attributeOf(group, 'displayName')),
    externalId: scimText(attributeOf(group, 'externalId'), 'externalId'),
    memberIds: [...new Set(scimMemberIds(attributeOf(group, 'members')))],
  };
}
