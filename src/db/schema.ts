import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/** PostgreSQL full-text document; written with `to_tsvector` in SQL, never read back as text. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
/**
 * pgvector without a fixed dimension: one table holds the vectors of whichever model is
 * configured; each model's HNSW index is a partial expression index cast to its dimension
 * (created at start by the indexing layer, since the dimension is known only then).
 */
/** Raw bytes (uploaded files waiting for their job). */
const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });
const vector = customType<{ data: string }>({ dataType: () => 'vector' });
/** A transaction id with its epoch (`pg_current_xact_id()`), comparable with a snapshot's bounds. */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

export const teams = pgTable('teams', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  // Not a foreign key: users point at teams, and a team is created in the same transaction.
  ownerUserId: integer('owner_user_id'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    /** Stored lower-cased, so lookups are case-insensitive. */
    email: text('email').notNull(),
    name: text('name').notNull(),
    username: text('username'),
    passwordHash: text('password_hash'),
    /**
     * When the e-mail was proven: a trusted provider registration, a mailed link or a password
     * reset. Null for an account anyone could have created (see services/register-user.ts).
     */
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
    isActive: boolean('is_active').notNull().default(true),
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'restrict' }),
    /** owner | admin | member: what the user may change in their team (one owner a team). */
    role: text('role').notNull().default('owner'),
    /** When the user joined their team: registration, or accepting an invitation. */
    joinedAt: timestamp('joined_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('users_email_unique').on(table.email),
    uniqueIndex('users_username_unique').on(table.username),
  ],
);

/**
 * An invitation to join a team, by e-mail: its code is mailed or copied by the inviter and stored
 * only as SHA-256. Open while none of accepted, withdrawn and expired applies.
 */
export const teamInvitations = pgTable(
  'team_invitations',
  {
    id: uuid('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    /** Lower-cased, as users' e-mails are. */
    email: text('email').notNull(),
    /** member | admin */
    role: text('role').notNull(),
    codeHash: text('code_hash').notNull(),
    invitedBy: integer('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
    acceptedBy: integer('accepted_by').references(() => users.id, { onDelete: 'set null' }),
    withdrawnAt: timestamp('withdrawn_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('team_invitations_code_unique').on(table.codeHash),
    index('team_invitations_team_idx').on(table.teamId, table.createdAt),
  ],
);

/**
 * Who may open a document, as its source says: one row per distinct list in a team (documents
 * shared alike share it), so a reader's visible lists are few and their ids filter the postings
 * and vectors inside the ranking statements (`chunk_terms`, `chunk_embeddings` carry the id).
 */
export const accessLists = pgTable(
  'access_lists',
  {
    id: serial('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    /** sha256 of the sorted list: one row per distinct list a team. */
    fingerprint: text('fingerprint').notNull(),
    /** Everyone in the team may open it. */
    team: boolean('team').notNull(),
    /** Lower-cased e-mail addresses: they count for a reader whose address is proven. */
    emails: text('emails').array().notNull(),
    domains: text('domains').array().notNull(),
    groups: text('groups').array().notNull(),
    /** Accounts (user ids) that may open it whether or not their address is proven. */
    users: integer('users').array().notNull().default(sql`'{}'::int[]`),
  },
  (table) => [uniqueIndex('access_lists_team_fingerprint_unique').on(table.teamId, table.fingerprint)],
);

/** A sign-in provider account (Auth.js shape); every token column holds ciphertext. */
export const accounts = pgTable(
  'accounts',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    provider: text('provider').notNull(),
    providerAccountId: text('provider_account_id').notNull(),
    refreshTokenSealed: text('refresh_token_sealed'),
    accessTokenSealed: text('access_token_sealed'),
    idTokenSealed: text('id_token_sealed'),
    expiresAt: bigint('expires_at', { mode: 'number' }),
    scope: text('scope'),
    sessionState: text('session_state'),
    tokenType: text('token_type'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('accounts_provider_account_unique').on(table.provider, table.providerAccountId),
    index('accounts_user_id_idx').on(table.userId),
  ],
);

export const vectorStores = pgTable(
  'vector_stores',
  {
    id: serial('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    indexName: text('index_name').notNull(),
    environment: text('environment').notNull(),
    namespaces: text('namespaces').array().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('vector_stores_team_unique').on(table.teamId)],
);

/** Bearer tokens of this service, stored only as SHA-256 hashes. */
export const accessTokens = pgTable(
  'access_tokens',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    /**
     * `session`: a sign-in's (password, browser, single sign-on); `personal`: a personal access
     * token the user made by name for a script or the CLI (POST /v1/users/me/tokens); `oauth`: an
     * OAuth access token of an MCP client (`grantId`), good for /mcp only.
     */
    kind: text('kind').notNull().default('session'),
    /** A personal token's name, as its maker gave it; null for a session. */
    name: text('name'),
    /** A personal token's public id (its listing and revocation); null for a session. */
    publicId: uuid('public_id'),
    createdAt: createdAt(),
    /** Null: a personal token made without an expiry. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    /** When a request last used it (written at most about once a minute). */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    /** An OAuth access token's grant (kind `oauth`): revoking the grant revokes the token. */
    grantId: uuid('grant_id').references((): AnyPgColumn => oauthGrants.id, { onDelete: 'cascade' }),
  },
  (table) => [
    uniqueIndex('access_tokens_hash_unique').on(table.tokenHash),
    index('access_tokens_user_idx').on(table.userId),
    uniqueIndex('access_tokens_public_id_unique').on(table.publicId),
    index('access_tokens_grant_idx').on(table.grantId),
  ],
);

/**
 * An OAuth client that registered itself (RFC 7591 dynamic client registration): an MCP client
 * such as Claude or Cursor. Public clients only: no secret, PKCE proves each exchange.
 */
export const oauthClients = pgTable('oauth_clients', {
  /** The `client_id`. */
  id: uuid('id').primaryKey(),
  /** `client_name` as the client gave it: shown on the consent page as the client's claim. */
  name: text('name').notNull(),
  /** Exact `https://` or loopback `http://` URIs (a loopback one matches on any port). */
  redirectUris: jsonb('redirect_uris').$type<string[]>().notNull(),
  clientUri: text('client_uri'),
  createdAt: createdAt(),
});

/**
 * A person's Allow on the consent page for one client, made when its code is exchanged: its
 * access and refresh tokens act as that person. Deleting it (a revocation, a replayed code,
 * sign-out everywhere) revokes them all.
 */
export const oauthGrants = pgTable(
  'oauth_grants',
  {
    id: uuid('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: uuid('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    /** The protected resource (RFC 8707) its tokens are for: `<PUBLIC_URL>/mcp`. */
    resource: text('resource').notNull(),
    createdAt: createdAt(),
    /** When the client last exchanged a code or refresh token. */
    refreshedAt: timestamp('refreshed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('oauth_grants_user_idx').on(table.userId)],
);

/** An authorization code (stored as SHA-256): one use, bound to its client, redirect URI and PKCE challenge. */
export const oauthAuthorizationCodes = pgTable(
  'oauth_authorization_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    redirectUri: text('redirect_uri').notNull(),
    /** BASE64URL(SHA-256(code_verifier)): S256 is the only method. */
    codeChallenge: text('code_challenge').notNull(),
    scope: text('scope').notNull(),
    resource: text('resource').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** The grant its exchange made; set once: a second exchange finds it and revokes the grant. */
    grantId: uuid('grant_id'),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (table) => [index('oauth_authorization_codes_expires_idx').on(table.expiresAt)],
);

/** A refresh token (stored as SHA-256); each use rotates it, and a used one presented again revokes its grant. */
export const oauthRefreshTokens = pgTable(
  'oauth_refresh_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    grantId: uuid('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (table) => [
    index('oauth_refresh_tokens_grant_idx').on(table.grantId),
    index('oauth_refresh_tokens_expires_idx').on(table.expiresAt),
  ],
);

/**
 * E-mail domains a team claims for single sign-on: a person whose proven address is in one, signing
 * in for the first time without an invitation, joins that team as a member. One team a domain.
 */
export const teamSignInDomains = pgTable(
  'team_sign_in_domains',
  {
    /** Lower-cased, without a trailing dot. */
    domain: text('domain').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (table) => [index('team_sign_in_domains_team_idx').on(table.teamId)],
);

/** A team's SCIM bearer tokens (its identity provider's provisioning), stored only as SHA-256. */
export const scimTokens = pgTable(
  'scim_tokens',
  {
    id: uuid('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('scim_tokens_hash_unique').on(table.tokenHash),
    index('scim_tokens_team_idx').on(table.teamId),
  ],
);

/**
 * A person as a team's identity provider provisions them over SCIM: a member-to-be until their
 * first single sign-on (then `userId` links the account), turned off by `active = false`. A
 * deleted one stays as a tombstone (`deletedAt`) that keeps the address out of single sign-on
 * until it is provisioned again. `userName` (the e-mail, lower-cased) is one person service-wide.
 */
export const scimUsers = pgTable(
  'scim_users',
  {
    id: uuid('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userName: text('user_name').notNull(),
    externalId: text('external_id'),
    active: boolean('active').notNull().default(true),
    displayName: text('display_name'),
    givenName: text('given_name'),
    familyName: text('family_name'),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('scim_users_user_name_unique').on(table.userName),
    index('scim_users_team_idx').on(table.teamId, table.createdAt),
    index('scim_users_user_idx').on(table.userId),
  ],
);

/**
 * A team's SCIM group. One whose `displayName` or `externalId` is an e-mail address stands for
 * that group address: its members match documents shared with it (`group:` grants).
 */
export const scimGroups = pgTable(
  'scim_groups',
  {
    id: uuid('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    displayName: text('display_name').notNull(),
    externalId: text('external_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('scim_groups_team_idx').on(table.teamId, table.createdAt)],
);

export const scimGroupMembers = pgTable(
  'scim_group_members',
  {
    groupId: uuid('group_id')
      .notNull()
      .references(() => scimGroups.id, { onDelete: 'cascade' }),
    scimUserId: uuid('scim_user_id')
      .notNull()
      .references(() => scimUsers.id, { onDelete: 'cascade' }),
  },
  (table) => [
    primaryKey({ columns: [table.groupId, table.scimUserId] }),
    index('scim_group_members_user_idx').on(table.scimUserId),
  ],
);

/** One-time codes mailed to a user (e-mail verification, password reset), stored as SHA-256 only. */
export const emailCodes = pgTable(
  'email_codes',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** `verify_email` or `reset_password`. */
    purpose: text('purpose').notNull(),
    codeHash: text('code_hash').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    uniqueIndex('email_codes_hash_unique').on(table.codeHash),
    index('email_codes_user_idx').on(table.userId, table.purpose),
  ],
);

/**
 * Failed password attempts and rate-limited actions, by key (`account:<e-mail>`, `address:<ip>`,
 * `register:<ip>`…), shared by every process: a key over its allowance is blocked until `blockedUntil`.
 */
export const authThrottles = pgTable('auth_throttles', {
  key: text('key').primaryKey(),
  count: integer('count').notNull(),
  windowStartedAt: timestamp('window_started_at', { withTimezone: true }).notNull(),
  blockedUntil: timestamp('blocked_until', { withTimezone: true }),
});

/**
 * A team's knowledge source: `googledrive`, `wiki` or `chatapp`. `config` holds only non-secret
 * settings; `secretsSealed` holds the encrypted JSON of its secrets.
 */
export const connectors = pgTable(
  'connectors',
  {
    id: serial('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    status: text('status').notNull().default('active'),
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    secretsSealed: text('secrets_sealed'),
    /** The outside system's id of this installation (the Slack workspace id for `chatapp`). */
    externalId: text('external_id'),
    lastSyncedAt: timestamp('last_synced_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('connectors_team_idx').on(table.teamId, table.slug),
    uniqueIndex('connectors_slug_external_unique').on(table.slug, table.externalId),
    // One wiki and one drive connector a team; a new wiki configuration replaces the old one.
    uniqueIndex('connectors_one_per_team')
      .on(table.teamId, table.slug)
      .where(sql`slug in ('wiki', 'googledrive')`),
  ],
);

/**
 * A document of a team: a Drive file, a wiki page or an upload. `status`/`reason` are what is
 * stored (`indexed` with its chunks in `chunks`; `indexing` while a big one is written; `skipped`
 * or `failed` when nothing is); `last_job_*` is the outcome of the latest job that looked at it
 * (the same words a job reports per file): an unchanged re-post is `skipped`/`unchanged` there
 * while the document stays `indexed`.
 */
export const documents = pgTable(
  'documents',
  {
    id: serial('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    connectorId: integer('connector_id').references(() => connectors.id, { onDelete: 'cascade' }),
    /** `googledrive`, `wiki` or `upload`. */
    source: text('source').notNull(),
    externalId: text('external_id').notNull(),
    title: text('title').notNull(),
    /** The file's name as it was uploaded (`pino-api.md`), when it came as a file. */
    fileName: text('file_name'),
    url: text('url'),
    /** queued | indexing | indexed | skipped | failed */
    status: text('status').notNull().default('indexed'),
    reason: text('reason'),
    message: text('message'),
    mimeType: text('mime_type'),
    /** sha256 of the parsed title and chunks: equal means nothing to re-index. */
    contentHash: text('content_hash'),
    /** The source's own change marker: Drive's modifiedTime + md5, the wiki page version. */
    sourceVersion: text('source_version'),
    sourceModifiedAt: timestamp('source_modified_at', { withTimezone: true }),
    chunkCount: integer('chunk_count').notNull().default(0),
    /** The Drive folder (as requested) this file was found in, so re-indexing it can remove leavers. */
    originId: text('origin_id'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    /** Who may open it (`access_lists`); copied to its chunks, postings and vectors. */
    accessListId: integer('access_list_id')
      .notNull()
      .references(() => accessLists.id, { onDelete: 'restrict' }),
    /** The user whose token or upload brought it in (private uploads, the Drive re-sync). */
    indexedBy: integer('indexed_by').references(() => users.id, { onDelete: 'set null' }),
    indexedAt: timestamp('indexed_at', { withTimezone: true }),
    lastJobId: uuid('last_job_id'),
    /** indexed | skipped | failed: what the latest job did with this document. */
    lastJobStatus: text('last_job_status'),
    lastJobReason: text('last_job_reason'),
    lastJobMessage: text('last_job_message'),
    lastJobAt: timestamp('last_job_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('documents_connector_idx').on(table.connectorId),
    uniqueIndex('documents_team_source_external_unique').on(table.teamId, table.source, table.externalId),
    index('documents_team_idx').on(table.teamId, table.id),
  ],
);

/**
 * A searchable piece of a document. `team_id` and `source` are copied from the document so that
 * every query can be scoped without a join; `search` is `to_tsvector` of the title, heading path
 * and text.
 */
export const chunks = pgTable(
  'chunks',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    documentId: integer('document_id')
      .notNull()
      .references(() => documents.id, { onDelete: 'cascade' }),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    connectorId: integer('connector_id'),
    source: text('source').notNull(),
    position: integer('position').notNull(),
    text: text('text').notNull(),
    headingPath: text('heading_path').array().notNull().default(sql`'{}'::text[]`),
    pageLabels: text('page_labels').array().notNull().default(sql`'{}'::text[]`),
    tokenCount: integer('token_count').notNull(),
    search: tsvector('search').notNull(),
    /** Words in `search` (stop words aside): BM25's document length. */
    lexicalLength: integer('lexical_length').notNull().default(0),
    /** The document's access list, copied so that reads filter without a join. */
    accessListId: integer('access_list_id').notNull(),
  },
  (table) => [
    uniqueIndex('chunks_document_position_unique').on(table.documentId, table.position),
    index('chunks_team_idx').on(table.teamId, table.source),
    // fastupdate off: each insert updates the index itself. With the pending list, every few
    // hundred inserts one paid for merging it (over 100 ms, on PGlite's main thread).
    index('chunks_search_idx').using('gin', table.search).with({ fastupdate: false }),
  ],
);

/** One model's vector of a chunk. Only the configured model's vectors are ever searched. */
export const chunkEmbeddings = pgTable(
  'chunk_embeddings',
  {
    chunkId: bigint('chunk_id', { mode: 'number' })
      .notNull()
      .references(() => chunks.id, { onDelete: 'cascade' }),
    teamId: integer('team_id').notNull(),
    model: text('model').notNull(),
    dimensions: integer('dimensions').notNull(),
    embedding: vector('embedding').notNull(),
    /** The document's access list, filtered inside the HNSW walk. */
    accessListId: integer('access_list_id').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.chunkId, table.model] }),
    index('chunk_embeddings_model_team_idx').on(table.model, table.teamId),
  ],
);

/**
 * The lexical index BM25 reads: one row per distinct term of a chunk (a lexeme of its `search`
 * vector) with its count there, written with the chunk in the same statement. Scoring needs
 * each query term's postings and the team's document frequencies; the covering index gives both
 * from one index range a term, scoped to the team, best postings first, without touching chunks.
 */
export const chunkTerms = pgTable(
  'chunk_terms',
  {
    chunkId: bigint('chunk_id', { mode: 'number' })
      .notNull()
      .references(() => chunks.id, { onDelete: 'cascade' }),
    term: text('term').notNull(),
    teamId: integer('team_id').notNull(),
    /** Occurrences of the term in the chunk. */
    frequency: integer('frequency').notNull(),
    /** The chunk's `lexical_length`, copied so that scoring never reads the chunk. */
    chunkLength: integer('chunk_length').notNull(),
    /**
     * BM25's term-frequency part at a fixed reference length (`postingImpactSql`): the order in
     * which a term's postings are read, best first, so a query can stop after the best few.
     */
    impact: real('impact').notNull(),
    connectorId: integer('connector_id'),
    source: text('source').notNull(),
    /** The document's access list: a reader's filter is read from the covering index too. */
    accessListId: integer('access_list_id').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.chunkId, table.term] }),
    index('chunk_terms_team_term_impact_idx').on(
      table.teamId,
      table.term,
      table.impact.desc(),
      table.chunkId,
      table.frequency,
      table.chunkLength,
      table.connectorId,
      table.source,
      table.accessListId,
    ),
  ],
);

/**
 * Each team's chunks and their total `lexical_length` (BM25's N and, divided, avgdl), kept as
 * deltas: triggers on `chunks` (migration 0007) add one row per statement that inserts, deletes
 * or updates chunks, and a team's rows are folded into one now and then (`foldTeamChunkTotals`).
 * Reading them costs a few rows, where counting the chunks cost a scan of the team's whole index
 * (90 ms on PGlite's one thread at 66k chunks); appending, unlike updating one row per team, keeps
 * concurrent writers of a team from waiting for each other's commits.
 */
export const teamChunkTotals = pgTable(
  'team_chunk_totals',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    teamId: integer('team_id').notNull(),
    chunks: bigint('chunks', { mode: 'number' }).notNull(),
    lexicalLength: bigint('lexical_length', { mode: 'number' }).notNull(),
  },
  (table) => [index('team_chunk_totals_team_idx').on(table.teamId)],
);

/**
 * How many of a team's chunks hold each term (BM25's document frequency), kept as deltas like
 * `team_chunk_totals`: statement-level triggers on `chunk_terms` (migration 0012) add one row per
 * statement and (team, term) it inserted or deleted postings of, in the writer's transaction, and a
 * term's rows are folded into one once a search finds them many (`foldTeamTermChunks`). A search
 * reads its terms' few rows instead of counting their postings. Postings never change team or
 * term (only their access list), so updates need no trigger.
 */
export const teamTermChunks = pgTable(
  'team_term_chunks',
  {
    teamId: integer('team_id').notNull(),
    term: text('term').notNull(),
    chunks: bigint('chunks', { mode: 'number' }).notNull(),
  },
  (table) => [index('team_term_chunks_team_term_idx').on(table.teamId, table.term, table.chunks)],
);

/**
 * Which chunks' postings changed, and in which transaction: statement-level triggers on
 * `chunk_terms` (migration 0013) add one row per chunk a statement inserted, deleted or re-listed
 * postings of, in the writer's transaction. A process that keeps a team's postings in memory
 * (retrieval/lexical-index) reads the rows its last snapshot could not see and re-reads those
 * chunks, so every process searches what has committed. Old rows are deleted by storage
 * maintenance; a process that has not caught up for that long reloads the team.
 */
export const lexicalChanges = pgTable(
  'lexical_changes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    teamId: integer('team_id').notNull(),
    chunkId: bigint('chunk_id', { mode: 'number' }).notNull(),
    transactionId: xid8('transaction_id').notNull().default(sql`pg_current_xact_id()`),
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('lexical_changes_team_transaction_idx').on(table.teamId, table.transactionId),
    index('lexical_changes_changed_at_idx').on(table.changedAt),
  ],
);

/**
 * Processes that keep teams' postings in memory on PostgreSQL and learn of changes by
 * notification (db/search-follower.ts): each LISTENs for the teams `lexical_changes` names, holds
 * a lease it renews, and records here the last barrier (`search_barriers`) it has heard. A process
 * about to tell a client that a write is done (a job's files indexed, a document deleted) raises a
 * barrier and waits until every follower whose lease runs has heard it, and so every change
 * committed before it: a follower may then search without a statement while it heard nothing.
 */
export const searchFollowers = pgTable('search_followers', {
  id: uuid('id').primaryKey(),
  acknowledged: bigint('acknowledged', { mode: 'number' }).notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/** One row: the last barrier raised. Raising one locks the row to its commit, so barriers commit in order. */
export const searchBarriers = pgTable('search_barriers', {
  id: integer('id').primaryKey(),
  last: bigint('last', { mode: 'number' }).notNull(),
});

/**
 * A Slack event received (by its `event_id`, per workspace): Slack delivers an event again when
 * its acknowledgement is late, and each delivery must produce at most one answer.
 */
export const chatappEvents = pgTable(
  'chatapp_events',
  {
    workspaceId: text('workspace_id').notNull(),
    eventId: text('event_id').notNull(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    /** queued | answered | refused | failed (posting gave up, or the installation is gone) */
    status: text('status').notNull().default('queued'),
    /** The `ts` of the reply posted to Slack, once posted. */
    replyTs: text('reply_ts'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: updatedAt(),
  },
  (table) => [
    primaryKey({ columns: [table.workspaceId, table.eventId] }),
    index('chatapp_events_received_idx').on(table.receivedAt),
  ],
);

/**
 * A request to index something (a Drive selection, a wiki sync, an upload), run by a durable
 * background job. Its per-file progress is in `index_job_items`; `secrets_sealed` holds the
 * source token for the job's life only.
 */
export const indexJobs = pgTable(
  'index_jobs',
  {
    id: uuid('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    connectorId: integer('connector_id').references(() => connectors.id, { onDelete: 'set null' }),
    /** `googledrive`, `wiki` or `upload`. */
    kind: text('kind').notNull(),
    /** queued | running | completed | failed */
    status: text('status').notNull().default('queued'),
    requestedBy: integer('requested_by').references(() => users.id, { onDelete: 'set null' }),
    /** What was asked for (the Drive entries); never secrets. */
    request: jsonb('request').$type<Record<string, unknown>>().notNull().default({}),
    /** Same request while one is still running answers with that job. */
    requestHash: text('request_hash'),
    secretsSealed: text('secrets_sealed'),
    /** Set once folders (or the wiki space) were listed into items. */
    expandedAt: timestamp('expanded_at', { withTimezone: true }),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (table) => [
    index('index_jobs_team_idx').on(table.teamId, table.createdAt),
    index('index_jobs_active_hash_idx')
      .on(table.teamId, table.requestHash)
      .where(sql`status in ('queued', 'running')`),
  ],
);

/** One file (or page, or uploaded document) of an index job, with its outcome. */
export const indexJobItems = pgTable(
  'index_job_items',
  {
    jobId: uuid('job_id')
      .notNull()
      .references(() => indexJobs.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    /** queued | indexing | indexed | skipped | failed */
    status: text('status').notNull().default('queued'),
    reason: text('reason'),
    message: text('message'),
    chunks: integer('chunks').notNull().default(0),
    documentId: integer('document_id'),
    /** What the source needs to fetch it: Drive metadata, an upload's title and text. */
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default({}),
    /** An uploaded file's bytes, kept until the job is done. */
    content: bytea('content'),
    updatedAt: updatedAt(),
  },
  (table) => [
    primaryKey({ columns: [table.jobId, table.externalId] }),
    index('index_job_items_job_position_idx').on(table.jobId, table.position),
  ],
);

/**
 * Uploaded files kept in the database (PostgreSQL, where API and worker processes may not share a
 * disk) until their index job is done with them: streamed in as parts of at most a MiB, so no
 * statement carries a whole file.
 */
export const uploadBlobs = pgTable(
  'upload_blobs',
  {
    key: uuid('key').notNull(),
    part: integer('part').notNull(),
    bytes: bytea('bytes').notNull(),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.key, table.part] })],
);

export interface StoredChatMessage {
  role: string;
  content: string;
  timestamp: string | null;
  chat_id: string | null;
  /** On answers the web chat wrote: the documents they cite. */
  sources?: StoredCitedSource[];
  /** On an answer its asker rated (PUT …/messages/{index}/feedback); absent when unrated. */
  feedback?: AnswerRating;
}

/** A thumbs up or down on an answer. */
export type AnswerRating = 'up' | 'down';

/** A document an answer cites, kept with the answer (the web chat's `sources` line, answering's `CitedSource`). */
export interface StoredCitedSource {
  file_name: string;
  file_path: string;
  mimetype: string | null;
  creation_date: string;
  last_modified_date: string;
  page_labels: string[];
  title: string;
  url: string | null;
  snippet: string;
  citation: number;
}

/** A user's chat history; `chatId` is the client's id, unique per user. */
export const chats = pgTable(
  'chats',
  {
    id: serial('id').primaryKey(),
    chatId: text('chat_id').notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    messages: jsonb('messages').$type<StoredChatMessage[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('chats_user_chat_unique').on(table.userId, table.chatId),
    index('chats_user_updated_idx').on(table.userId, table.updatedAt),
  ],
);
