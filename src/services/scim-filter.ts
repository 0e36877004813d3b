import type { ScimEquality } from '../db/repositories/scim.js';
import { ScimError } from './scim-error.js';

// `attribute eq "value"`: what Okta and Entra ID send (`userName eq "ann@acme.com"`); the value is a
// JSON string, escapes and all.
const EQUALITY = /^\s*([A-Za-z][\w.:-]*)\s+eq\s+("(?:[^"\\]|\\.)*")\s*$/i;

/**
 * A listing's `filter`: one attribute (named in any case, or with its schema's URN before it)
 * equal to a string. Anything else is a 400 `invalidFilter`: this service offers equality on the
 * attributes a directory matches people and groups by, not the whole grammar.
 */
export function parseScimFilter<Attribute extends string>(
  filter: string | undefined,
  attributes: readonly Attribute[],
): ScimEquality<Attribute> | undefined {
  if (filter === undefined || filter.trim() === '') return undefined;
  const match = EQUALITY.exec(filter);
  const supported = attributes.map((name) => `${name} eq "…"`).join(' or ');
  if (match === null) throw invalidFilter(`Unsupported filter: use ${supported}`);
  const named = (match[1] ?? '').toLowerCase();
  const attribute = attributes.find(
    (name) => named === name.toLowerCase() || named.endsWith(`:${name.toLowerCase()}`),
  );
  if (attribute === undefined)
    throw invalidFilter(`Unsupported filter attribute "${match[1]}": use ${supported}`);
  let value: unknown;
  try {
    value = JSON.parse(match[2] ?? '');
  } catch {
    throw invalidFilter('The filter value is not a valid string');
  }
  if (typeof value !== 'string') throw invalidFilter('The filter value is not a valid string');
  return { attribute, value };
}

function invalidFilter(message: string): ScimError {
  return new ScimError('bad_request', 'invalidFilter', message);
}
