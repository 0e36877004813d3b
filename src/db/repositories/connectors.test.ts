import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/test-database.js';
import { type DatabaseHandle, openDatabase } from '../client.js';
import { listTeamConnectorRefs } from './connectors.js';

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
  const { rows } = await database.sql.executeSql('INSERT INTO teams (name) VALUES ($1) RETURNING id', [name]);
  return Number(rows[0]?.id);
}

async function connector(teamId: number, slug: string, externalId: string | null = null): Promise<number> {
  const { rows } = await database.sql.executeSql(
    'INSERT INTO connectors (team_id, slug, name, external_id) VALUES ($1, $2, $3, $4) RETURNING id',
    [teamId, slug, `${slug} of ${teamId}`, externalId],
  );
  return Number(rows[0]?.id);
}

it("lists one team's connectors, oldest first, and no other team's", async () => {
  const ours = await team('Ours');
  const theirs = await team('Theirs');
  const slack = await connector(ours, 'chatapp', 'T-ours');
  const foreign = await connector(theirs, 'wiki');
  const wiki = await connector(ours, 'wiki');
  expect(await listTeamConnectorRefs(database.sql, ours)).toEqual([
    { id: slack, slug: 'chatapp' },
    { id: wiki, slug: 'wiki' },
  ]);
  expect(await listTeamConnectorRefs(database.sql, theirs)).toEqual([{ id: foreign, slug: 'wiki' }]);
  expect(await listTeamConnectorRefs(database.sql, await team('Empty'))).toEqual([]);
});
