import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/test-database.js';
import { type DatabaseHandle, openDatabase } from '../client.js';
import {
  deleteTeamConnector,
  findTeamConnector,
  teamWikiConnectorExists,
  upsertTeamConnector,
  upsertWikiConnector,
} from './connectors.js';
import { cancelConnectorJobs, findIndexJob, insertIndexJob } from './index-jobs.js';

let testDatabase: TestDatabase;
let database: DatabaseHandle;

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  database = await openDatabase(testDatabase.location);
});
afterAll(async () => {
  await database.close();
  await testDatabase.drop();
});

async function team(name: string): Promise<number> {
  const { rows } = await database.sql.executeSql<{ id: number }>(
    'INSERT INTO teams (name) VALUES ($1) RETURNING id',
    [name],
  );
  return Number(rows[0]?.id);
}

async function queuedJob(teamId: number, connectorId: number): Promise<string> {
  const id = randomUUID();
  await insertIndexJob(database.sql, {
    id,
    teamId,
    connectorId,
    kind: 'wiki',
    requestedBy: null,
    request: {},
    requestHash: null,
    secretsSealed: 'v1.sealed.secret',
    items: [],
  });
  return id;
}

it('keeps one Drive and one wiki connector a team, a new wiki configuration replacing the old', async () => {
  const teamId = await team('One of each');
  const drive = await upsertTeamConnector(database.sql, teamId, 'googledrive', 'Google Drive');
  expect(await upsertTeamConnector(database.sql, teamId, 'googledrive', 'Google Drive')).toBe(drive);
  const first = await upsertWikiConnector(database.sql, {
    teamId,
    name: 'Confluence space A',
    config: { space_key: 'A' },
    secretsSealed: 'v1.sealed.a',
  });
  const second = await upsertWikiConnector(database.sql, {
    teamId,
    name: 'Confluence space B',
    config: { space_key: 'B' },
    secretsSealed: 'v1.sealed.b',
  });
  expect(first.created).toBe(true);
  expect(second).toEqual({ id: first.id, created: false });
  const stored = await findTeamConnector(database.db, teamId, 'wiki', first.id);
  expect(stored).toMatchObject({
    name: 'Confluence space B',
    status: 'configured',
    config: { space_key: 'B' },
  });
  expect(await teamWikiConnectorExists(database.sql, teamId, first.id)).toBe(true);
  expect(await teamWikiConnectorExists(database.sql, teamId, drive)).toBe(false);
  expect(await findTeamConnector(database.db, await team('Another'), 'wiki', first.id)).toBeUndefined();
});

it("cancels and deletes only the team's own connector and its unfinished jobs", async () => {
  const ours = await team('Ours');
  const theirs = await team('Theirs');
  const connector = await upsertTeamConnector(database.sql, ours, 'wiki', 'Wiki');
  const job = await queuedJob(ours, connector);
  await cancelConnectorJobs(database.sql, theirs, connector, 'not theirs');
  expect(await deleteTeamConnector(database.sql, theirs, 'wiki', connector)).toBe(false);
  expect(await findIndexJob(database.sql, job)).toMatchObject({ status: 'queued', error: null });

  await cancelConnectorJobs(database.sql, ours, connector, 'The connector was deleted');
  expect(await findIndexJob(database.sql, job)).toMatchObject({
    status: 'failed',
    error: 'The connector was deleted',
    secretsSealed: null,
  });
  expect(await deleteTeamConnector(database.sql, ours, 'googledrive', connector)).toBe(false);
  expect(await deleteTeamConnector(database.sql, ours, 'wiki', connector)).toBe(true);
  expect(await teamWikiConnectorExists(database.sql, ours, connector)).toBe(false);
});
