import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scimClient } from '../../../../test/helpers/scim-client.js';
import {
  bearer,
  registerUser,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
} from '../../../../test/helpers/test-app.js';

const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

interface ScimUser {
  id: string;
  userName: string;
  active: boolean;
  displayName?: string;
  externalId?: string;
  name?: { givenName?: string; familyName?: string };
  emails: { value: string; primary: boolean; type: string }[];
  meta: { resourceType: string; created: string; lastModified: string; location: string };
}

describe('SCIM 2.0 provisioning: tokens, users, deactivation', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  const { scim, api, team } = scimClient(() => testApp);

  /** A member who joined the owner's team by invitation; answers their token and address. */
  async function member(ownerToken: string, role: 'member' | 'admin' = 'member') {
    const email = `${role}-${uniqueSuffix()}@acme.com`;
    const invitation = (await api('POST', '/v1/teams/invitations', ownerToken, { email, role })).json();
    const joined = await registerUser(
      testApp.app,
      { email, invitation: invitation.code },
      bearer(TEST_REGISTRATION_SECRET),
    );
    return { ...joined, email };
  }

  /** Okta's POST /Users body. */
  const oktaUser = (email: string, active = true) => ({
    schemas: [USER_SCHEMA],
    userName: email,
    name: { givenName: 'Ann', familyName: 'Lee' },
    emails: [{ primary: true, value: email, type: 'work' }],
    displayName: 'Ann Lee',
    locale: 'en-US',
    externalId: `00u${uniqueSuffix()}`,
    groups: [],
    password: 'not-used-1A!',
    active,
  });

  /** Entra ID's POST /Users body. */
  const entraUser = (email: string) => ({
    schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
    externalId: `entra-${uniqueSuffix()}`,
    userName: email,
    active: true,
    addresses: [{ primary: true, type: 'work', country: 'DE' }],
    displayName: 'Bo Berg',
    emails: [{ primary: true, type: 'work', value: email }],
    meta: { resourceType: 'User' },
    name: { familyName: 'Berg', givenName: 'Bo' },
    title: 'Engineer',
    [ENTERPRISE_SCHEMA]: { department: 'R&D' },
  });

  const expectScimError = (response: Awaited<ReturnType<typeof scim>>, status: number, scimType?: string) => {
    expect(response.statusCode, response.body).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/scim\+json/);
    const body = response.json();
    expect(body).toMatchObject({
      schemas: [ERROR_SCHEMA],
      status: String(status),
      detail: expect.any(String),
    });
    if (scimType === undefined) expect(body.scimType).toBeUndefined();
    else expect(body.scimType).toBe(scimType);
  };

  describe('tokens', () => {
    it('are made, listed without their secret, and revoked by owners and admins only', async () => {
      const { owner, scimToken } = await team();
      expect(scimToken).toMatch(/^scim_[\w-]{40,}$/);
      const admin = await member(owner.token, 'admin');
      const plain = await member(owner.token);

      const byAdmin = await api('POST', '/v1/teams/scim-tokens', admin.token);
      expect(byAdmin.statusCode).toBe(201);
      expect(byAdmin.json()).toEqual({
        id: expect.any(String),
        token: expect.any(String),
        created_at: expect.any(String),
      });

      for (const method of ['GET', 'POST'] as const) {
        expect((await api(method, '/v1/teams/scim-tokens', plain.token)).statusCode).toBe(403);
      }
      expect(
        (await api('DELETE', `/v1/teams/scim-tokens/${byAdmin.json().id}`, plain.token)).statusCode,
      ).toBe(403);

      expect((await scim('GET', '/Users', scimToken)).statusCode).toBe(200);
      const listed = await api('GET', '/v1/teams/scim-tokens', owner.token);
      expect(listed.statusCode).toBe(200);
      const { tokens } = listed.json() as { tokens: Record<string, unknown>[] };
      expect(tokens).toHaveLength(2);
      expect(JSON.stringify(tokens)).not.toContain('scim_');
      expect(tokens[0]).toEqual({
        id: expect.any(String),
        created_at: expect.any(String),
        last_used_at: expect.any(String),
      });
      expect(tokens[1]?.last_used_at).toBeNull();

      // Another team's token is not found; this team's stops working at once.
      const other = await team();
      const otherId = (await api('GET', '/v1/teams/scim-tokens', other.owner.token)).json().tokens[0].id;
      expect((await api('DELETE', `/v1/teams/scim-tokens/${otherId}`, owner.token)).statusCode).toBe(404);
      expect((await api('DELETE', '/v1/teams/scim-tokens/not-a-uuid', owner.token)).statusCode).toBe(404);
      expect((await scim('GET', '/Users', other.scimToken)).statusCode).toBe(200);
      const firstId = String(tokens[0]?.id);
      expect((await api('DELETE', `/v1/teams/scim-tokens/${firstId}`, owner.token)).statusCode).toBe(204);
      expectScimError(await scim('GET', '/Users', scimToken), 401);
    });

    it('a SCIM token is no user token, and a user token opens no SCIM resource', async () => {
      const { owner, scimToken } = await team();
      expect((await api('GET', '/v1/teams/members', scimToken)).statusCode).toBe(401);
      expect((await api('GET', '/v1/users/me', scimToken)).statusCode).toBe(401);
      expectScimError(await scim('GET', '/Users', owner.token), 401);
      expectScimError(await scim('GET', '/Users', undefined), 401);
      expectScimError(await scim('GET', '/Users', 'scim_wrong'), 401);
      expectScimError(await scim('POST', '/Users', undefined, oktaUser(`x-${uniqueSuffix()}@acme.com`)), 401);
      const refused = await scim('GET', '/ServiceProviderConfig', undefined);
      expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
    });
  });

  it('describes itself well enough for Okta and Entra ID to connect', async () => {
    const { scimToken } = await team();
    const config = await scim('GET', '/ServiceProviderConfig', scimToken);
    expect(config.statusCode).toBe(200);
    expect(config.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(config.json()).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      etag: { supported: false },
      sort: { supported: false },
      changePassword: { supported: false },
      authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken' })],
    });
    const types = (await scim('GET', '/ResourceTypes', scimToken)).json();
    expect(types.schemas).toEqual([LIST_SCHEMA]);
    expect(types.Resources.map((type: { endpoint: string }) => type.endpoint)).toEqual(['/Users', '/Groups']);
    expect((await scim('GET', '/ResourceTypes/User', scimToken)).json().schema).toBe(USER_SCHEMA);
    const schemas = (await scim('GET', '/Schemas', scimToken)).json();
    expect(schemas.Resources.map((schema: { id: string }) => schema.id)).toEqual([
      USER_SCHEMA,
      'urn:ietf:params:scim:schemas:core:2.0:Group',
    ]);
    expect((await scim('GET', `/Schemas/${USER_SCHEMA}`, scimToken)).json().attributes).toContainEqual(
      expect.objectContaining({ name: 'userName', required: true, uniqueness: 'server' }),
    );
    expectScimError(await scim('GET', '/Nothing', scimToken), 404);
  });

  it('provisions as Okta does: probe, create, duplicate 409, get, filter, deactivate, reactivate', async () => {
    const { scimToken } = await team();
    const email = `ann-${uniqueSuffix()}@acme.com`;
    const probe = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}&startIndex=1&count=2`,
      scimToken,
    );
    expect(probe.statusCode).toBe(200);
    expect(probe.json()).toEqual({
      schemas: [LIST_SCHEMA],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });

    const body = oktaUser(email.toUpperCase());
    const created = await scim('POST', '/Users', scimToken, body);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['content-type']).toMatch(/^application\/scim\+json/);
    const user = created.json() as ScimUser;
    expect(user).toEqual({
      schemas: [USER_SCHEMA],
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      externalId: body.externalId,
      userName: email,
      name: { givenName: 'Ann', familyName: 'Lee' },
      displayName: 'Ann Lee',
      active: true,
      emails: [{ value: email, primary: true, type: 'work' }],
      meta: {
        resourceType: 'User',
        created: expect.any(String),
        lastModified: expect.any(String),
        location: `${testApp.config.publicUrl}/scim/v2/Users/${user.id}`,
      },
    });

    expectScimError(await scim('POST', '/Users', scimToken, oktaUser(email)), 409, 'uniqueness');
    expect((await scim('GET', `/Users/${user.id}`, scimToken)).json()).toEqual(user);

    const found = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent(`USERNAME eq "${email.toUpperCase()}"`)}&startIndex=1&count=100`,
      scimToken,
    );
    expect(found.json()).toMatchObject({ totalResults: 1, itemsPerPage: 1, Resources: [{ id: user.id }] });
    const byExternal = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent(`externalId eq "${body.externalId}"`)}`,
      scimToken,
    );
    expect(byExternal.json().Resources).toEqual([user]);

    const off = await scim('PATCH', `/Users/${user.id}`, scimToken, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json()).toMatchObject({ id: user.id, active: false, userName: email });

    const replaced = await scim('PUT', `/Users/${user.id}`, scimToken, {
      ...body,
      userName: email,
      displayName: 'Ann L.',
      active: true,
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toMatchObject({ id: user.id, active: true, displayName: 'Ann L.' });
  });

  it('provisions as Entra ID does: attribute replacements, "False" as text, capitalised ops', async () => {
    const { scimToken } = await team();
    const email = `bo-${uniqueSuffix()}@acme.com`;
    const probe = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`,
      scimToken,
    );
    expect(probe.json().totalResults).toBe(0);
    const created = await scim('POST', '/Users', scimToken, entraUser(email));
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json() as ScimUser;

    const renamed = `bo.berg-${uniqueSuffix()}@acme.com`;
    const changed = await scim('PATCH', `/Users/${id}`, scimToken, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'displayName', value: 'Bo B. Berg' },
        { op: 'Replace', path: 'name.givenName', value: 'Bodil' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: renamed },
        { op: 'Replace', path: 'externalId', value: 'entra-new' },
        { op: 'Replace', path: 'userName', value: renamed },
        { op: 'Add', path: `${ENTERPRISE_SCHEMA}:department`, value: 'Ops' },
      ],
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({
      id,
      userName: renamed,
      displayName: 'Bo B. Berg',
      name: { givenName: 'Bodil', familyName: 'Berg' },
      externalId: 'entra-new',
      emails: [{ value: renamed, primary: true, type: 'work' }],
      active: true,
    });
    // The old address is free again; the new one is taken.
    expect(
      (await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`, scimToken)).json()
        .totalResults,
    ).toBe(0);
    expectScimError(await scim('POST', '/Users', scimToken, entraUser(renamed)), 409, 'uniqueness');

    const off = await scim('PATCH', `/Users/${id}`, scimToken, {
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().active).toBe(false);
    const on = await scim('PATCH', `/Users/${id}`, scimToken, {
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    });
    expect(on.json().active).toBe(true);

    expect((await scim('DELETE', `/Users/${id}`, scimToken)).statusCode).toBe(204);
    expectScimError(await scim('GET', `/Users/${id}`, scimToken), 404);
    expectScimError(
      await scim('PATCH', `/Users/${id}`, scimToken, {
        Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
      }),
      404,
    );
    // Provisioned again, the tombstone comes back to life.
    const again = await scim('POST', '/Users', scimToken, entraUser(renamed));
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ id, userName: renamed, active: true });
  });

  it('refuses what it cannot accept with SCIM errors', async () => {
    const { scimToken } = await team();
    expectScimError(await scim('POST', '/Users', scimToken, oktaUser('not an address')), 400, 'invalidValue');
    expectScimError(
      await scim('POST', '/Users', scimToken, { schemas: [USER_SCHEMA], active: true }),
      400,
      'invalidValue',
    );
    expectScimError(
      await scim('GET', `/Users?filter=${encodeURIComponent('displayName co "x"')}`, scimToken),
      400,
      'invalidFilter',
    );
    expectScimError(await scim('GET', '/Users?count=many', scimToken), 400, 'invalidValue');
    const notJson = await testApp.app.inject({
      method: 'POST',
      url: '/scim/v2/Users',
      headers: { ...bearer(scimToken), 'content-type': 'application/scim+json' },
      payload: '{"userName": ',
    });
    expectScimError(notJson, 400, 'invalidSyntax');
    const { id } = (
      await scim('POST', '/Users', scimToken, oktaUser(`c-${uniqueSuffix()}@acme.com`))
    ).json() as ScimUser;
    expectScimError(
      await scim('PATCH', `/Users/${id}`, scimToken, { Operations: [{ op: 'remove' }] }),
      400,
      'noTarget',
    );
    expectScimError(
      await scim('PATCH', `/Users/${id}`, scimToken, { Operations: 'replace' }),
      400,
      'invalidSyntax',
    );
    expectScimError(await scim('GET', '/Users/not-a-uuid', scimToken), 404);
    const tooBig = await testApp.app.inject({
      method: 'POST',
      url: '/scim/v2/Users',
      headers: { ...bearer(scimToken), 'content-type': 'application/json' },
      payload: JSON.stringify({
        ...oktaUser('big@acme.com'),
        padding: 'x'.repeat(testApp.config.bodyLimitBytes),
      }),
    });
    expectScimError(tooBig, 413);
  });

  it('pages with startIndex and count, as plain JSON bodies too', async () => {
    const { scimToken } = await team();
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/scim/v2/Users',
        headers: bearer(scimToken),
        payload: oktaUser(`page-${index}-${uniqueSuffix()}@acme.com`),
      });
      expect(response.statusCode, response.body).toBe(201);
      ids.push(response.json().id);
    }
    const second = (await scim('GET', '/Users?startIndex=2&count=1', scimToken)).json();
    expect(second).toMatchObject({ totalResults: 3, startIndex: 2, itemsPerPage: 1 });
    expect(second.Resources.map((user: ScimUser) => user.id)).toEqual([ids[1]]);
    const counted = (await scim('GET', '/Users?count=0', scimToken)).json();
    expect(counted).toMatchObject({ totalResults: 3, itemsPerPage: 0, Resources: [] });
    const all = (await scim('GET', '/Users?startIndex=0&count=500', scimToken)).json();
    expect(all.Resources.map((user: ScimUser) => user.id)).toEqual(ids);
  });

  describe('deactivation', () => {
    it('links a member of the team, and turning them off ends their sessions and membership at once; on again, they are a member-to-be', async () => {
      const { owner, scimToken } = await team();
      const person = await member(owner.token);
      expect((await api('GET', '/v1/users/me', person.token)).statusCode).toBe(200);

      const created = await scim('POST', '/Users', scimToken, oktaUser(person.email));
      expect(created.statusCode, created.body).toBe(201);
      const { id } = created.json() as ScimUser;
      const linked = await testApp.runtime.database.sql.executeSql<{ user_id: number | null }>(
        'SELECT user_id FROM scim_users WHERE id = $1',
        [id],
      );
      expect(Number(linked.rows[0]?.user_id)).toBe(person.userId);

      const off = await scim('PATCH', `/Users/${id}`, scimToken, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', value: { active: false } }],
      });
      expect(off.statusCode, off.body).toBe(200);
      expect(off.json().active).toBe(false);

      expect((await api('GET', '/v1/users/me', person.token)).statusCode).toBe(401);
      const members = (await api('GET', '/v1/teams/members', owner.token)).json() as {
        members: { email: string }[];
      };
      expect(members.members.map((listed) => listed.email)).not.toContain(person.email);

      const on = await scim('PATCH', `/Users/${id}`, scimToken, {
        Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
      });
      expect(on.json()).toMatchObject({ id, active: true, userName: person.email });
      const row = await testApp.runtime.database.sql.executeSql<{ user_id: number | null; active: boolean }>(
        'SELECT user_id, active FROM scim_users WHERE id = $1',
        [id],
      );
      expect(row.rows[0]).toEqual({ user_id: null, active: true });
    });

    it('Entra ID\'s "False" and a DELETE end the member\'s sessions too; PUT with active false as well', async () => {
      const { owner, scimToken } = await team();
      const [first, second, third] = [
        await member(owner.token),
        await member(owner.token, 'admin'),
        await member(owner.token),
      ];
      const ids: string[] = [];
      for (const person of [first, second, third]) {
        const created = await scim('POST', '/Users', scimToken, entraUser(person.email));
        expect(created.statusCode, created.body).toBe(201);
        ids.push(created.json().id);
      }
      expect(
        (
          await scim('PATCH', `/Users/${ids[0]}`, scimToken, {
            Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
          })
        ).statusCode,
      ).toBe(200);
      expect((await scim('DELETE', `/Users/${ids[1]}`, scimToken)).statusCode).toBe(204);
      const put = await scim('PUT', `/Users/${ids[2]}`, scimToken, {
        ...entraUser(third.email),
        active: false,
      });
      expect(put.statusCode, put.body).toBe(200);
      for (const person of [first, second, third]) {
        expect((await api('GET', '/v1/users/me', person.token)).statusCode).toBe(401);
      }
      const members = (await api('GET', '/v1/teams/members', owner.token)).json() as {
        members: { email: string }[];
      };
      expect(members.members.map((listed) => listed.email)).toEqual([expect.stringMatching(/^owner-/)]);
    });

    it('a member created inactive leaves at once; the owner cannot be turned off or deleted (409)', async () => {
      const { owner, scimToken, ownerEmail } = await team();
      const person = await member(owner.token);
      const created = await scim('POST', '/Users', scimToken, oktaUser(person.email, false));
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().active).toBe(false);
      expect((await api('GET', '/v1/users/me', person.token)).statusCode).toBe(401);

      expectScimError(await scim('POST', '/Users', scimToken, oktaUser(ownerEmail, false)), 409);
      const ownerUser = await scim('POST', '/Users', scimToken, oktaUser(ownerEmail));
      expect(ownerUser.statusCode).toBe(201);
      const { id } = ownerUser.json() as ScimUser;
      const refused = await scim('PATCH', `/Users/${id}`, scimToken, {
        Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      });
      expectScimError(refused, 409);
      expect(refused.json().detail).toMatch(/hand ownership over/);
      expectScimError(await scim('DELETE', `/Users/${id}`, scimToken), 409);
      expect((await scim('GET', `/Users/${id}`, scimToken)).json().active).toBe(true);
      expect((await api('GET', '/v1/users/me', owner.token)).statusCode).toBe(200);
    });
  });

  it("one team's token never reaches another team's people, and a tombstone of another team is replaced", async () => {
    const a = await team();
    const b = await team();
    const bMember = await member(b.owner.token);
    const created = await scim('POST', '/Users', b.scimToken, oktaUser(bMember.email));
    const { id } = created.json() as ScimUser;

    expectScimError(await scim('GET', `/Users/${id}`, a.scimToken), 404);
    expectScimError(
      await scim('PATCH', `/Users/${id}`, a.scimToken, {
        Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      }),
      404,
    );
    expectScimError(await scim('PUT', `/Users/${id}`, a.scimToken, oktaUser(bMember.email, false)), 404);
    expectScimError(await scim('DELETE', `/Users/${id}`, a.scimToken), 404);
    expect((await scim('GET', '/Users', a.scimToken)).json().totalResults).toBe(0);
    // The address is one person service-wide: team A cannot provision B's live one.
    expectScimError(await scim('POST', '/Users', a.scimToken, oktaUser(bMember.email)), 409, 'uniqueness');
    expect((await api('GET', '/v1/users/me', bMember.token)).statusCode).toBe(200);

    // A's own person with an address of a user in B is never linked to that user.
    const outsider = await registerUser(
      testApp.app,
      { email: `out-${uniqueSuffix()}@acme.com` },
      bearer(TEST_REGISTRATION_SECRET),
    );
    const outsiderEmail = String((outsider.body.user as { email: string }).email);
    const provisioned = await scim('POST', '/Users', a.scimToken, oktaUser(outsiderEmail, false));
    expect(provisioned.statusCode).toBe(201);
    expect((await api('GET', '/v1/users/me', outsider.token)).statusCode).toBe(200);
    expect((await scim('DELETE', `/Users/${provisioned.json().id}`, a.scimToken)).statusCode).toBe(204);
    const replaced = await scim('POST', '/Users', b.scimToken, oktaUser(outsiderEmail));
    expect(replaced.statusCode, replaced.body).toBe(201);
    expect(replaced.json().id).not.toBe(provisioned.json().id);
    expect((await api('GET', '/v1/users/me', outsider.token)).statusCode).toBe(200);
  });
});
