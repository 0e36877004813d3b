import { and, eq, sql } from 'drizzle-orm';
import type { SlackInstallation } from '../adapters/slack/slack-oauth.js';
import type { Database } from '../db/client.js';
import { violatedUniqueIndex } from '../db/errors.js';
import {
  type AccountRow,
  findAccount,
  findTeam,
  findUserByEmail,
  findUserById,
  findUserByUsername,
  findVectorStore,
  type UserRow,
} from '../db/repositories/users.js';
import { accounts, connectors, teams, users, vectorStores } from '../db/schema.js';
import { ServiceError } from '../errors.js';
import { secretsEqual } from '../security/access-tokens.js';
import { hashPassword, verifyPassword } from '../security/passwords.js';
import type { ServiceDependencies } from './dependencies.js';
import { issueAccessToken } from './issue-access-token.js';
import { teamView, userView, vectorStoreView } from './views.js';

/** The registration record (spec 2.7); the first five fields are required. */
export interface RegistrationInput {
  type: string;
  provider: string;
  provider_account_id: string;
  email: string;
  name: string;
  refresh_token?: string | null;
  access_token?: string | null;
  expires_at?: number | null;
  id_token?: string | null;
  scope?: string | null;
  session_state?: string | null;
  token_type?: string | null;
  username?: string | null;
  password?: string | null;
  chatappCode?: string | null;
}

export interface RegistrationResult {
  /** True for a new user (201); false when an existing user's tokens were refreshed (200). */
  readonly created: boolean;
  readonly body: {
    message: 'User registered.';
    user: ReturnType<typeof userView>;
    team: ReturnType<typeof teamView>;
    vector_store: ReturnType<typeof vectorStoreView>;
    access_token: string;
    token_type: 'bearer';
    chatapp?: ChatappOutcome;
  };
}

type ChatappOutcome =
  | { status: 'installed'; connector_id: number; slack_team_id: string; slack_team_name: string | null }
  | { status: 'not_configured'; detail: string };

export const VECTOR_STORE_PROVIDER = 'pgvector';
export const VECTOR_INDEX_NAME = 'chunks';

const USERNAME_TAKEN = 'This username is taken';
const SLACK_WORKSPACE_TAKEN = 'This Slack workspace is already connected to another team';

const ALREADY_REGISTERED =
  "A user with this e-mail or provider account is already registered. Register again with that user's bearer token, its password, or the front end's registration secret to update it.";

/**
 * Registers a user with their account, team and vector store, or (with proof of identity)
 * refreshes an existing user's provider tokens, as a front end does at each sign-in.
 */
export async function registerUser(
  deps: ServiceDependencies,
  input: RegistrationInput,
  bearerToken: string | undefined,
): Promise<RegistrationResult> {
  const email = input.email.trim().toLowerCase();
  const username = input.username?.trim() || null;
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw ServiceError.validation([
      {
        type: 'value_error',
        loc: ['body', 'email'],
        msg: 'value is not a valid email address',
        input: input.email,
      },
    ]);
  }
  const existing = await findExistingUser(deps.db, email, input.provider, input.provider_account_id);
  if (username !== null) {
    const owner = await findUserByUsername(deps.db, username);
    if (owner !== undefined && owner.id !== existing.user?.id) {
      throw new ServiceError('conflict', USERNAME_TAKEN);
    }
  }
  if (
    existing.user !== undefined &&
    !(await provesIdentity(deps, existing.user, input.password, bearerToken))
  ) {
    throw new ServiceError('conflict', ALREADY_REGISTERED);
  }

  // Outside calls and slow hashing happen before the transaction, so it stays short.
  const installation = await exchangeChatappCode(deps, input.chatappCode);
  const passwordHash =
    input.password === undefined || input.password === null || input.password === ''
      ? undefined
      : await hashPassword(input.password, deps.config.passwordScryptLogN);

  try {
    return await deps.db.transaction(async (tx) => {
      const now = deps.now();
      const user =
        existing.user === undefined
          ? await createUserWithTeam(deps, tx, { ...input, email, username }, passwordHash)
          : await refreshUser(tx, existing.user, { name: input.name, username }, passwordHash);
      await upsertAccount(deps, tx, user.id, existing.account, input);
      const teamId = user.teamId ?? failMissingTeam(user.id);
      const chatapp =
        installation === undefined
          ? chatappNotConfigured(input.chatappCode)
          : await saveSlackInstallation(deps, tx, teamId, installation);
      const team = (await findTeam(tx, teamId)) ?? failMissingTeam(user.id);
      const store = (await findVectorStore(tx, teamId)) ?? failMissingTeam(user.id);
      const accessToken = await issueAccessToken(tx, user.id, deps.config.accessTokenTtlSeconds, now);
      return {
        created: existing.user === undefined,
        body: {
          message: 'User registered.' as const,
          user: userView(user),
          team: teamView(team),
          vector_store: vectorStoreView(store),
          access_token: accessToken,
          token_type: 'bearer' as const,
          ...(chatapp === undefined ? {} : { chatapp }),
        },
      };
    });
  } catch (error) {
    // Two registrations at once (same e-mail, username or Slack workspace): the loser hits the
    // unique index the winner just filled.
    const constraint = violatedUniqueIndex(error);
    if (constraint !== undefined) {
      throw new ServiceError('conflict', CONFLICT_BY_UNIQUE_INDEX[constraint] ?? ALREADY_REGISTERED);
    }
    throw error;
  }
}

const CONFLICT_BY_UNIQUE_INDEX: Readonly<Record<string, string>> = {
  users_username_unique: USERNAME_TAKEN,
  connectors_slug_external_unique: SLACK_WORKSPACE_TAKEN,
};

async function findExistingUser(
  db: Database,
  email: string,
  provider: string,
  providerAccountId: string,
): Promise<{ user: UserRow | undefined; account: AccountRow | undefined }> {
  const account = await findAccount(db, provider, providerAccountId);
  const byEmail = await findUserByEmail(db, email);
  if (account !== undefined && byEmail !== undefined && account.userId !== byEmail.id) {
    throw new ServiceError('conflict', 'This provider account belongs to a user with another e-mail');
  }
  const user = byEmail ?? (account === undefined ? undefined : await findUserById(db, account.userId));
  return { user, account };
}

async function provesIdentity(
  deps: ServiceDependencies,
  user: UserRow,
  password: string | null | undefined,
  bearerToken: string | undefined,
): Promise<boolean> {
  if (bearerToken !== undefined) {
    const secret = deps.config.registrationSecret;
    if (secret !== undefined && secretsEqual(bearerToken, secret)) return true;
    const caller = await deps.callers.find(bearerToken);
    if (caller?.userId === user.id) return true;
  }
  if (password !== undefined && password !== null && user.passwordHash !== null) {
    return verifyPassword(password, user.passwordHash);
  }
  return false;
}

async function exchangeChatappCode(
  deps: ServiceDependencies,
  code: string | null | undefined,
): Promise<SlackInstallation | undefined> {
  if (code === undefined || code === null || code === '' || deps.slackOAuth === undefined) return undefined;
  return deps.slackOAuth.exchangeCode(code);
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
  tx: Database,
  input: RegistrationInput & { username: string | null },
  passwordHash: string | undefined,
): Promise<UserRow> {
  const [user] = await tx
    .insert(users)
    .values({
      email: input.email,
      name: input.name,
      username: input.username,
      passwordHash: passwordHash ?? null,
    })
    .returning();
  if (user === undefined) throw new Error('User insert returned nothing');
  const [team] = await tx
    .insert(teams)
    .values({ name: `${input.name}'s team`, ownerUserId: user.id })
    .returning();
  if (team === undefined) throw new Error('Team insert returned nothing');
  await tx.insert(vectorStores).values({
    teamId: team.id,
    provider: VECTOR_STORE_PROVIDER,
    indexName: VECTOR_INDEX_NAME,
    environment: deps.databaseKind,
    namespaces: [`team-${team.id}`],
  });
  const [withTeam] = await tx.update(users).set({ teamId: team.id }).where(eq(users.id, user.id)).returning();
  return withTeam ?? user;
}

async function refreshUser(
  tx: Database,
  user: UserRow,
  changes: { name: string; username: string | null },
  passwordHash: string | undefined,
): Promise<UserRow> {
  const [updated] = await tx
    .update(users)
    .set({
      name: changes.name,
      ...(changes.username === null ? {} : { username: changes.username }),
      ...(passwordHash === undefined ? {} : { passwordHash }),
      updatedAt: sql`now()`,
    })
    .where(eq(users.id, user.id))
    .returning();
  return updated ?? user;
}

async function upsertAccount(
  deps: ServiceDependencies,
  tx: Database,
  userId: number,
  existing: AccountRow | undefined,
  input: RegistrationInput,
): Promise<void> {
  const sealed = {
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
    await tx.insert(accounts).values({
      userId,
      provider: input.provider,
      providerAccountId: input.provider_account_id,
      ...sealed,
    });
    return;
  }
  // A sign-in that omits a token (providers send the refresh token only once) keeps the old one.
  const kept = Object.fromEntries(Object.entries(sealed).filter(([, value]) => value !== null));
  await tx
    .update(accounts)
    .set({ ...kept, updatedAt: sql`now()` })
    .where(eq(accounts.id, existing.id));
}

async function saveSlackInstallation(
  deps: ServiceDependencies,
  tx: Database,
  teamId: number,
  installation: SlackInstallation,
): Promise<ChatappOutcome> {
  const config = {
    slack_team_id: installation.slackTeamId,
    slack_team_name: installation.slackTeamName,
    enterprise_id: installation.enterpriseId,
    app_id: installation.appId,
    bot_user_id: installation.botUserId,
    scope: installation.scope,
  };
  const secretsSealed = deps.secrets.sealJson({ bot_token: installation.botToken });
  const [current] = await tx
    .select({ id: connectors.id, teamId: connectors.teamId })
    .from(connectors)
    .where(and(eq(connectors.slug, 'chatapp'), eq(connectors.externalId, installation.slackTeamId)))
    .limit(1);
  if (current !== undefined && current.teamId !== teamId) {
    throw new ServiceError('conflict', SLACK_WORKSPACE_TAKEN);
  }
  let connectorId: number;
  if (current === undefined) {
    const [created] = await tx
      .insert(connectors)
      .values({
        teamId,
        slug: 'chatapp',
        name: `Slack: ${installation.slackTeamName ?? installation.slackTeamId}`,
        externalId: installation.slackTeamId,
        config,
        secretsSealed,
      })
      .returning({ id: connectors.id });
    connectorId = created?.id ?? 0;
  } else {
    await tx
      .update(connectors)
      .set({ config, secretsSealed, status: 'active', updatedAt: sql`now()` })
      .where(eq(connectors.id, current.id));
    connectorId = current.id;
  }
  return {
    status: 'installed',
    connector_id: connectorId,
    slack_team_id: installation.slackTeamId,
    slack_team_name: installation.slackTeamName,
  };
}

function failMissingTeam(userId: number): never {
  throw new Error(`User ${userId} has no team`);
}
