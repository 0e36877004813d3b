import type { TeamRow, UserRow, VectorStoreRow } from '../db/repositories/users.js';

/** Public JSON shapes of stored records: no secret column ever passes through here. */
export function userView(user: UserRow) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    username: user.username,
    is_active: user.isActive,
    team_id: user.teamId,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}

export function teamView(team: TeamRow) {
  return {
    id: team.id,
    name: team.name,
    owner_user_id: team.ownerUserId,
    created_at: team.createdAt.toISOString(),
    updated_at: team.updatedAt.toISOString(),
  };
}

export function vectorStoreView(store: VectorStoreRow) {
  return {
    id: store.id,
    index_name: store.indexName,
    environment: store.environment,
    namespaces: store.namespaces,
    created_at: store.createdAt.toISOString(),
    updated_at: store.updatedAt.toISOString(),
    provider: store.provider,
  };
}
