import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SlackOAuth } from './adapters/slack/slack-oauth.js';
import { WebApiSlackOAuth } from './adapters/slack/web-api-slack-oauth.js';
import { GuardedHttpsClient } from './adapters/token-endpoint/guarded-https-client.js';
import type { TokenEndpointClient } from './adapters/token-endpoint/token-endpoint-client.js';
import type { Config } from './config.js';
import { Batcher } from './db/batcher.js';
import { type DatabaseHandle, type DatabaseLocation, openDatabase } from './db/client.js';
import { upsertChats } from './db/repositories/chats.js';
import { loadOrCreateEmbeddedKey } from './security/encryption-key.js';
import { SecretBox } from './security/secret-box.js';
import { CallerDirectory } from './services/caller-directory.js';
import type { ServiceDependencies } from './services/dependencies.js';

export interface Runtime {
  readonly deps: ServiceDependencies;
  readonly database: DatabaseHandle;
}

/** Outside systems a test may replace with fakes; everything else follows the config. */
export interface RuntimeOverrides {
  readonly database?: DatabaseLocation;
  readonly slackOAuth?: SlackOAuth;
  readonly tokenEndpoint?: TokenEndpointClient;
  readonly now?: () => Date;
}

/** The composition root: opens the database and picks each adapter from the config. */
export async function createRuntime(config: Config, overrides: RuntimeOverrides = {}): Promise<Runtime> {
  const location: DatabaseLocation =
    overrides.database ??
    (config.databaseUrl === undefined
      ? { kind: 'embedded', dataDir: config.dataDir }
      : { kind: 'postgres', url: config.databaseUrl, poolSize: config.databasePoolSize });
  const key =
    config.encryptionKey ??
    loadOrCreateEmbeddedKey(
      location.kind === 'embedded' && location.dataDir !== undefined ? location.dataDir : config.dataDir,
    );
  const database = await openDatabase(location);
  const { slack, oauthProxy } = config;
  const slackOAuth =
    overrides.slackOAuth ??
    (slack.clientId !== undefined && slack.clientSecret !== undefined
      ? new WebApiSlackOAuth(slack.apiUrl, slack.clientId, slack.clientSecret, slack.redirectUri)
      : undefined);
  const tokenEndpoint =
    overrides.tokenEndpoint ??
    new GuardedHttpsClient({
      allowPrivateNetwork: oauthProxy.allowPrivateNetwork,
      timeoutMs: oauthProxy.timeoutMs,
      maxResponseBytes: oauthProxy.maxResponseBytes,
      ca: oauthProxy.caFile === undefined ? undefined : readFileSync(path.resolve(oauthProxy.caFile), 'utf8'),
    });
  const now = overrides.now ?? (() => new Date());
  const db = database.db;
  return {
    database,
    deps: {
      config,
      db,
      databaseKind: database.kind,
      secrets: new SecretBox(key),
      slackOAuth,
      tokenEndpoint,
      now,
      callers: new CallerDirectory(db, config.authCacheTtlSeconds * 1000, now),
      // PGlite has one connection. On PostgreSQL two batches in flight keep the pipe full while
      // one commits; more only make each batch smaller (measured in bench/http).
      chatWrites: new Batcher((writes) => upsertChats(db, writes), {
        maxBatchSize: 100,
        maxConcurrentRuns: database.kind === 'postgres' ? 2 : 1,
      }),
    },
  };
}
