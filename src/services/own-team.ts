import type { DatabaseKind } from '../db/client.js';
import type { UserRow } from '../db/repositories/users.js';
import type { Repositories } from '../db/repositories.js';

/** The vector store every team gets: pgvector's `chunks` table, in the team's namespace. */
export const VECTOR_STORE_PROVIDER = 'pgvector';
export const VECTOR_INDEX_NAME = 'chunks';

/** A new team owned by `user` (named after them, with its vector store); answers the user in it. */
export async function createOwnTeam(
  tx: Repositories,
  databaseKind: DatabaseKind,
  user: UserRow,
): Promise<UserRow> {
  const team = await tx.users.insertTeam({ name: `${user.name}'s team`, ownerUserId: user.id });
  if (team === undefined) throw new Error('Team insert returned nothing');
  await tx.users.insertVectorStore({
    teamId: team.id,
    provider: VECTOR_STORE_PROVIDER,
    indexName: VECTOR_INDEX_NAME,
    environment: databaseKind,
    namespaces: [`team-${team.id}`],
  });
  return (await tx.users.setTeamOwnerUser(user.id, team.id)) ?? user;
}
