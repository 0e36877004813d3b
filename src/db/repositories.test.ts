import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { connectionOf } from './connection.js';
import { type RepositoryAccess, repositoryAccess } from './repositories.js';

describe('repositories bound to a connection', () => {
  let testApp: TestApp;
  let access: RepositoryAccess;
  let userId: number;
  beforeAll(async () => {
    testApp = await startTestApp();
    access = repositoryAccess(connectionOf(testApp.runtime.database));
    userId = (await registerUser(testApp.app)).userId;
  });
  afterAll(() => testApp.close());

  it('runs query-builder and raw-SQL repositories in one transaction, committed together', async () => {
    const teamId = await access.transaction(async (repositories) => {
      // drizzle's insert, then raw SQL whose foreign key needs the team not yet committed.
      const team = await repositories.users.insertTeam({ name: 'Mixed', ownerUserId: userId });
      if (team === undefined) throw new Error('no team inserted');
      await repositories.connectors.upsertTeamConnector(team.id, 'wiki', 'Wiki');
      return team.id;
    });
    expect((await access.users.findTeam(teamId))?.name).toBe('Mixed');
    expect(await access.connectors.listTeamConnectorRefs(teamId)).toHaveLength(1);
  });

  it('rolls both kinds back when the work fails', async () => {
    let teamId: number | undefined;
    await expect(
      access.transaction(async (repositories) => {
        const team = await repositories.users.insertTeam({ name: 'Rolled back', ownerUserId: userId });
        if (team === undefined) throw new Error('no team inserted');
        teamId = team.id;
        await repositories.connectors.upsertTeamConnector(team.id, 'wiki', 'Wiki');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(teamId).toBeDefined();
    expect(await access.users.findTeam(teamId ?? 0)).toBeUndefined();
    expect(await access.connectors.listTeamConnectorRefs(teamId ?? 0)).toEqual([]);
  });
});
