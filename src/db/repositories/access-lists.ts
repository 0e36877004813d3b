import {
  accessFingerprint,
  type DocumentAccess,
  emailDomain,
  normalizeAccess,
  type Reader,
} from '../../access.js';
import type { SqlExecutor } from '../sql-connection.js';
import { parameterIn } from './parameters.js';

/**
 * The one place that decides what a reader may open. A document's access list (`access_lists`,
 * one row per distinct list in a team) is readable by a reader when it is team-wide, names the
 * reader's account, or (once the reader's address is proven) their e-mail, its domain, or one of
 * their groups. Every read of documents, chunks,
 * rankings, answers, citations and file lists applies `readableListCondition` (listings) or the
 * ids `readableAccessListIds` answers (rankings: inside the index scans, as a constant array).
 */
export function readableListCondition(
  alias: string,
  reader: Reader,
  parameter: (value: unknown) => string,
): string {
  const conditions = [`${alias}.team`];
  if (reader.userId !== null) conditions.push(`${alias}.users @> ARRAY[${parameter(reader.userId)}::int]`);
  if (reader.email !== null) {
    const email = reader.email.toLowerCase();
    conditions.push(
      `${alias}.emails @> ARRAY[${parameter(email)}::text]`,
      `${alias}.domains @> ARRAY[${parameter(emailDomain(email))}::text]`,
    );
    if (reader.groups.length > 0) {
      conditions.push(
        `${alias}.groups && ${parameter(reader.groups.map((group) => group.toLowerCase()))}::text[]`,
      );
    }
  }
  return `(${conditions.join(' OR ')})`;
}

/**
 * `documents AS <documentAlias>` may be read by the reader: the team's, with a readable list.
 * Appends what it needs to `values`.
 */
export function readableDocumentCondition(documentAlias: string, reader: Reader, values: unknown[]): string {
  const parameter = parameterIn(values);
  const team = parameter(reader.teamId);
  return `(${documentAlias}.team_id = ${team} AND EXISTS (SELECT 1 FROM access_lists AS readable
    WHERE readable.id = ${documentAlias}.access_list_id AND ${readableListCondition('readable', reader, parameter)}))`;
}

/**
 * The query of the ids of the team's access lists the reader may open, alone or as a subquery.
 * Appends what it needs to `values`.
 */
export function readableListIdsQuery(reader: Reader, values: unknown[]): string {
  const parameter = parameterIn(values);
  return `SELECT a.id FROM access_lists AS a WHERE a.team_id = ${parameter(reader.teamId)} AND ${readableListCondition('a', reader, parameter)}`;
}

/** The ids of the team's access lists the reader may open: few, since documents shared alike share one. */
export async function readableAccessListIds(sql: SqlExecutor, reader: Reader): Promise<number[]> {
  const values: unknown[] = [];
  const { rows } = await sql.executeSql<{ id: number | string }>(
    readableListIdsQuery(reader, values),
    values,
  );
  return rows.map((row) => Number(row.id));
}

/**
 * The id of the team's row for this list, created when new. `DO NOTHING` then a read: an upsert
 * would lock the shared row until commit, so jobs storing documents shared alike would wait on
 * each other (and could deadlock taking two lists in opposite orders).
 */
export async function saveAccessList(
  sql: SqlExecutor,
  teamId: number,
  access: DocumentAccess,
): Promise<number> {
  const values: unknown[] = [];
  const { rows } = await sql.executeSql<{ id: number | string }>(
    `WITH ${accessListCtes(teamId, access, values)} SELECT id FROM access_list`,
    values,
  );
  const id = rows[0]?.id;
  if (id !== undefined) return Number(id);
  // Inserted by a transaction that had not committed when this statement's snapshot was taken.
  const list = normalizeAccess(access);
  const again = await sql.executeSql<{ id: number | string }>(
    'SELECT id FROM access_lists WHERE team_id = $1 AND fingerprint = $2',
    [teamId, accessFingerprint(list)],
  );
  const found = again.rows[0]?.id;
  if (found === undefined) throw new Error('An access list was neither inserted nor found');
  return Number(found);
}

/**
 * `saveAccessList` as CTEs of a bigger statement, the last named `name` (`access_list` unless
 * told), with a column `id`: one row, or none when another transaction is adding the same list
 * and had not committed when the statement's snapshot was taken (the statement must then be made
 * another way). Appends what it needs to `values`.
 */
export function accessListCtes(
  teamId: number,
  access: DocumentAccess,
  values: unknown[],
  name = 'access_list',
): string {
  const parameter = parameterIn(values);
  const list = normalizeAccess(access);
  const team = parameter(teamId);
  const fingerprint = parameter(accessFingerprint(list));
  return `${name}_inserted AS (
       INSERT INTO access_lists (team_id, fingerprint, team, emails, domains, groups, users)
       VALUES (${team}, ${fingerprint}, ${parameter(list.team)}, ${parameter(list.emails)}::text[],
         ${parameter(list.domains)}::text[], ${parameter(list.groups)}::text[], ${parameter(list.users ?? [])}::int[])
       ON CONFLICT (team_id, fingerprint) DO NOTHING
       RETURNING id
     ), ${name} AS (
       SELECT id FROM ${name}_inserted
       UNION ALL SELECT id FROM access_lists WHERE team_id = ${team} AND fingerprint = ${fingerprint}
       LIMIT 1
     )`;
}

/** The lists of these ids, by id (a listing shows each document's). */
export async function findAccessLists(
  sql: SqlExecutor,
  teamId: number,
  ids: readonly number[],
): Promise<Map<number, DocumentAccess>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql.executeSql<{
    id: number | string;
    team: boolean;
    emails: string[];
    domains: string[];
    groups: string[];
    users: (number | string)[] | null;
  }>(
    'SELECT id, team, emails, domains, groups, users FROM access_lists WHERE team_id = $1 AND id = ANY($2::int[])',
    [teamId, [...new Set(ids)]],
  );
  return new Map(
    rows.map((row) => [
      Number(row.id),
      normalizeAccess({
        team: row.team,
        emails: row.emails ?? [],
        domains: row.domains ?? [],
        groups: row.groups ?? [],
        users: (row.users ?? []).map(Number),
      }),
    ]),
  );
}

/**
 * Makes a document's chunks, postings and vectors carry its current access list (after the
 * document's list changed without new content: a re-sync of permissions). Rows already right are
 * not touched.
 */
export async function spreadDocumentAccess(sql: SqlExecutor, documentId: number): Promise<void> {
  await sql.executeSql(
    `WITH document AS (SELECT access_list_id FROM documents WHERE id = $1),
     changed AS (
       UPDATE chunks AS c SET access_list_id = d.access_list_id FROM document AS d
       WHERE c.document_id = $1 AND c.access_list_id <> d.access_list_id
       RETURNING c.id, c.access_list_id
     ), postings AS (
       UPDATE chunk_terms AS p SET access_list_id = c.access_list_id FROM changed AS c WHERE p.chunk_id = c.id
     )
     UPDATE chunk_embeddings AS e SET access_list_id = c.access_list_id FROM changed AS c WHERE e.chunk_id = c.id`,
    [documentId],
  );
}
