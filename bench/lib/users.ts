// Registering a benchmark's users through the API, as clients do.
import { expectJson } from './http.js';

export interface BenchUser {
  readonly accessToken: string;
  /** `authorization: Bearer …`. */
  readonly headers: Record<string, string>;
  readonly userId: number;
  readonly teamId: number;
  /** The e-mail as the service stored it (normalised): what access lists name. */
  readonly email: string;
  /** Whether the service counts the address as proven (only then does it open what is shared with it). */
  readonly emailVerified: boolean;
  /** The caller's own `user_context` (`GET /v1/users/me`), as chat requests carry it. */
  readonly userContext: Record<string, unknown>;
  /** The registration's `chatapp` answer, when it carried a `chatappCode`. */
  readonly chatapp: Record<string, unknown> | undefined;
}

/**
 * Registers a new user with `POST /v2/users/register` (a new team of their own, or with an
 * `invitation` code in `extra`, the inviting team), then reads its `user_context`. `extra` adds
 * fields to the registration record (e.g. `chatappCode`, `invitation`). With the service's
 * `registrationSecret` the registration is the trusted front end's, which proves the address.
 */
export async function registerUser(
  baseUrl: string,
  slug: string,
  extra: Record<string, unknown> = {},
  registrationSecret?: string,
): Promise<BenchUser> {
  const registration = (await expectJson(
    [201],
    'POST',
    `${baseUrl}/v2/users/register`,
    {
      type: 'oauth',
      provider: 'google',
      provider_account_id: `bench-${slug}`,
      email: `bench-${slug}@example.com`,
      name: `Benchmark ${slug}`,
      ...extra,
    },
    registrationSecret === undefined ? {} : { authorization: `Bearer ${registrationSecret}` },
  )) as { access_token?: unknown; user?: { id?: unknown; team_id?: unknown }; chatapp?: unknown };
  if (typeof registration.access_token !== 'string') throw new Error('registration gave no access_token');
  const headers = { authorization: `Bearer ${registration.access_token}` };
  const me = (await expectJson([200], 'GET', `${baseUrl}/v1/users/me`, undefined, headers)) as Record<
    string,
    unknown
  >;
  return {
    accessToken: registration.access_token,
    headers,
    userId: Number(me.id),
    teamId: Number(me.team_id),
    email: String(me.email),
    emailVerified: me.email_verified === true,
    userContext: me,
    chatapp:
      typeof registration.chatapp === 'object' && registration.chatapp !== null
        ? (registration.chatapp as Record<string, unknown>)
        : undefined,
  };
}

/**
 * Adds a member to `owner`'s team as people join one: the owner invites the address
 * (`POST /v1/teams/invitations`), then the invitee registers with the invitation's code (through
 * the trusted front end when `registrationSecret` is given, so that their address is proven).
 */
export async function inviteMember(
  baseUrl: string,
  owner: BenchUser,
  slug: string,
  registrationSecret?: string,
): Promise<BenchUser> {
  const invitation = (await expectJson(
    [201],
    'POST',
    `${baseUrl}/v1/teams/invitations`,
    { email: `bench-${slug}@example.com`, role: 'member' },
    owner.headers,
  )) as { code?: unknown };
  if (typeof invitation.code !== 'string') throw new Error('the invitation gave no code');
  const member = await registerUser(baseUrl, slug, { invitation: invitation.code }, registrationSecret);
  if (member.teamId !== owner.teamId || member.userContext.role !== 'member') {
    throw new Error(
      `the invited user joined team ${member.teamId} as ${String(member.userContext.role)}, not team ${owner.teamId} as a member`,
    );
  }
  return member;
}
