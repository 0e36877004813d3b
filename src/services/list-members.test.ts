import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import { invitedMember, signedInUser } from '../../test/helpers/use-case-harness.js';
import { listMembers } from './list-members.js';

describe('listMembers', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('lists everyone in the caller’s team with their roles, longest-standing first, to any member', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp, { name: 'Ann' });
    const email = `bob-${uniqueSuffix()}@example.com`;
    const bob = await invitedMember(testApp, owner, 'member', { email, name: 'Bob' });
    await signedInUser(testApp);

    const listed = await listMembers(deps, bob.caller);
    expect(listed).toEqual({
      members: [
        {
          user_id: owner.caller.userId,
          email: owner.caller.email,
          name: 'Ann',
          role: 'owner',
          joined_at: expect.any(String),
        },
        { user_id: bob.caller.userId, email, name: 'Bob', role: 'member', joined_at: expect.any(String) },
      ],
    });
    const [first, second] = listed.members;
    expect(Date.parse(second?.joined_at ?? '')).toBeGreaterThanOrEqual(Date.parse(first?.joined_at ?? ''));
    expect(await listMembers(deps, owner.caller)).toEqual(listed);
  });
});
