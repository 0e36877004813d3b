import { causeChain } from '../errors.js';

/**
 * The unique index whose violation failed a query, if that is why it failed ('' when the driver
 * does not name it). drizzle wraps the driver's error in `cause`, so the chain is followed.
 */
export function violatedUniqueIndex(error: unknown): string | undefined {
  for (const link of causeChain(error)) {
    const { code, constraint } = link as { code?: unknown; constraint?: unknown };
    if (code === '23505') return typeof constraint === 'string' ? constraint : '';
  }
  return undefined;
}
