import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { databaseForTheseTests } from '../../../test/helpers/test-database.js';
import { insertTeam } from '../../../test/helpers/test-documents.js';
import {
  deleteTeamConnector,
  findTeamConnector,
  teamWikiConnectorExists,
  upsertTeamConnector,
  upsertWikiConnector,
} from './connectors.js';
import { cancelConnectorJobs, findIndexJob, insertIndexJob } from './index-jobs.js';

const testDatabase = databaseForTheseTests();

const team = (name: string) => insertTeam(testDatabase().sql, name);

async function queuedJob(teamId: number, connectorId: number): Promise<string> {
  const id = randomUUID();
  await insertIndexJob(testDatabase().sql, {
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
  const drive = await upsertTeamConnector(testDatabase().sql, teamId, 'googledrive', 'Google Drive');
  expect(await upsertTeamConnector(testDatabase().sql, teamId, 'googledrive', 'Google Drive')).toBe(drive);
  const first = await upsertWikiConnector(testDatabase().sql, {
    teamId,
    name: 'Confluence space A',
    config: { space_key: 'A' },
    secretsSealed: 'v1.sealed.a',
  });
  const second = await upsertWikiConnector(testDatabase().sql, {
    teamId,
    name: 'Confluence space B',
    config: { space_key: 'B' },
    secretsSealed: 'v1.sealed.b',
  });
  expect(first.created).toBe(true);
  expect(second).toEqual({ id: first.id, created: false });
  const stored = await findTeamConnector(testDatabase().db, teamId, 'wiki', first.id);
  expect(stored).toMatchObject({
    name: 'Confluence space B',
    status: 'configured',
    config: { space_key: 'B' },
  });
  expect(await teamWikiConnectorExists(testDatabase().sql, teamId, first.id)).toBe(true);
  expect(await teamWikiConnectorExists(testDatabase().sql, teamId, drive)).toBe(false);
  expect(await findTeamConnector(testDatabase().db, await team('Another'), 'wiki', first.id)).toBeUndefined();
});

it("cancels and deletes only the team's own connector and its unfinished jobs", async () => {
  const ours = await team('Ours');
  const theirs = await team('Theirs');
  const connector = await upsertTeamConnector(testDatabase().sql, ours, 'wiki', 'Wiki');
  const job = await queuedJob(ours, connector);
  await cancelConnectorJobs(testDatabase().sql, theirs, connector, 'not theirs');
  expect(await deleteTeamConnector(testDatabase().sql, theirs, 'wiki', connector)).toBe(false);
  expect(await findIndexJob(testDatabase().sql, job)).toMatchObject({ status: 'queued', error: null });

  await cancelConnectorJobs(testDatabase().sql, ours, connector, 'The connector was deleted');
  expect(await findIndexJob(testDatabase().sql, job)).toMatchObject({
    status: 'failed',
    error: 'The connector was deleted',
    secretsSealed: null,
  });
  expect(await deleteTeamConnector(testDatabase().sql, ours, 'googledrive', connector)).toBe(false);
  expect(await deleteTeamConnector(testDatabase().sql, ours, 'wiki', connector)).toBe(true);
  expect(await teamWikiConnectorExists(testDatabase().sql, ours, connector)).toBe(false);
});
