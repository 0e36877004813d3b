import { TEAM_ACCESS } from '../../src/access.js';
import type { ChunkToStore, DocumentFields } from '../../src/db/repositories/documents.js';
import type { SqlExecutor } from '../../src/db/sql-connection.js';

/** A new team, straight in the database (repository tests need no user for it). */
export async function insertTeam(sql: SqlExecutor, name: string): Promise<number> {
  const { rows } = await sql.executeSql('INSERT INTO teams (name) VALUES ($1) RETURNING id', [name]);
  return Number(rows[0]?.id);
}

/** The fields of a plain-text upload the whole team may read, titled by its id unless told otherwise. */
export function uploadFields(
  teamId: number,
  externalId: string,
  overrides: Partial<DocumentFields> = {},
): DocumentFields {
  return {
    teamId,
    source: 'upload',
    externalId,
    connectorId: null,
    title: externalId,
    url: null,
    mimeType: 'text/plain',
    sourceVersion: null,
    sourceModifiedAt: null,
    originId: null,
    metadata: {},
    access: TEAM_ACCESS,
    indexedBy: null,
    ...overrides,
  };
}

/** Plain chunks of these texts, in order, as the indexer would store them (no headings or pages). */
export function textChunks(texts: readonly string[]): ChunkToStore[] {
  return texts.map((text, position) => ({
    position,
    text,
    headingPath: [],
    pageLabels: [],
    tokenCount: text.split(' ').length,
    contextualText: text,
  }));
}
