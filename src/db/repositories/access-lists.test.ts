import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { databaseForTheseTests } from '../../../test/helpers/test-database.js';
import { insertTeam, uploadFields } from '../../../test/helpers/test-documents.js';
import {
  accessFingerprint,
  accountAccess,
  type DocumentAccess,
  memberReader,
  normalizeAccess,
  peopleAccess,
  readerMayOpen,
  TEAM_ACCESS,
} from '../../access.js';
import { findAccessLists, readableAccessListIds, saveAccessList } from './access-lists.js';
import { replaceDocument } from './documents.js';

const database = databaseForTheseTests();

async function insertUser(teamId: number, email: string): Promise<number> {
  const { rows } = await database().sql.executeSql(
    "INSERT INTO users (email, name, team_id, role) VALUES ($1, 'U', $2, 'member') RETURNING id",
    [email, teamId],
  );
  return Number(rows[0]?.id);
}

describe('who may open a list', () => {
  it('counts an address, or its domain, only once the reader proved it; an account always', async () => {
    const teamId = await insertTeam(database().sql, 'Readers');
    const userId = await insertUser(teamId, 'cfo@corp.example');
    const lists: Record<string, DocumentAccess> = {
      team: TEAM_ACCESS,
      address: peopleAccess('cfo@corp.example'),
      domain: { team: false, emails: [], domains: ['corp.example'], groups: [] },
      account: accountAccess(userId, 'cfo@corp.example'),
      someoneElse: accountAccess(userId + 1, null),
    };
    const ids = new Map<number, string>();
    for (const [name, access] of Object.entries(lists)) {
      ids.set(await saveAccessList(database().sql, teamId, access), name);
    }
    const readable = async (emailVerified: boolean) => {
      const reader = memberReader({ teamId, email: 'CFO@corp.example', emailVerified, userId });
      const inSql = (await readableAccessListIds(database().sql, reader)).map((id) => ids.get(id)).sort();
      const inCode = Object.entries(lists)
        .filter(([, access]) => readerMayOpen(reader, access))
        .map(([name]) => name)
        .sort();
      expect(inSql).toEqual(inCode);
      return inSql;
    };
    expect(await readable(false)).toEqual(['account', 'team']);
    expect(await readable(true)).toEqual(['account', 'address', 'domain', 'team']);
  });

  it('keeps the fingerprints of lists that name no account, and reads back the accounts of those that do', async () => {
    // Migration 0006 wrote these texts' digests for the lists it made.
    const digest = (text: string) => accessFingerprint(normalizeAccess(JSON.parse(text) as DocumentAccess));
    expect(digest('{"team":true,"emails":[],"domains":[],"groups":[]}')).toBe(accessFingerprint(TEAM_ACCESS));
    expect(accessFingerprint(accountAccess(7, 'a@b.example'))).not.toBe(
      accessFingerprint(peopleAccess('a@b.example')),
    );
    const teamId = await insertTeam(database().sql, 'Fingerprints');
    const id = await saveAccessList(database().sql, teamId, accountAccess(7, 'a@b.example'));
    expect(await saveAccessList(database().sql, teamId, accountAccess(7, 'A@b.example'))).toBe(id);
    expect((await findAccessLists(database().sql, teamId, [id])).get(id)).toEqual(
      accountAccess(7, 'a@b.example'),
    );
  });
});

describe('migration 0008', () => {
  it("moves a private upload stored under its poster's address onto the poster's account, chunks and postings too", async () => {
    const sql = database().sql;
    const teamId = await insertTeam(sql, 'Migrated');
    const poster = await insertUser(teamId, 'poster@corp.example');
    const oldList = peopleAccess('poster@corp.example');
    const chunk = {
      position: 0,
      text: 'The poster wrote this alone.',
      headingPath: [],
      pageLabels: [],
      tokenCount: 6,
      contextualText: 'The poster wrote this alone.',
    };
    // As private uploads were stored before: the poster's address alone. A Drive file shared with
    // the same address keeps its list.
    const documentId = await replaceDocument(
      sql,
      uploadFields(teamId, 'diary', { access: oldList, indexedBy: poster }),
      'hash',
      [chunk],
      undefined,
    );
    const driveId = await replaceDocument(
      sql,
      {
        ...uploadFields(teamId, 'drive-file', { access: oldList, indexedBy: poster }),
        source: 'googledrive',
      },
      'hash',
      [chunk],
      undefined,
    );

    const migration = readFileSync(
      new URL('../migrations/0008_accounts_in_access_lists.sql', import.meta.url),
      'utf8',
    );
    const [, ...dataStatements] = migration.split('--> statement-breakpoint');
    for (const statement of dataStatements) await sql.executeSql(statement);

    const newList = await saveAccessList(sql, teamId, accountAccess(poster, 'poster@corp.example'));
    const listsOf = async (id: number) => {
      const { rows } = await sql.executeSql<{ document: number; chunk: number; posting: number }>(
        `SELECT d.access_list_id AS document, c.access_list_id AS chunk,
           (SELECT max(p.access_list_id) FROM chunk_terms AS p WHERE p.chunk_id = c.id) AS posting
         FROM documents AS d JOIN chunks AS c ON c.document_id = d.id WHERE d.id = $1`,
        [id],
      );
      return rows.map((row) => [Number(row.document), Number(row.chunk), Number(row.posting)]);
    };
    // The list the migration made is the one the code makes for the poster's account (same fingerprint).
    expect(await listsOf(documentId)).toEqual([[newList, newList, newList]]);
    const oldListId = await saveAccessList(sql, teamId, oldList);
    expect(await listsOf(driveId)).toEqual([[oldListId, oldListId, oldListId]]);
  });
});
