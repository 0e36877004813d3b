/**
 * A path's row id as a PostgreSQL `serial` (1 to 2^31 - 1), or undefined for anything else: such
 * an id names nothing, so callers answer 404 rather than let the database refuse it.
 */
export function parseSerialId(id: string): number | undefined {
  if (!/^[1-9]\d{0,9}$/.test(id)) return undefined;
  const value = Number(id);
  return value <= 2_147_483_647 ? value : undefined;
}
