import { expect, it } from 'vitest';
import { databaseForTheseTests } from '../../../test/helpers/test-database.js';
import { insertTeam } from '../../../test/helpers/test-documents.js';
import { listTeamConnectorRefs } from './connectors.js';

const testDatabase = databaseForTheseTests();

const team = (name: string) => insertTeam(testDatabase().sql, name);

async function connector(teamId: number, slug: string, externalId: string | null = null): Promise<number> {
  const { rows } = await testDatabase().sql.executeSql(
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
  expect(await listTeamConnectorRefs(testDatabase().sql, ours)).toEqual([
    { id: slack, slug: 'chatapp' },
    { id: wiki, slug: 'wiki' },
  ]);
  expect(await listTeamConnectorRefs(testDatabase().sql, theirs)).toEqual([{ id: foreign, slug: 'wiki' }]);
  expect(await listTeamConnectorRefs(testDatabase().sql, await team('Empty'))).toEqual([]);
});
