import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

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
    isActive: boolean('is_active').notNull().default(true),
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'restrict' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('users_email_unique').on(table.email),
    uniqueIndex('users_username_unique').on(table.username),
  ],
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
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    uniqueIndex('access_tokens_hash_unique').on(table.tokenHash),
    index('access_tokens_user_idx').on(table.userId),
  ],
);

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

/** An indexed document of a team; its chunks come with the indexing issue. */
export const documents = pgTable(
  'documents',
  {
    id: serial('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    connectorId: integer('connector_id').references(() => connectors.id, { onDelete: 'cascade' }),
    source: text('source').notNull(),
    externalId: text('external_id').notNull(),
    title: text('title').notNull(),
    url: text('url'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('documents_connector_idx').on(table.connectorId),
    uniqueIndex('documents_team_source_external_unique').on(table.teamId, table.source, table.externalId),
  ],
);

export interface StoredChatMessage {
  role: string;
  content: string;
  timestamp: string | null;
  chat_id: string | null;
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
