const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `text` is a UUID in its usual spelling (any case): an id that cannot be one names
 * nothing, and is answered as not found without asking the database (whose uuid cast would fail).
 */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
