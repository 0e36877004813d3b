import type { ScimUserFields } from '../db/repositories/scim.js';
import {
  attributeOf,
  SCIM_GROUP_SCHEMA,
  SCIM_USER_SCHEMA,
  type ScimGroupFields,
  scimBoolean,
  scimGroupName,
  scimMemberIds,
  scimObject,
  scimText,
  scimUserName,
} from './scim-attributes.js';
import { ScimError } from './scim-error.js';

/**
 * RFC 7644's PATCH (3.5.2) as Okta and Entra ID send it, read without touching anything: the
 * operations applied in order to a resource's current attributes give its new ones. Operation
 * names in any case (`Replace`), booleans also as text (`"False"`), a `replace` without a path
 * whose value names attributes (`{"active": false}`, `{"name.givenName": …}`), and paths with
 * a value filter (`emails[type eq "work"].value`, `members[value eq "<id>"]`). Attributes this
 * service does not keep are accepted and ignored, so a directory's default mappings work.
 */

type PatchOp = 'add' | 'replace' | 'remove';

interface Operation {
  readonly op: PatchOp;
  /** Lower-cased, without the resource's schema URN; undefined when absent. */
  readonly path: string | undefined;
  /** As sent. */
  readonly rawPath: string | undefined;
  readonly value: unknown;
}

/** The operations of a PatchOp body, checked for shape; 400 `invalidSyntax` when malformed. */
export function patchOperations(body: unknown, schema: string): Operation[] {
  const operations = attributeOf(scimObject(body, 'The PATCH request'), 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw ScimError.invalidSyntax('"Operations" must be a list of operations');
  }
  return operations.map((entry) => {
    const operation = scimObject(entry, 'An operation');
    const opName = attributeOf(operation, 'op');
    const op = typeof opName === 'string' ? opName.trim().toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw ScimError.invalidSyntax('An operation\'s "op" must be add, replace or remove');
    }
    const rawPath = attributeOf(operation, 'path');
    if (rawPath !== undefined && rawPath !== null && typeof rawPath !== 'string') {
      throw new ScimError('bad_request', 'invalidPath', '"path" must be a string');
    }
    const path =
      typeof rawPath === 'string' && rawPath.trim() !== ''
        ? withoutSchema(rawPath.trim(), schema)
        : undefined;
    const value = attributeOf(operation, 'value');
    if (path === undefined && op === 'remove') {
      throw new ScimError('bad_request', 'noTarget', 'A "remove" operation needs a "path"');
    }
    if (op !== 'remove' && value === undefined) {
      throw ScimError.invalidSyntax(`An "${op}" operation needs a "value"`);
    }
    return { op, path: path?.toLowerCase(), rawPath: path, value };
  });
}

/** `urn:…:core:2.0:User:userName` is `userName`; other schemas' attributes keep their URN. */
function withoutSchema(path: string, schema: string): string {
  const prefix = `${schema.toLowerCase()}:`;
  return path.toLowerCase().startsWith(prefix) ? path.slice(prefix.length) : path;
}

/** A user's attributes after a PATCH's operations, in order. */
export function patchScimUser(current: ScimUserFields, body: unknown): ScimUserFields {
  let user = current;
  for (const operation of patchOperations(body, SCIM_USER_SCHEMA)) {
    if (operation.path !== undefined) {
      user = setUserAttribute(user, operation.path, operation.op, operation.value);
      continue;
    }
    // No path: the value's attributes, each as if it were the path (`{"active": false}`).
    for (const [name, value] of Object.entries(scimObject(operation.value, "The operation's value"))) {
      user = setUserAttribute(user, withoutSchema(name, SCIM_USER_SCHEMA).toLowerCase(), operation.op, value);
    }
  }
  return user;
}

function setUserAttribute(user: ScimUserFields, path: string, op: PatchOp, value: unknown): ScimUserFields {
  const removing = op === 'remove';
  switch (path) {
    case 'active':
      if (removing) throw ScimError.invalidValue('active cannot be removed: replace it with true or false');
      return { ...user, active: scimBoolean(value, 'active') };
    case 'username':
      if (removing)
        throw new ScimError('bad_request', 'mutability', 'userName is required and cannot be removed');
      return { ...user, userName: scimUserName(value) };
    case 'displayname':
      return { ...user, displayName: removing ? null : scimText(value, 'displayName') };
    case 'externalid':
      return { ...user, externalId: removing ? null : scimText(value, 'externalId') };
    case 'name.givenname':
      return { ...user, givenName: removing ? null : scimText(value, 'name.givenName') };
    case 'name.familyname':
      return { ...user, familyName: removing ? null : scimText(value, 'name.familyName') };
    case 'name': {
      if (removing) return { ...user, givenName: null, familyName: null };
      // A complex attribute: the sub-attributes given replace those; the others stay.
      const names = scimObject(value, 'name');
      const givenName = attributeOf(names, 'givenName');
      const familyName = attributeOf(names, 'familyName');
      return {
        ...user,
        ...(givenName === undefined ? {} : { givenName: scimText(givenName, 'name.givenName') }),
        ...(familyName === undefined ? {} : { familyName: scimText(familyName, 'name.familyName') }),
      };
    }
    default:
      // emails (the address is the userName), phone numbers, titles, extensions: not kept.
      return user;
  }
}

// `members[value eq "<id>"]`, as Entra ID removes one member.
const MEMBER_FILTER = /^members\[\s*value\s+eq\s+("(?:[^"\\]|\\.)*")\s*\]$/i;

/** A group's attributes and members after a PATCH's operations, in order. */
export function patchScimGroup(current: ScimGroupFields, body: unknown): ScimGroupFields {
  let group: ScimGroupFields = { ...current, memberIds: [...current.memberIds] };
  for (const operation of patchOperations(body, SCIM_GROUP_SCHEMA)) {
    if (operation.path !== undefined && operation.rawPath !== undefined) {
      group = setGroupAttribute(group, operation.path, operation.rawPath, operation.op, operation.value);
      continue;
    }
    for (const [name, value] of Object.entries(scimObject(operation.value, "The operation's value"))) {
      const path = withoutSchema(name, SCIM_GROUP_SCHEMA);
      group = setGroupAttribute(group, path.toLowerCase(), path, operation.op, value);
    }
  }
  return group;
}

function setGroupAttribute(
  group: ScimGroupFields,
  path: string,
  rawPath: string,
  op: PatchOp,
  value: unknown,
): ScimGroupFields {
  switch (path) {
    case 'displayname':
      if (op === 'remove') {
        throw new ScimError('bad_request', 'mutability', 'displayName is required and cannot be removed');
      }
      return { ...group, displayName: scimGroupName(value) };
    case 'externalid':
      return { ...group, externalId: op === 'remove' ? null : scimText(value, 'externalId') };
    case 'members': {
      const ids = scimMemberIds(value);
      if (op === 'add') return { ...group, memberIds: [...new Set([...group.memberIds, ...ids])] };
      if (op === 'replace') return { ...group, memberIds: [...new Set(ids)] };
      // A remove without a value empties the group; with one, takes those out.
      if (value === undefined || value === null) return { ...group, memberIds: [] };
      return { ...group, memberIds: group.memberIds.filter((id) => !ids.includes(id)) };
    }
    default: {
      const match = MEMBER_FILTER.exec(rawPath);
      if (match === null) return group; // an attribute this service does not keep
      if (op !== 'remove') {
        throw new ScimError(
          'bad_request',
          'invalidPath',
          'A member filter is only for "remove": add members by "members"',
        );
      }
      const id = String(JSON.parse(match[1] ?? '""')).toLowerCase();
      return { ...group, memberIds: group.memberIds.filter((member) => member !== id) };
    }
  }
}
