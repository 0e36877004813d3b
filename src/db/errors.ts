/**
 * The unique index whose violation failed a query, if that is why it failed ('' when the driver
 * does not name it). drizzle wraps the driver's error in `cause`, so the chain is followed.
 */
export function violatedUniqueIndex(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth += 1) {
    const { code, constraint, cause } = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (code === '23505') return typeof constraint === 'string' ? constraint : '';
    current = cause;
  }
  return undefined;
}
