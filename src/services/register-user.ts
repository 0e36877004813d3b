import { managesTeam, type TeamRole, teamRoleOf } from '../caller.js';
import type { AccountRow, AccountTokens } from '../db/repositories/accounts.js';
import type { InvitationRow, InvitedRole } from '../db/repositories/teams.js';
import type { UserRow } from '../db/repositories/users.js';
import type { Repositories } from '../db/repositories.js';
import { ServiceError, type ValidationIssue } from '../errors.js';
import { hashAccessToken, secretsEqual } from '../security/access-tokens.js';
import { normalizeEmail } from '../security/email-address.js';
import { settleClaimedAccount } from './claimed-account.js';
import type { ServiceDependencies } from './dependencies.js';
import {
  exchangeSlackCode,
  NOT_AN_INSTALLER,
  SLACK_WORKSPACE_TAKEN,
  type SlackInstallOutcome,
  saveSlackInstallation,
} from './install-slack-app.js';
import { issueAccessToken } from './issue-access-token.js';
import { assertNewPasswordLength } from './new-password.js';
import { createOwnTeam } from './own-team.js';
import { accountKey, checkPassword, countRegistration, hashNewPassword } from './password-attempts.js';
import { queueAccountEmail } from './queue-account-email.js';
import { refuseWhilePasswordsOff } from './sign-in.js';
import { teamView, userView, vectorStoreView } from './views.js';

/**
 * The registration record (spec 2.7). Only `email` is always required: without `provider` it is a
 * password account (`credentials`), which needs `password`; another provider needs its
 * `provider_account_id`.
 */
export interface RegistrationInput {
  type?: string | undefined;
  provider?: string | undefined;
  provider_account_id?: string | undefined;
  email: string;
  name?: string | undefined;
  refresh_token?: string | null;
  access_token?: string | null;
  expires_at?: number | null;
  id_token?: string | null;
  scope?: string | null;
  session_state?: string | null;
  token_type?: string | null;
  username?: string | null;
  password?: string | null;
  /** Needed, with the user's own token, for a `password` that is not the stored one (a change). */
  current_password?: string | null;
  chatappCode?: string | null;
  /** The code of an invitation (POST /v1/teams/invitations) into a team, for its e-mail. */
  invitation?: string | null;
}

export interface RegistrationResult {
  /** True for a new user (201); false when an existing user's tokens were refreshed (200). */
  readonly created: boolean;
  readonly body: {
    message: 'User registered.';
    user: ReturnType<typeof userView> & { role: string };
    team: ReturnType<typeof teamView>;
    vector_store: ReturnType<typeof vectorStoreView>;
    access_token: string;
    token_type: 'bearer';
    /** `verified`: the e-mail is proven; `mail_sent`: a verification link is on its way; `unverified`. */
    email_verification: 'verified' | 'mail_sent' | 'unverified';
    chatapp?: ChatappOutcome;
  };
}

type ChatappOutcome = SlackInstallOutcome | { status: 'not_configured'; detail: string };

const USERNAME_TAKEN = 'This username is taken';

const ALREADY_REGISTERED =
  "A user with this e-mail or provider account is already registered. Register again with that user's bearer token, its password, or the front end's registration secret to update it.";
const VERIFIED_NEEDS_PROOF =
  "A user with this e-mail is already registered and has proven the address. To link this provider account to it, register again with that user's password (or, without the registration secret, with that user's bearer token).";

const INVITATION_NOT_FOUND = 'Invitation not found: check the link, or ask for a new invitation';
const INVITATION_USED = 'Invitation already used';
const INVITATION_WITHDRAWN = 'Invitation withdrawn: ask for a new invitation';
const INVITATION_EXPIRED = 'Invitation expired: ask for a new invitation';
const INVITATION_OTHER_EMAIL = 'This invitation is for another e-mail address';

const CURRENT_PASSWORD_NEEDED =
  'To change the password, send the current one as current_password (or use POST /v1/auth/password)';
const CURRENT_PASSWORD_WRONG = 'The current password is not correct';
const NO_PASSWORD_YET =
  'This account has no password: set one with a password reset (POST /v1/auth/password-reset)';

/** How the registration changed the user; the route answers 201 for `created`, 200 otherwise. */
type RegistrationPlan =
  /** A new user. */
  | { readonly kind: 'create' }
  /**
   * The trusted front end proved the e-mail (or provider account) of an account nobody had proven:
   * it is handed over, with the proven address.
   */
  | { readonly kind: 'claim'; readonly user: UserRow }
  /** An existing user, with proof; a new password given with the user's own token and current password changes it. */
  | {
      readonly kind: 'refresh';
      readonly user: UserRow;
      readonly keepTokenHash: string | undefined;
      readonly changePassword: boolean;
    };

/** Where a registration comes from: its bearer token (the user's own, or the front end's secret) and address. */
export interface RegistrationContext {
  readonly bearerToken: string | undefined;
  readonly clientAddress: string;
}

/**
 * Registers a user with their account, team and vector store, or (with proof of identity)
 * refreshes an existing user's provider tokens, as a front end does at each sign-in.
 *
 * Only the trusted front end (`Authorization: Bearer $REGISTRATION_SECRET`) vouches for an
 * e-mail; anyone else's registration makes an unverified account until a mailed link proves it.
 * A trusted registration for an unverified account's e-mail takes that account over (see
 * `claimUnverifiedUser`); a verified account is linked to a new provider account only with
 * its password or bearer token.
 *
 * With an `invitation` code, the user joins the invitation's team with its role instead of
 * getting a team of their own (see `openInvitation` and `joinInvitedTeam`). The code proves nothing
 * of the e-mail (it is shown to whoever invited): an existing user still needs the proof above, and
 * a new one stays unverified unless a trusted provider sign-in or a mailed link proves the address.
 * An invitation counts only while its inviter is an owner or admin of its team.
 *
 * A `chatappCode` installs the Slack bot only for someone who will be an owner or admin once
 * registered (403 before Slack is asked otherwise). A new password given with the user's own
 * token needs `current_password` too, as POST /v1/auth/password does.
 */
export async function registerUser(
  deps: ServiceDependencies,
  input: RegistrationInput,
  context: RegistrationContext,
): Promise<RegistrationResult> {
  const secret = deps.config.registrationSecret;
  const trusted =
    context.bearerToken !== undefined && secret !== undefined && secretsEqual(context.bearerToken, secret);
  // With passwords off, only the trusted front end (which proved who signs up) registers anyone.
  if (!trusted) refuseWhilePasswordsOff(deps.config);
  const { registration, newPassword } = resolveRegistration(input);
  const { email } = registration;
  const username = input.username?.trim() || null;
  const invitation = await openInvitation(deps, input.invitation, email);
  const existing = await findExistingUser(
    deps.data,
    email,
    registration.provider,
    registration.provider_account_id,
  );
  if (username !== null) {
    const owner = await deps.data.users.findUserByUsername(username);
    if (owner !== undefined && owner.id !== existing.user?.id) {
      throw new ServiceError('conflict', USERNAME_TAKEN);
    }
  }
  const plan = await planRegistration(deps, input, context, trusted, existing, newPassword);
  // Before Slack is asked, so a refused code is not spent and nothing is installed.
  if (hasText(input.chatappCode) && !managesTeam({ role: roleAfterRegistration(plan, invitation) })) {
    throw new ServiceError('forbidden', `${NOT_AN_INSTALLER}: register without chatappCode`);
  }
  if (plan.kind === 'create' && !trusted) await countRegistration(deps, context.clientAddress);

  // Outside calls and slow hashing happen before the transaction, so it stays short.
  const installation = await exchangeSlackCode(deps, input.chatappCode);
  const storesPassword = plan.kind !== 'refresh' || plan.changePassword;
  const passwordHash =
    newPassword !== undefined && storesPassword ? await hashNewPassword(deps, newPassword) : undefined;

  let result: RegistrationResult;
  let claimedChunks = 0;
  try {
    result = await deps.data.transaction(async (tx) => {
      const now = deps.now();
      let user: UserRow;
      let account = existing.account;
      if (plan.kind === 'create' && invitation !== undefined) {
        user = await createInvitedUser(
          tx,
          { email, name: registration.name ?? nameFromEmail(email), username },
          passwordHash,
          invitation,
          trusted,
        );
      } else if (plan.kind === 'create') {
        user = await createUserWithTeam(
          deps,
          tx,
          { email, name: registration.name ?? nameFromEmail(email), username },
          passwordHash,
          trusted,
        );
      } else if (plan.kind === 'claim') {
        const claimed = await tx.users.claimUnverifiedUser(plan.user.id, email);
        if (claimed === undefined) throw new ServiceError('conflict', VERIFIED_NEEDS_PROOF);
        const settled = await settleClaimedAccount(tx, deps.databaseKind, claimed, now);
        user = settled.user;
        claimedChunks = settled.deletedChunks;
        account = undefined;
        user = await refreshUser(tx, user, { name: registration.name, username }, passwordHash);
      } else {
        if (plan.changePassword)
          await tx.accessTokens.deleteUserAccessTokens(plan.user.id, plan.keepTokenHash);
        user = await refreshUser(tx, plan.user, { name: registration.name, username }, passwordHash);
      }
      if (invitation !== undefined && plan.kind !== 'create')
        user = await joinInvitedTeam(tx, user, invitation);
      // Read again under the team's lock (taken joining it): the inviter's removal or demotion
      // either shows here or waits for this commit.
      if (invitation !== undefined && !(await inviterStillManages(tx, invitation)))
        throw new ServiceError('forbidden', INVITATION_WITHDRAWN);
      if (invitation !== undefined && !(await tx.teams.acceptInvitation(invitation.id, user.id, now))) {
        // Another registration used the code a moment ago.
        throw new ServiceError('forbidden', INVITATION_USED);
      }
      await upsertAccount(deps, tx, user.id, account, registration);
      const teamId = user.teamId ?? failMissingTeam(user.id);
      const chatapp =
        installation === undefined
          ? chatappNotConfigured(input.chatappCode)
          : // The user's row is this transaction's (inserted or updated above): their role is settled.
            await saveSlackInstallation(deps, tx, { teamId, installerId: user.id }, installation);
      const team = (await tx.users.findTeam(teamId)) ?? failMissingTeam(user.id);
      const store = (await tx.users.findVectorStore(teamId)) ?? failMissingTeam(user.id);
      const accessToken = await issueAccessToken(tx, user.id, deps.config.accessTokenTtlSeconds, now);
      return {
        created: plan.kind === 'create',
        body: {
          message: 'User registered.' as const,
          user: { ...userView(user), role: user.role },
          team: teamView(team),
          vector_store: vectorStoreView(store),
          access_token: accessToken,
          token_type: 'bearer' as const,
          email_verification: emailVerificationStatus(deps, user, plan.kind === 'create'),
          ...(chatapp === undefined ? {} : { chatapp }),
        },
      };
    });
  } catch (error) {
    // Two registrations at once (same e-mail, username or Slack workspace): the loser hits the
    // unique index the winner just filled.
    const constraint = deps.data.violatedUniqueIndex(error);
    if (constraint !== undefined) {
      throw new ServiceError('conflict', CONFLICT_BY_UNIQUE_INDEX[constraint] ?? ALREADY_REGISTERED);
    }
    throw error;
  }
  if (plan.kind === 'claim') {
    deps.callers.forgetUser(plan.user.id);
    deps.storage.noteDeleted(claimedChunks);
  }
  // A user who moved into the invitation's team is read afresh (team and role), this token too.
  if (plan.kind === 'refresh' && (plan.changePassword || invitation !== undefined))
    deps.callers.forgetUser(plan.user.id, invitation === undefined ? plan.keepTokenHash : undefined);
  if (result.body.email_verification === 'mail_sent')
    await queueAccountEmail(deps, result.body.user.id, 'verify_email');
  return result;
}

/** Decides what this registration does to an existing user, refusing (409) without proof. */
async function planRegistration(
  deps: ServiceDependencies,
  input: RegistrationInput,
  context: RegistrationContext,
  trusted: boolean,
  existing: { user: UserRow | undefined; account: AccountRow | undefined },
  newPassword: string | undefined,
): Promise<RegistrationPlan> {
  const user = existing.user;
  if (user === undefined) return { kind: 'create' };
  if (trusted && user.emailVerifiedAt === null) return { kind: 'claim', user };
  // The front end's own sign-in of a provider account already linked to this user: no more proof needed.
  if (trusted && existing.account?.userId === user.id) {
    return { kind: 'refresh', user, keepTokenHash: undefined, changePassword: false };
  }
  const ownToken = trusted ? undefined : context.bearerToken;
  if (ownToken !== undefined && (await deps.callers.find(ownToken))?.userId === user.id) {
    // The signed-in user may set a new password this way (with the current one): their other sessions end.
    return {
      kind: 'refresh',
      user,
      keepTokenHash: hashAccessToken(ownToken),
      changePassword:
        newPassword !== undefined && (await changesPassword(deps, input, context, user, newPassword)),
    };
  }
  const password = input.password ?? '';
  if (
    password !== '' &&
    (await checkPassword(
      deps,
      { account: accountKey(user, user.email), clientAddress: context.clientAddress },
      password,
      user.passwordHash,
    ))
  ) {
    return { kind: 'refresh', user, keepTokenHash: undefined, changePassword: false };
  }
  throw new ServiceError('conflict', trusted ? VERIFIED_NEEDS_PROOF : ALREADY_REGISTERED);
}

/**
 * Whether a password given with the user's own token changes it. The stored one again is a plain
 * refresh (a client registering anew); another needs `current_password`, as POST /v1/auth/password
 * does, so a stolen token alone cannot lock the owner out (403, nothing changed); an account
 * without a password gets one by a reset. Both comparisons are throttled password attempts, so the
 * token is no free oracle for guessing the stored password.
 */
async function changesPassword(
  deps: ServiceDependencies,
  input: RegistrationInput,
  context: RegistrationContext,
  user: UserRow,
  newPassword: string,
): Promise<boolean> {
  if (user.passwordHash === null) throw new ServiceError('forbidden', NO_PASSWORD_YET);
  const attempt = { account: accountKey(user, user.email), clientAddress: context.clientAddress };
  const current = input.current_password ?? '';
  if (current !== '') {
    if (!(await checkPassword(deps, attempt, current, user.passwordHash))) {
      throw new ServiceError('forbidden', CURRENT_PASSWORD_WRONG);
    }
    return newPassword !== current;
  }
  if (await checkPassword(deps, attempt, newPassword, user.passwordHash)) return false;
  throw new ServiceError('forbidden', CURRENT_PASSWORD_NEEDED);
}

/** The role the user will have once registered: whether their `chatappCode` may install the bot. */
function roleAfterRegistration(plan: RegistrationPlan, invitation: InvitationRow | undefined): TeamRole {
  if (invitation !== undefined) return invitedRole(invitation);
  // A new user owns a new team; a claimed account is left alone in its team, or owns one of its own.
  if (plan.kind !== 'refresh') return 'owner';
  return teamRoleOf(plan.user.role);
}

/** What the response says of the e-mail: proven, a link on its way, or unproven (no mail server). */
function emailVerificationStatus(
  deps: ServiceDependencies,
  user: UserRow,
  created: boolean,
): 'verified' | 'mail_sent' | 'unverified' {
  if (user.emailVerifiedAt !== null) return 'verified';
  return created && deps.mailer !== undefined ? 'mail_sent' : 'unverified';
}

/** The provider of a password account, which a registration that names no provider makes. */
export const PASSWORD_PROVIDER = 'credentials';

/** A registration with its defaults filled in and its e-mail in the one spelling accounts are keyed by. */
type ResolvedRegistration = RegistrationInput & {
  readonly type: string;
  readonly provider: string;
  readonly provider_account_id: string;
  readonly email: string;
  /** Absent: a new user is named after the address, an existing one keeps its name. */
  readonly name: string | undefined;
};

/**
 * Fills in what a password sign-up may leave out and checks what the schema cannot, reporting every
 * problem in one 422: an e-mail no account can have; no `provider` (a password account: `type` and
 * `provider` are `credentials`, the account id is the e-mail) without a password, or one under 8
 * characters; another provider without its `provider_account_id`.
 */
function resolveRegistration(input: RegistrationInput): {
  registration: ResolvedRegistration;
  newPassword: string | undefined;
} {
  const issues: ValidationIssue[] = [];
  const normalized = normalizeEmail(input.email);
  if (!normalized.ok) {
    issues.push({ type: 'value_error', loc: ['body', 'email'], msg: normalized.problem, input: input.email });
  }
  const email = normalized.ok ? normalized.email : input.email;
  const provider = input.provider ?? PASSWORD_PROVIDER;
  const passwordAccount = input.provider === undefined;
  let newPassword: string | undefined;
  if (passwordAccount && (input.password === undefined || input.password === null)) {
    issues.push({ type: 'missing', loc: ['body', 'password'], msg: 'Field required' });
  } else {
    // A password account's empty password is too short; elsewhere '' means none was given.
    const given = input.password ?? '';
    if (given !== '' || passwordAccount) {
      issues.push(...issuesOf(() => assertNewPasswordLength(given, 'password')));
      newPassword = given;
    }
  }
  let providerAccountId = input.provider_account_id;
  if (providerAccountId === undefined) {
    if (provider === PASSWORD_PROVIDER) providerAccountId = email;
    else issues.push({ type: 'missing', loc: ['body', 'provider_account_id'], msg: 'Field required' });
  }
  if (issues.length > 0) throw ServiceError.validation(issues);
  return {
    registration: {
      ...input,
      type: input.type ?? (provider === PASSWORD_PROVIDER ? PASSWORD_PROVIDER : 'oauth'),
      provider,
      provider_account_id: providerAccountId ?? email,
      email,
      name: input.name,
    },
    newPassword,
  };
}

/** The validation issues a check throws, so that several checks report in one 422. */
function issuesOf(check: () => void): readonly ValidationIssue[] {
  try {
    check();
    return [];
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'validation') return error.options.issues ?? [];
    throw error;
  }
}

/** A new user who gave no name is called by the part of the address before the `@`. */
function nameFromEmail(email: string): string {
  return email.slice(0, email.lastIndexOf('@'));
}

const CONFLICT_BY_UNIQUE_INDEX: Readonly<Record<string, string>> = {
  users_username_unique: USERNAME_TAKEN,
  users_email_unique: ALREADY_REGISTERED,
  connectors_slug_external_unique: SLACK_WORKSPACE_TAKEN,
};

async function findExistingUser(
  db: Repositories,
  email: string,
  provider: string,
  providerAccountId: string,
): Promise<{ user: UserRow | undefined; account: AccountRow | undefined }> {
  const account = await db.accounts.findAccount(provider, providerAccountId);
  const byEmail = await db.users.findUserByEmail(email);
  if (account !== undefined && byEmail !== undefined && account.userId !== byEmail.id) {
    throw new ServiceError('conflict', 'This provider account belongs to a user with another e-mail');
  }
  const user = byEmail ?? (account === undefined ? undefined : await db.users.findUserById(account.userId));
  return { user, account };
}

function hasText(value: string | null | undefined): value is string {
  return value !== undefined && value !== null && value !== '';
}

/**
 * The invitation a registration's code stands for, when it may still be used by this (normalised)
 * e-mail; undefined without a code. Every refusal is a 403 that says why: unknown, used,
 * withdrawn (by the team, or with its inviter's removal or demotion), expired, or for another
 * address. Accepting it happens in the registration's transaction (`acceptInvitation`), which
 * refuses a code used meanwhile.
 */
async function openInvitation(
  deps: ServiceDependencies,
  code: string | null | undefined,
  email: string,
): Promise<InvitationRow | undefined> {
  if (!hasText(code)) return undefined;
  const invitation = await deps.data.teams.findInvitationByCodeHash(hashAccessToken(code));
  if (invitation === undefined) throw new ServiceError('forbidden', INVITATION_NOT_FOUND);
  if (invitation.acceptedAt !== null) throw new ServiceError('forbidden', INVITATION_USED);
  if (invitation.withdrawnAt !== null) throw new ServiceError('forbidden', INVITATION_WITHDRAWN);
  if (invitation.expiresAt.getTime() <= deps.now().getTime()) {
    throw new ServiceError('forbidden', INVITATION_EXPIRED);
  }
  if (invitation.email !== email) throw new ServiceError('forbidden', INVITATION_OTHER_EMAIL);
  if (!(await inviterStillManages(deps.data, invitation))) {
    throw new ServiceError('forbidden', INVITATION_WITHDRAWN);
  }
  return invitation;
}

/**
 * Whether the invitation still speaks for its team: its inviter (null once their row is gone) is
 * an owner or admin of it now. Removing or demoting an admin withdraws their invitations; this
 * holds for any that were not, whoever's code it is.
 */
export async function inviterStillManages(data: Repositories, invitation: InvitationRow): Promise<boolean> {
  if (invitation.invitedBy === null) return false;
  const inviter = await data.teams.findTeamMember(invitation.teamId, invitation.invitedBy);
  return inviter !== undefined && managesTeam(inviter);
}

function invitedRole(invitation: InvitationRow): InvitedRole {
  return invitation.role === 'admin' ? 'admin' : 'member';
}

/**
 * A new user in the invitation's team, with its role. The e-mail is proven only by a trusted
 * provider sign-in (or later, a mailed link): the code is shown to whoever invited, so anyone could
 * invite an address into a team of their own and use the code to sit in that address's account.
 */
async function createInvitedUser(
  tx: Repositories,
  input: { email: string; name: string; username: string | null },
  passwordHash: string | undefined,
  invitation: InvitationRow,
  provenByProvider: boolean,
): Promise<UserRow> {
  // The team's lock orders this join after member changes under way (and finds a deleted team gone).
  if (!(await tx.teams.lockTeam(invitation.teamId)))
    throw new ServiceError('forbidden', INVITATION_NOT_FOUND);
  const user = await tx.users.insertUser({
    email: input.email,
    name: input.name,
    username: input.username,
    passwordHash: passwordHash ?? null,
    emailVerified: provenByProvider,
  });
  if (user === undefined) throw new Error('User insert returned nothing');
  return (await tx.teams.joinTeam(user.id, invitation.teamId, invitedRole(invitation))) ?? user;
}

/**
 * Moves an existing user (who proved who they are) into the invitation's team. Only a user whose
 * own team holds nothing but them (no other members, documents or connectors) may move, and that
 * empty team is deleted: anything more would be left behind, or stranded (colleagues without their
 * owner, documents whose access lists name a user who is gone, a Slack bot answering from a team
 * nobody is in). Otherwise 409, saying what to do first; someone already in the team is a 409 too.
 */
async function joinInvitedTeam(tx: Repositories, user: UserRow, invitation: InvitationRow): Promise<UserRow> {
  if (user.teamId === invitation.teamId) {
    throw new ServiceError('conflict', 'You are already a member of the team this invitation is for');
  }
  const previous = user.teamId;
  // Both teams locked, in id order (two people swapping teams at once must not deadlock).
  const teamIds = previous === null ? [invitation.teamId] : [previous, invitation.teamId];
  for (const teamId of teamIds.sort((a, b) => a - b)) {
    if (!(await tx.teams.lockTeam(teamId)) && teamId === invitation.teamId) {
      throw new ServiceError('forbidden', INVITATION_NOT_FOUND);
    }
  }
  if (previous !== null) {
    const holdings = await tx.teams.teamHoldings(previous, user.id);
    if (holdings.otherMembers > 0 || holdings.documents > 0 || holdings.connectors > 0) {
      throw new ServiceError(
        'conflict',
        'You belong to a team with other members, documents or connections: an account moves to another team only from a team of its own with nothing in it. Delete its documents and connectors, or leave that team (DELETE /v1/teams/members/{your user id}) and register again with the invitation.',
      );
    }
  }
  const moved = await tx.teams.joinTeam(user.id, invitation.teamId, invitedRole(invitation));
  if (moved === undefined) throw new Error(`User ${user.id} vanished while joining a team`);
  if (previous !== null) await tx.teams.deleteEmptyTeam(previous);
  return moved;
}

function chatappNotConfigured(code: string | null | undefined): ChatappOutcome | undefined {
  if (code === undefined || code === null || code === '') return undefined;
  return {
    status: 'not_configured',
    detail:
      'chatappCode was not used: Slack is not configured on this server (set SLACK_CLIENT_ID and SLACK_CLIENT_SECRET).',
  };
}

async function createUserWithTeam(
  deps: ServiceDependencies,
  tx: Repositories,
  input: { email: string; name: string; username: string | null },
  passwordHash: string | undefined,
  verified: boolean,
): Promise<UserRow> {
  const user = await tx.users.insertUser({
    email: input.email,
    name: input.name,
    username: input.username,
    passwordHash: passwordHash ?? null,
    emailVerified: verified,
  });
  if (user === undefined) throw new Error('User insert returned nothing');
  return createOwnTeam(tx, deps.databaseKind, user);
}

async function refreshUser(
  tx: Repositories,
  user: UserRow,
  changes: { name: string | undefined; username: string | null },
  passwordHash: string | undefined,
): Promise<UserRow> {
  const updated = await tx.users.updateUserProfile(user.id, {
    ...(changes.name === undefined ? {} : { name: changes.name }),
    ...(changes.username === null ? {} : { username: changes.username }),
    ...(passwordHash === undefined ? {} : { passwordHash }),
  });
  return updated ?? user;
}

async function upsertAccount(
  deps: ServiceDependencies,
  tx: Repositories,
  userId: number,
  existing: AccountRow | undefined,
  input: ResolvedRegistration,
): Promise<void> {
  const sealed: AccountTokens = {
    type: input.type,
    refreshTokenSealed: deps.secrets.sealOptional(input.refresh_token),
    accessTokenSealed: deps.secrets.sealOptional(input.access_token),
    idTokenSealed: deps.secrets.sealOptional(input.id_token),
    expiresAt: input.expires_at ?? null,
    scope: input.scope ?? null,
    sessionState: input.session_state ?? null,
    tokenType: input.token_type ?? null,
  };
  if (existing === undefined) {
    await tx.accounts.insertAccount({
      userId,
      provider: input.provider,
      providerAccountId: input.provider_account_id,
      ...sealed,
    });
    return;
  }
  // A sign-in that omits a token (providers send the refresh token only once) keeps the old one.
  await tx.accounts.updateAccountTokens(existing.id, withoutNulls(sealed));
}

/** The fields of `value` that are not null (dropping fields leaves a partial of the same type). */
function withoutNulls<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null)) as Partial<T>;
}

function failMissingTeam(userId: number): never {
  throw new Error(`User ${userId} has no team`);
}
