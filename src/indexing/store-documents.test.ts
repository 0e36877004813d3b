import { describe, expect, it } from 'vitest';
import { countingConnection } from '../../test/helpers/counting-connection.js';
import { databaseForTheseTests } from '../../test/helpers/test-database.js';
import { insertTeam, textChunks, uploadFields } from '../../test/helpers/test-documents.js';
import { type DocumentToStore, replaceDocument } from '../db/repositories/documents.js';
import { DocumentStore } from './store-documents.js';

const testDatabase = databaseForTheseTests();
const sql = () => testDatabase().sql;

function note(teamId: number, externalId: string, storedChunks?: number): DocumentToStore {
  return {
    fields: uploadFields(teamId, externalId),
    contentHash: `hash-${externalId}`,
    chunks: textChunks([`The kettle note ${externalId}.`]),
    embeddings: undefined,
    options: storedChunks === undefined ? {} : { storedChunks },
  };
}

async function chunkTexts(teamId: number): Promise<string[]> {
  const { rows } = await sql().executeSql<{ text: string }>(
    'SELECT c.text FROM chunks AS c WHERE c.team_id = $1 ORDER BY c.text',
    [teamId],
  );
  return rows.map((row) => row.text);
}

describe('DocumentStore', () => {
  it('stores new documents ready in the same turn by one statement', async () => {
    const teamId = await insertTeam(sql(), 'Together');
    const counted = countingConnection(sql());
    const store = new DocumentStore(counted.connection, { concurrency: 1, maxDocuments: 16 });
    const signal = new AbortController().signal;

    const ids = await Promise.all(
      Array.from({ length: 10 }, (_, index) => store.store(note(teamId, `n${index}`), signal)),
    );

    expect(counted).toMatchObject({ statements: 1, transactions: 0 });
    expect(new Set(ids).size).toBe(10);
    expect(await chunkTexts(teamId)).toHaveLength(10);
  });

  it('replaces one at a time a document it finds stored, and one stored since its caller looked, storing each once', async () => {
    const teamId = await insertTeam(sql(), 'Replacers');
    await replaceDocument(
      sql(),
      uploadFields(teamId, 'known'),
      'old',
      textChunks(['The old known note.']),
      undefined,
    );
    await replaceDocument(
      sql(),
      uploadFields(teamId, 'raced'),
      'old',
      textChunks(['The old raced note.']),
      undefined,
    );
    const counted = countingConnection(sql());
    const store = new DocumentStore(counted.connection, { concurrency: 1, maxDocuments: 16 });
    const signal = new AbortController().signal;

    await Promise.all([
      store.store(note(teamId, 'fresh'), signal),
      store.store(note(teamId, 'known', 1), signal),
      store.store(note(teamId, 'raced'), signal),
    ]);

    // One statement for the new ones, then a transaction for each stored one; nothing tried twice.
    expect(counted.transactions).toBe(2);
    expect(await chunkTexts(teamId)).toEqual([
      'The kettle note fresh.',
      'The kettle note known.',
      'The kettle note raced.',
    ]);
  });

  it('stores no document of a job stopped before its batch ran, and fails that document alone', async () => {
    const teamId = await insertTeam(sql(), 'Stopped');
    const store = new DocumentStore(sql(), { concurrency: 1, maxDocuments: 16 });
    const stopped = new AbortController();
    const running = new AbortController();

    const outcomes = Promise.allSettled([
      store.store(note(teamId, 'kept'), running.signal),
      store.store(note(teamId, 'dropped'), stopped.signal),
    ]);
    stopped.abort(new Error('the job was cancelled'));

    const [kept, dropped] = await outcomes;
    expect(kept.status).toBe('fulfilled');
    expect(dropped).toMatchObject({ status: 'rejected', reason: new Error('the job was cancelled') });
    expect(await chunkTexts(teamId)).toEqual(['The kettle note kept.']);
  });
});
