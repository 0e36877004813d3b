import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  registerUser,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
} from '../../../../test/helpers/test-app.js';

/** The trusted front end's registration, which proves the address. */
const PROVEN = bearer(TEST_REGISTRATION_SECRET);

describe('/v1/teams/settings: sign-in domains', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  const settings = (token: string, domains?: readonly unknown[]) =>
    testApp.app.inject({
      method: domains === undefined ? 'GET' : 'PATCH',
      url: '/v1/teams/settings',
      headers: bearer(token),
      ...(domains === undefined ? {} : { payload: { sign_in_domains: domains } }),
    });

  /** A fresh domain of a company nobody claimed yet. */
  const companyDomain = () => `acme-${uniqueSuffix()}.example`;

  /** The owner of a new team, whose address at `domain` is proven unless `proven` is false. */
  const owner = (domain: string, proven = true) =>
    registerUser(testApp.app, { email: `owner-${uniqueSuffix()}@${domain}` }, proven ? PROVEN : {});

  /** Someone invited into `ownerToken`'s team with `role`, their address at `domain` proven. */
  async function invited(ownerToken: string, role: 'member' | 'admin', domain: string) {
    const email = `${role}-${uniqueSuffix()}@${domain}`;
    const invitation = await testApp.app.inject({
      method: 'POST',
      url: '/v1/teams/invitations',
      headers: bearer(ownerToken),
      payload: { email, role },
    });
    return registerUser(testApp.app, { email, invitation: invitation.json().code }, PROVEN);
  }

  it('claims the domain of the owner’s proven address, lower-cased, and shows it', async () => {
    const domain = companyDomain();
    const { token } = await owner(domain);
    const empty = await settings(token);
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ sign_in_domains: [] });

    const claimed = await settings(token, [`${domain.toUpperCase()}.`]);
    expect(claimed.statusCode).toBe(200);
    expect(claimed.json()).toEqual({ sign_in_domains: [domain] });
    expect((await settings(token)).json()).toEqual({ sign_in_domains: [domain] });
    // Sending the list again changes nothing.
    expect((await settings(token, [domain])).json()).toEqual({ sign_in_domains: [domain] });
  });

  it('refuses a new domain that is not the caller’s own: 403 naming the one they may claim', async () => {
    const domain = companyDomain();
    const { token } = await owner(domain);
    await settings(token, [domain]);
    const other = companyDomain();
    const refused = await settings(token, [domain, other]);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      detail: `You may claim only ${domain}, the domain of your own proven address, not ${other}`,
    });
    expect((await settings(token)).json()).toEqual({ sign_in_domains: [domain] });
  });

  it('lets an admin keep or give up a domain the team holds, but claim only their own', async () => {
    const domain = companyDomain();
    const first = await owner(domain);
    await settings(first.token, [domain]);
    const adminDomain = companyDomain();
    const admin = await invited(first.token, 'admin', adminDomain);

    const kept = await settings(admin.token, [domain, adminDomain]);
    expect(kept.statusCode).toBe(200);
    expect(kept.json()).toEqual({ sign_in_domains: [domain, adminDomain].sort() });
    const released = await settings(admin.token, []);
    expect(released.json()).toEqual({ sign_in_domains: [] });
    // Once given up, the owner's domain is new again: the admin, at another domain, may not take it back.
    expect((await settings(admin.token, [domain])).statusCode).toBe(403);
    expect((await settings(first.token, [domain])).statusCode).toBe(200);
  });

  it('is for owners and admins only: a member gets 403 on GET and PATCH', async () => {
    const domain = companyDomain();
    const first = await owner(domain);
    await settings(first.token, [domain]);
    const member = await invited(first.token, 'member', domain);
    for (const response of [await settings(member.token), await settings(member.token, [domain])]) {
      expect(response.statusCode).toBe(403);
      expect(response.json().detail).toContain('owner and admins may');
    }
    expect((await settings(first.token)).json()).toEqual({ sign_in_domains: [domain] });
  });

  it('refuses an unproven caller any new domain (403), but lets them clear the list', async () => {
    const domain = companyDomain();
    const { token } = await owner(domain, false);
    const refused = await settings(token, [domain]);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail).toContain('is not proven yet');
    expect((await settings(token)).json()).toEqual({ sign_in_domains: [] });
    expect((await settings(token, [])).statusCode).toBe(200);
  });

  it('refuses public mail services with a 422 that says why, even for an address there', async () => {
    const { token } = await owner('gmail.com');
    const refused = await settings(token, ['gmail.com']);
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual({
      detail: [
        {
          type: 'value_error',
          loc: ['body', 'sign_in_domains', 0],
          msg: 'Value error, gmail.com is a public mail service: anyone can have an address there, so it cannot admit people to a team',
        },
      ],
    });
    const mixed = await settings(token, ['example.org', 'Outlook.com']);
    expect(mixed.json().detail.map((issue: { loc: unknown }) => issue.loc)).toEqual([
      ['body', 'sign_in_domains', 1],
    ]);
  });

  it('answers malformed names with one FastAPI-style 422 issue each, at its index', async () => {
    const domain = companyDomain();
    const { token } = await owner(domain);
    const malformed = [
      'https://acme.com',
      'acme .com',
      'bob@acme.com',
      'localhost',
      '10.0.0.1',
      '*.acme.com',
      'acme..com',
      '-acme.com',
      '',
      // 231 characters, 259 in the ASCII (xn--) form addresses are stored in.
      `${Array.from({ length: 4 }, () => `${'a'.repeat(55)}ü`).join('.')}.com`,
    ];
    const refused = await settings(token, [domain, ...malformed]);
    expect(refused.statusCode).toBe(422);
    const issues = refused.json().detail as { loc: unknown[]; msg: string; type: string }[];
    expect(issues.map((issue) => issue.loc)).toEqual(
      malformed.map((_, index) => ['body', 'sign_in_domains', index + 1]),
    );
    for (const issue of issues) {
      expect(issue.type).toBe('value_error');
      expect(issue.msg).toMatch(/^Value error, /);
    }
    expect(issues[0]?.msg).toContain('without a scheme');
    expect(issues[2]?.msg).toContain('not an e-mail address');
    expect(issues.at(-1)?.msg).toContain('at most 253 characters');

    const tooLong = await settings(token, [`${'a'.repeat(250)}.com`]);
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.json().detail).toEqual([
      expect.objectContaining({ type: 'string_too_long', loc: ['body', 'sign_in_domains', 0] }),
    ]);
    const notStrings = await settings(token, [42]);
    expect(notStrings.json().detail).toEqual([
      expect.objectContaining({ type: 'string_type', loc: ['body', 'sign_in_domains', 0] }),
    ]);
    const tooMany = await settings(
      token,
      Array.from({ length: 51 }, (_, index) => `d${index}.${domain}`),
    );
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().detail).toEqual([
      expect.objectContaining({ type: 'too_long', loc: ['body', 'sign_in_domains'] }),
    ]);
    expect((await settings(token)).json()).toEqual({ sign_in_domains: [] });
  });

  it('gives a domain to one team only: of two claiming it at once exactly one wins, the other gets 409', async () => {
    const domain = companyDomain();
    const [first, second] = await Promise.all([owner(domain), owner(domain)]);
    if (first === undefined || second === undefined) throw new Error('two owners expected');
    const answers = await Promise.all([settings(first.token, [domain]), settings(second.token, [domain])]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    const lost = answers.find((answer) => answer.statusCode === 409);
    expect(lost?.json()).toEqual({ detail: `${domain} is claimed by another team` });

    const held = await Promise.all([settings(first.token), settings(second.token)]);
    expect(held.map((answer) => answer.json().sign_in_domains).sort()).toEqual([[], [domain]]);

    // A third team is refused as well, while the winner keeps it.
    const third = await owner(domain);
    expect((await settings(third.token, [domain])).statusCode).toBe(409);
    expect((await settings(third.token)).json()).toEqual({ sign_in_domains: [] });
  });

  it('is documented in the OpenAPI document', async () => {
    const document = (await testApp.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { summary?: string; description?: string; responses: object }>>;
    };
    const path = document.paths['/v1/teams/settings'];
    expect(path?.get?.responses).toHaveProperty(['403']);
    expect(path?.patch?.responses).toHaveProperty(['409']);
    expect(path?.patch?.description).toContain('proven address');
  });
});
