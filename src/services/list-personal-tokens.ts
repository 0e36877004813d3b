import type { Caller } from '../caller.js';
import type { ServiceDependencies } from './dependencies.js';

export interface PersonalTokenView {
  readonly id: string;
  readonly name: string;
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly last_used_at: string | null;
}

/**
 * The caller's personal access tokens that still work, newest first: never a secret, never a
 * sign-in's session, never an expired token.
 */
export async function listPersonalTokens(
  deps: ServiceDependencies,
  caller: Caller,
): Promise<{ tokens: PersonalTokenView[] }> {
  const rows = await deps.data.accessTokens.listLivePersonalTokens(caller.userId);
  return {
    tokens: rows.map((row) => ({
      id: row.publicId,
      name: row.name,
      created_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt?.toISOString() ?? null,
      last_used_at: row.lastUsedAt?.toISOString() ?? null,
    })),
  };
}
