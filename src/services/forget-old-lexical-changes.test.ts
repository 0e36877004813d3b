import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { insertTeam, textChunks, uploadFields } from '../../test/helpers/test-documents.js';
import { replaceDocument } from '../db/repositories/documents.js';
import { forgetOldLexicalChanges, LEXICAL_CHANGE_RETENTION_MS } from './forget-old-lexical-changes.js';

describe('forgetOldLexicalChanges', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(async () => {
    await testApp.close();
  });

  it('forgets the changes of postings older than the retention and keeps recent ones', async () => {
    const { sql } = testApp.runtime.database;
    const teamId = await insertTeam(sql, 'Changes');
    await replaceDocument(sql, uploadFields(teamId, 'old'), 'o', textChunks(['alpha beta']), undefined);
    await sql.executeSql(`UPDATE lexical_changes SET changed_at = now() - $2::interval WHERE team_id = $1`, [
      teamId,
      `${LEXICAL_CHANGE_RETENTION_MS + 60_000} milliseconds`,
    ]);
    await replaceDocument(sql, uploadFields(teamId, 'new'), 'n', textChunks(['gamma delta']), undefined);
    const changes = async () =>
      Number(
        (
          await sql.executeSql<{ count: number }>(
            'SELECT count(*)::int AS count FROM lexical_changes WHERE team_id = $1',
            [teamId],
          )
        ).rows[0]?.count,
      );
    expect(await changes()).toBe(2);
    const data = testApp.runtime.deps.data;
    // A row is forgotten once no transaction that began before it was written is still open, in
    // any database of the server (transaction ids are the server's): other test files' may be.
    let forgotten = 0;
    await expect
      .poll(async () => {
        forgotten += await forgetOldLexicalChanges({ data, now: () => new Date() });
        return forgotten;
      })
      .toBe(1);
    expect(await changes()).toBe(1);
    const later = new Date(Date.now() + LEXICAL_CHANGE_RETENTION_MS + 60_000);
    await expect.poll(() => forgetOldLexicalChanges({ data, now: () => later })).toBe(1);
    expect(await changes()).toBe(0);
  });
});
