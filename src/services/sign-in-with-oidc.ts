import { OidcError, type OidcIdentity } from '../adapters/oidc/oidc-provider.js';
import type { ProvisionedPerson } from '../db/repositories/sign-in-placement.js';
import type { InvitationRow, InvitedRole } from '../db/repositories/teams.js';
import type { UserRow } from '../db/repositories/users.js';
import type { Repositories } from '../db/repositories.js';
import { normalizeEmail } from '../security/email-address.js';
import { settleClaimedAccount } from './claimed-account.js';
import type { ServiceDependencies } from './dependencies.js';
import { issueAccessToken } from './issue-access-token.js';
import { createOwnTeam } from './own-team.js';
import { inviterStillManages } from './register-user.js';
import {
  configuredProvider,
  type OidcFailureResult,
  type OidcSignInFailure,
  openLoginState,
} from './start-oidc-sign-in.js';

/** The `accounts.provider` of a single sign-on link; `providerAccountId` is the ID token's `sub`. */
export const OIDC_PROVIDER = 'oidc';

export interface OidcCallbackInput {
  /** The sealed login state the browser carried back (the `ka_oidc` cookie), if any. */
  readonly sealedLogin: string | undefined;
  /** The callback's query, as the provider sent it (`code` and `state`, or `error`). */
  readonly parameters: URLSearchParams;
}

export type OidcSignInResult =
  | {
      readonly ok: true;
      /** A session token, as a password sign-in's. */
      readonly token: string;
      readonly maxAgeSeconds: number;
      readonly userId: number;
      /** Where to send the browser: the page the sign-in started from, or `/`. */
      readonly returnTo: string;
    }
  | OidcFailureResult;

/** A verified person, by their proven address. */
interface SignedInPerson {
  readonly subject: string;
  readonly email: string;
  readonly name: string;
}

/** Where a person lands: a team that wants them, and how it wants them. */
type Destination =
  | { readonly kind: 'directory'; readonly teamId: number; readonly record: ProvisionedPerson }
  | { readonly kind: 'invitation'; readonly teamId: number; readonly invitation: InvitationRow }
  | { readonly kind: 'domain'; readonly teamId: number };

type Placement =
  | { readonly kind: 'disabled'; readonly detail: string }
  | {
      readonly kind: 'placed';
      readonly user: UserRow;
      /** The account changed hands or teams: cached callers of it are stale. */
      readonly changed: boolean;
      readonly deletedChunks: number;
    };

const ACCOUNT_DISABLED = 'The directory turned this person off';
const NAME_LIMIT = 200;

/**
 * Finishes a single sign-on: checks the login state the browser carried (`expired` when it is
 * missing, stale or for another attempt), has the provider exchange the code and verify the ID
 * token, requires a proven e-mail, then signs the person in and answers a session token.
 *
 * The provider's verified e-mail is a proven address. The link (provider `oidc`, the token's
 * `sub`) finds the account first; else the address does, and is linked. An account nobody proved
 * is taken over as a trusted registration takes it (the squatter's password, tokens and links go:
 * `claimUnverifiedUser`, `settleClaimedAccount`). A directory record (SCIM) of the address that is
 * inactive or deleted refuses the sign-in (`account_disabled`).
 *
 * A person without an account joins, in this order: the team whose directory provisioned them,
 * the team of an open invitation for their address (with its role), the team claiming their
 * domain (as a member), else a team of their own. An existing account moves to a directory's or
 * invitation's team only from a team of its own holding nothing but them (as `joinInvitedTeam`);
 * otherwise it signs in where it is.
 */
export async function signInWithOidc(
  deps: ServiceDependencies,
  input: OidcCallbackInput,
): Promise<OidcSignInResult> {
  const provider = configuredProvider(deps);
  const { parameters } = input;
  const providerError = parameters.get('error');
  if (providerError !== null) {
    return failed(
      providerError === 'access_denied' ? 'cancelled' : 'provider_error',
      `The provider answered error=${providerError.slice(0, 100)}`,
    );
  }
  const login = openLoginState(deps, input.sealedLogin, deps.now());
  if (login === undefined) {
    return failed('expired', 'No sign-in under way: the login cookie is missing, unreadable or expired');
  }
  if (parameters.get('state') !== login.state) {
    return failed('expired', 'The state sent back is not the one of the sign-in under way');
  }
  let identity: OidcIdentity;
  try {
    identity = await provider.completeAuthorization(parameters, login);
  } catch (error) {
    if (error instanceof OidcError) return failed(error.failure, error.message);
    throw error;
  }
  if (identity.email === undefined) return failed('no_email', 'The ID token names no e-mail address');
  const normalized = normalizeEmail(identity.email);
  if (!normalized.ok)
    return failed('no_email', `The ID token's e-mail cannot be used: ${normalized.problem}`);
  if (!identity.emailVerified) {
    return failed(
      'email_not_verified',
      'The provider does not vouch for the e-mail (email_verified is not true)',
    );
  }
  const email = normalized.email;
  const person: SignedInPerson = {
    subject: identity.subject,
    email,
    name: (identity.name ?? email.slice(0, email.lastIndexOf('@'))).slice(0, NAME_LIMIT),
  };
  return signInPerson(deps, person, login.returnTo ?? '/', true);
}

async function signInPerson(
  deps: ServiceDependencies,
  person: SignedInPerson,
  returnTo: string,
  mayRetry: boolean,
): Promise<OidcSignInResult> {
  let outcome: { placement: Placement; token: string | undefined };
  try {
    outcome = await deps.data.transaction(async (tx) => {
      const now = deps.now();
      const placement = await place(deps, tx, person, now);
      if (placement.kind === 'disabled') return { placement, token: undefined };
      const token = await issueAccessToken(tx, placement.user.id, deps.config.accessTokenTtlSeconds, now);
      return { placement, token };
    });
  } catch (error) {
    // The same person signing in twice at once: the loser hits the unique index the winner filled
    // (the address, or the link), and finds the winner's account the second time.
    if (mayRetry && deps.data.violatedUniqueIndex(error) !== undefined)
      return signInPerson(deps, person, returnTo, false);
    throw error;
  }
  const { placement, token } = outcome;
  if (placement.kind === 'disabled') return failed('account_disabled', placement.detail);
  if (placement.changed) {
    deps.callers.forgetUser(placement.user.id);
    deps.storage.noteDeleted(placement.deletedChunks);
  }
  if (token === undefined) throw new Error('A placed sign-in got no token');
  return {
    ok: true,
    token,
    maxAgeSeconds: deps.config.accessTokenTtlSeconds,
    userId: placement.user.id,
    returnTo,
  };
}

/** Finds, takes over or creates the person's account, and puts it in its team. */
async function place(
  deps: ServiceDependencies,
  tx: Repositories,
  person: SignedInPerson,
  now: Date,
): Promise<Placement> {
  const record = await tx.signInPlacement.findProvisionedByEmail(person.email);
  if (record !== undefined && turnedOff(record)) {
    return { kind: 'disabled', detail: `${ACCOUNT_DISABLED} (the directory record of the address)` };
  }
  const link = await tx.accounts.findAccount(OIDC_PROVIDER, person.subject);
  const existing =
    link === undefined
      ? await tx.users.findUserByEmail(person.email)
      : await tx.users.findUserById(link.userId);
  if (existing === undefined) return { kind: 'placed', ...(await placeNewPerson(deps, tx, person, now)) };

  // The directory may have turned the account off under the address it had when it was linked.
  const records = await tx.signInPlacement.findProvisionedByUser(existing.id);
  if (!existing.isActive || records.some(turnedOff)) {
    return { kind: 'disabled', detail: `${ACCOUNT_DISABLED} (user ${existing.id})` };
  }
  let user = existing;
  let changed = false;
  let deletedChunks = 0;
  let linked = link !== undefined;
  if (user.emailVerifiedAt === null && user.email === person.email) {
    const claimed = await tx.users.claimUnverifiedUser(user.id, person.email);
    if (claimed !== undefined) {
      const settled = await settleClaimedAccount(tx, deps.databaseKind, claimed, now);
      user = settled.user;
      deletedChunks = settled.deletedChunks;
      changed = true;
      // The takeover unlinked every provider account, the squatter's and this one alike.
      linked = false;
    } else {
      // Proven meanwhile by a mailed link: an ordinary sign-in.
      user = (await tx.users.findUserById(user.id)) ?? user;
    }
  }
  if (!linked) await linkAccount(tx, user.id, person.subject);

  // Someone who never was placed (their team gone) or whose account was just taken over is placed
  // as a newcomer is; anyone else only by a directory or invitation, and only from an empty team.
  const destination = await destinationFor(tx, person.email, now, {
    byDomain: changed || user.teamId === null,
  });
  if (destination === undefined || destination.teamId === user.teamId) {
    if (destination?.kind === 'directory')
      await tx.signInPlacement.linkProvisionedPerson(destination.record.id, user.id);
  } else {
    const moved = await moveTo(tx, user, destination, now);
    if (moved !== undefined) {
      user = moved;
      changed = true;
    }
  }
  if (user.teamId === null) {
    user = await createOwnTeam(tx, deps.databaseKind, user);
    changed = true;
  }
  return { kind: 'placed', user, changed, deletedChunks };
}

/** A first sign-in: a proven account, in the team that wants them, else a team of their own. */
async function placeNewPerson(
  deps: ServiceDependencies,
  tx: Repositories,
  person: SignedInPerson,
  now: Date,
): Promise<{ user: UserRow; changed: boolean; deletedChunks: number }> {
  const inserted = await tx.users.insertUser({
    email: person.email,
    name: person.name,
    username: null,
    passwordHash: null,
    emailVerified: true,
  });
  if (inserted === undefined) throw new Error('User insert returned nothing');
  await linkAccount(tx, inserted.id, person.subject);
  const destination = await destinationFor(tx, person.email, now, { byDomain: true });
  const joined = destination === undefined ? undefined : await moveTo(tx, inserted, destination, now);
  const user = joined ?? (await createOwnTeam(tx, deps.databaseKind, inserted));
  return { user, changed: false, deletedChunks: 0 };
}

/**
 * The team that wants this address, in order: its directory's (a member-to-be not yet linked), an
 * open invitation's whose inviter still manages the team (newest first), the team claiming its
 * domain (when `byDomain`).
 */
async function destinationFor(
  tx: Repositories,
  email: string,
  now: Date,
  options: { readonly byDomain: boolean },
): Promise<Destination | undefined> {
  const record = await tx.signInPlacement.findProvisionedByEmail(email);
  if (record !== undefined && !turnedOff(record) && record.userId === null) {
    return { kind: 'directory', teamId: record.teamId, record };
  }
  for (const invitation of await tx.signInPlacement.listOpenInvitationsForEmail(email, now)) {
    if (await inviterStillManages(tx, invitation)) {
      return { kind: 'invitation', teamId: invitation.teamId, invitation };
    }
  }
  if (!options.byDomain) return undefined;
  const teamId = await tx.signInPlacement.findTeamClaimingDomain(email.slice(email.lastIndexOf('@') + 1));
  return teamId === undefined ? undefined : { kind: 'domain', teamId };
}

/**
 * Puts the user in the destination's team, as `joinInvitedTeam` does: only from no team, or from
 * a team of their own holding nothing but them (which is then deleted). Undefined, with nothing
 * changed, when the user may not move or the destination went meanwhile (a team deleted, an
 * invitation used or withdrawn, a directory record linked or turned off).
 */
async function moveTo(
  tx: Repositories,
  user: UserRow,
  destination: Destination,
  now: Date,
): Promise<UserRow | undefined> {
  const previous = user.teamId;
  // Both teams locked in id order (two people swapping teams at once must not deadlock).
  const teamIds = previous === null ? [destination.teamId] : [previous, destination.teamId];
  let destinationExists = true;
  for (const teamId of teamIds.sort((a, b) => a - b)) {
    if (!(await tx.teams.lockTeam(teamId)) && teamId === destination.teamId) destinationExists = false;
  }
  if (!destinationExists) return undefined;
  if (previous !== null) {
    const holdings = await tx.teams.teamHoldings(previous, user.id);
    if (holdings.otherMembers > 0 || holdings.documents > 0 || holdings.connectors > 0) return undefined;
  }
  let role: InvitedRole = 'member';
  if (destination.kind === 'invitation') {
    // Read again under the team's lock: the inviter's removal or demotion shows here or waits.
    if (!(await inviterStillManages(tx, destination.invitation))) return undefined;
    if (!(await tx.teams.acceptInvitation(destination.invitation.id, user.id, now))) return undefined;
    role = destination.invitation.role === 'admin' ? 'admin' : 'member';
  }
  if (
    destination.kind === 'directory' &&
    !(await tx.signInPlacement.linkProvisionedPerson(destination.record.id, user.id))
  ) {
    return undefined;
  }
  const moved = await tx.teams.joinTeam(user.id, destination.teamId, role);
  if (moved === undefined) throw new Error(`User ${user.id} vanished while joining a team`);
  if (previous !== null) await tx.teams.deleteEmptyTeam(previous);
  return moved;
}

async function linkAccount(tx: Repositories, userId: number, subject: string): Promise<void> {
  await tx.accounts.insertAccount({
    userId,
    provider: OIDC_PROVIDER,
    providerAccountId: subject,
    // Only the link is kept: the session is the service's own token, not the provider's.
    type: OIDC_PROVIDER,
    refreshTokenSealed: null,
    accessTokenSealed: null,
    idTokenSealed: null,
    expiresAt: null,
    scope: null,
    sessionState: null,
    tokenType: null,
  });
}

function turnedOff(record: ProvisionedPerson): boolean {
  return !record.active || record.deletedAt !== null;
}

function failed(failure: OidcSignInFailure, detail: string): OidcFailureResult {
  return { ok: false, failure, detail };
}
