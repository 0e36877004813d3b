import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EmbeddingBatcher } from './adapters/embeddings/embedding-batcher.js';
import type { EmbeddingModel } from './adapters/embeddings/embedding-model.js';
import { HashingEmbeddingModel } from './adapters/embeddings/hashing-embedding-model.js';
import { OpenAiEmbeddingModel } from './adapters/embeddings/openai-embedding-model.js';
import type { GoogleDrive } from './adapters/google-drive/google-drive.js';
import { GoogleApisDrive } from './adapters/google-drive/googleapis-drive.js';
import { GuardedFetch } from './adapters/http/guarded-fetch.js';
import type { ChatModel } from './adapters/llm/chat-model.js';
import { OpenAiChatModel } from './adapters/llm/openai-chat-model.js';
import type { Mailer } from './adapters/mail/mailer.js';
import { SmtpMailer } from './adapters/mail/smtp-mailer.js';
import type { OidcProvider } from './adapters/oidc/oidc-provider.js';
import { OpenIdClientProvider } from './adapters/oidc/openid-client-provider.js';
import type { SlackMessenger } from './adapters/slack/slack-messenger.js';
import type { SlackOAuth } from './adapters/slack/slack-oauth.js';
import { WebApiSlackMessenger } from './adapters/slack/web-api-slack-messenger.js';
import { WebApiSlackOAuth } from './adapters/slack/web-api-slack-oauth.js';
import { GuardedHttpsClient } from './adapters/token-endpoint/guarded-https-client.js';
import type { TokenEndpointClient } from './adapters/token-endpoint/token-endpoint-client.js';
import { DatabaseUploadStore } from './adapters/upload-store/database-upload-store.js';
import { DirectoryUploadStore } from './adapters/upload-store/directory-upload-store.js';
import { ConfluenceClient } from './adapters/wiki/confluence-client.js';
import type { WikiClient } from './adapters/wiki/wiki-client.js';
import type { Answerer } from './answering/answerer.js';
import { ExtractiveAnswerer } from './answering/extractive-answerer.js';
import { type AnswererLogger, LlmAnswerer } from './answering/llm-answerer.js';
import { LlmQuestionRewriter, type QuestionRewriter } from './answering/standalone-question.js';
import { Batcher } from './batcher.js';
import type { Config } from './config.js';
import { type DatabaseHandle, type DatabaseLocation, openDatabase } from './db/client.js';
import { connectionOf } from './db/connection.js';
import type { OutageLogger } from './db/database-availability.js';
import { autovacuumRuns } from './db/repositories/storage.js';
import { type RepositoryAccess, repositoryAccess } from './db/repositories.js';
import { awaitSearchFollowers, SEARCH_FOLLOWER_SETTINGS, SearchFollower } from './db/search-follower.js';
import {
  EMBEDDED_MAINTENANCE_DEFAULTS,
  InProcessStorageMaintenance,
  type StorageMaintenance,
  selfMaintainedStorage,
  UNVACUUMED_POSTGRES_MAINTENANCE,
} from './db/storage-maintenance.js';
import { vectorSessionSettings } from './db/vector-index.js';
import type {
  DocumentParser,
  IndexingDependencies,
  IndexingLogger,
} from './indexing/indexing-dependencies.js';
import { ParsePool } from './indexing/parse-pool.js';
import { answerChatappEventJob } from './jobs/definitions/answer-chatapp-event.js';
import { embedStaleChunksJob } from './jobs/definitions/embed-stale-chunks.js';
import { indexDocumentsJob } from './jobs/definitions/index-documents.js';
import { sendAccountEmailJob } from './jobs/definitions/send-account-email.js';
import type { JobQueue, SendOptions } from './jobs/job-queue.js';
import { PgBossJobQueue } from './jobs/pg-boss-queue.js';
import type { TeamSearch } from './retrieval/search-types.js';
import { PostgresTeamSearch } from './retrieval/team-search.js';

import { loadOrCreateEmbeddedKey } from './security/encryption-key.js';
import { PasswordHasher } from './security/passwords.js';
import { SecretBox } from './security/secret-box.js';
import { answerChatappEvent } from './services/answer-chatapp-event.js';
import { CallerDirectory } from './services/caller-directory.js';
import type { DataAccess, ServiceDependencies } from './services/dependencies.js';
import { recordChatappQuestions } from './services/receive-chatapp-event.js';
import { sendAccountEmail } from './services/send-account-email.js';

export interface Runtime {
  readonly deps: ServiceDependencies;
  readonly database: DatabaseHandle;
  /** The pipeline's own dependencies (the worker role runs it). */
  readonly indexing: IndexingDependencies;
  readonly queue: PgBossJobQueue;
  /** Stops the queue (waiting for running jobs up to `timeoutMs`), the parse threads, then the database. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** Outside systems a test may replace with fakes; everything else follows the config. */
export interface RuntimeOverrides {
  readonly database?: DatabaseLocation;
  readonly slackOAuth?: SlackOAuth;
  readonly slackMessenger?: SlackMessenger;
  readonly tokenEndpoint?: TokenEndpointClient;
  readonly drive?: GoogleDrive;
  readonly wiki?: WikiClient;
  readonly embeddingModel?: EmbeddingModel;
  /** The LLM answerer's model (used when ANSWERER=llm). */
  readonly chatModel?: ChatModel;
  /** Replaces the OpenID Connect provider (single sign-on) the config names. */
  readonly oidc?: OidcProvider;
  /** Replaces the SMTP mailer (and turns mail on without SMTP_URL). */
  readonly mailer?: Mailer;
  readonly now?: () => Date;
  /** Where the pipeline and the job queue log (a pino logger); silent by default. */
  readonly logger?: IndexingLogger;
  /** Where a database outage is logged (lost, regained); `logger` by default. */
  readonly databaseLogger?: OutageLogger;
  /** pg-boss timings; tests shorten them. */
  readonly queueTimings?: {
    readonly pollingIntervalSeconds?: number;
    readonly maintenanceIntervalSeconds?: number;
  };
}

/** The composition root: opens the database and picks each adapter from the config. */
export async function createRuntime(config: Config, overrides: RuntimeOverrides = {}): Promise<Runtime> {
  const location: DatabaseLocation =
    overrides.database ??
    (config.databaseUrl === undefined
      ? { kind: 'embedded', dataDir: config.dataDir, thread: config.pgliteThread }
      : { kind: 'postgres', url: config.databaseUrl, poolSize: config.databasePoolSize });
  const key =
    config.encryptionKey ??
    loadOrCreateEmbeddedKey(
      location.kind === 'embedded' && location.dataDir !== undefined ? location.dataDir : config.dataDir,
    );
  const logger = overrides.logger ?? silentLogger;
  const database = await openDatabase(location, vectorSessionSettings(config.search.efSearch), {
    logger: overrides.databaseLogger ?? logger,
  });
  const secrets = new SecretBox(key);
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
  const worksJobs = config.role !== 'api';
  const queue = new PgBossJobQueue({
    database: database.raw,
    // Workers release dead workers' jobs; an API-only process leaves that to them.
    supervise: worksJobs,
    availability: database.availability,
    logger,
    ...overrides.queueTimings,
  });
  const wiki = overrides.wiki ?? new ConfluenceClient({ http: wikiHttpClient(config) });
  const embeddingModel = overrides.embeddingModel ?? embeddingModelFrom(config);
  const parser: DocumentParser & { close?: () => Promise<void> } = worksJobs
    ? new ParsePool({
        threads: config.indexing.parseThreads,
        ...(config.indexing.parseMemoryMb === undefined
          ? {}
          : { memoryBudgetMb: config.indexing.parseMemoryMb }),
        parseTimeoutMs: config.indexing.parseTimeoutMs,
        maxUncompressedBytes: config.indexing.maxUncompressedBytes,
      })
    : apiOnlyParser;
  const storage = await storageMaintenanceFor(database, logger);
  storage.start();
  // The embedded default's one process keeps uploads beside its database; PostgreSQL deployments,
  // whose API and worker processes may share no disk, in the database.
  const uploads =
    location.kind === 'embedded' && location.dataDir !== undefined
      ? new DirectoryUploadStore(path.join(location.dataDir, 'uploads'))
      : new DatabaseUploadStore(database.sql);
  const indexing: IndexingDependencies = {
    sql: database.sql,
    storage,
    uploads,
    secrets,
    drive:
      overrides.drive ??
      new GoogleApisDrive({ apiUrl: config.googleDrive.apiUrl, timeoutMs: config.indexing.sourceTimeoutMs }),
    wiki,
    parser,
    embedder:
      embeddingModel === undefined
        ? undefined
        : new EmbeddingBatcher(embeddingModel, { maxConcurrentRequests: config.embeddings.concurrency }),
    limits: { maxFileBytes: config.indexing.maxFileBytes, fileConcurrency: config.indexing.fileConcurrency },
    logger,
  };
  const mailer =
    overrides.mailer ??
    (config.smtp === undefined
      ? undefined
      : new SmtpMailer({ url: config.smtp.url, from: config.smtp.from }));
  const oidc = overrides.oidc ?? oidcProviderFrom(config);
  if (oidc !== undefined && config.role !== 'worker') checkOidcDiscovery(oidc, logger);
  // On PostgreSQL, a process holding teams' postings in memory hears of their changes, so that a
  // search of a team that did not change needs no statement.
  const follower =
    location.kind === 'postgres' && config.search.memoryIndexBytes > 0
      ? new SearchFollower(location.url, SEARCH_FOLLOWER_SETTINGS, logger)
      : undefined;
  follower?.start();
  const search = new PostgresTeamSearch(
    database.sql,
    embeddingModel,
    {
      ...config.search,
      sessionEfSearch: config.search.efSearch,
      ...(follower === undefined ? {} : { changeMarks: follower }),
    },
    logger,
  );
  const writesSearchable =
    location.kind === 'postgres'
      ? () =>
          awaitSearchFollowers(database.sql, {
            maxWaitMs: 2 * SEARCH_FOLLOWER_SETTINGS.leaseMs,
            logger,
          })
      : () => Promise.resolve();
  const repositories = repositoryAccess(connectionOf(database));
  const data = dataAccess(repositories, queue);
  const services: ServiceDependencies = {
    config,
    data,
    databaseKind: database.kind,
    storage,
    uploads,
    jobs: queue,
    wiki,
    drive: indexing.drive,
    secrets,
    slackOAuth,
    slackMessenger: overrides.slackMessenger ?? new WebApiSlackMessenger(slack.apiUrl),
    tokenEndpoint,
    oidc,
    mailer,
    passwords: new PasswordHasher({
      logN: config.passwordScryptLogN,
      concurrency: config.authLimits.passwordHashConcurrency,
      maxQueued: config.authLimits.passwordHashQueue,
    }),
    now,
    callers: new CallerDirectory(data, config.authCacheTtlSeconds * 1000, now),
    search,
    writesSearchable,
    ...answeringFrom(config, search, overrides.chatModel, logger),
    // PGlite has one connection. On PostgreSQL two batches in flight keep the pipe full while
    // one commits; more only make each batch smaller (measured in bench/http).
    chatWrites: new Batcher((writes) => data.chats.upsertChats(writes), {
      maxBatchSize: 100,
      maxConcurrentRuns: database.kind === 'postgres' ? 2 : 1,
    }),
    // Slack waits for these before its acknowledgement (p99 100 ms under bursts): group commit.
    chatappQuestions: new Batcher((questions) => recordChatappQuestions({ data, jobs: queue }, questions), {
      maxBatchSize: 100,
      maxConcurrentRuns: database.kind === 'postgres' ? 2 : 1,
    }),
  };
  await queue.define(indexDocumentsJob(indexing, config.indexing.jobConcurrency));
  await queue.define(embedStaleChunksJob(indexing));
  // Jobs whose handlers are use cases: they run over the same service dependencies as requests.
  await queue.define(
    answerChatappEventJob((payload, context) => answerChatappEvent(services, payload, context)),
  );
  await queue.define(sendAccountEmailJob((payload) => sendAccountEmail(services, payload)));
  await queue.start();
  let closed = false;
  const runtime: Runtime = {
    database,
    indexing,
    queue,
    close: async (options = {}) => {
      if (closed) return;
      closed = true;
      await queue.stop({ graceful: true, timeoutMs: options.timeoutMs ?? 10_000 });
      await storage.stop();
      await follower?.stop();
      await parser.close?.();
      mailer?.close?.();
      await database.close();
    },
    deps: services,
  };
  return runtime;
}

/**
 * The use cases' data port over the repositories: a transaction's jobs are queued on its
 * connection, so they exist exactly when its writes commit.
 */
function dataAccess(repositories: RepositoryAccess, queue: JobQueue): DataAccess {
  return {
    ...repositories,
    transaction: (work) =>
      repositories.transaction((bound, connection) =>
        // Assigned, not spread: the bound modules are made on first use (see bindRepositories).
        work(
          Object.assign(bound, {
            jobs: {
              send: (name: string, payload: object, options?: Omit<SendOptions, 'db'>) =>
                queue.send(name, payload, { ...options, db: connection }),
              sendMany: (name: string, payloads: readonly object[]) =>
                queue.sendMany(name, payloads, { db: connection }),
            },
          }),
        ),
      ),
  };
}

/** The configured OpenID Connect provider; undefined without OIDC_ISSUER. */
function oidcProviderFrom(config: Config): OidcProvider | undefined {
  const settings = config.signIn.oidc;
  if (settings === undefined) return undefined;
  return new OpenIdClientProvider(settings);
}

/**
 * Fetches and checks the provider's discovery document at start, without holding the start up: a
 * provider that is down or misconfigured is said in the log (its address, never the secret), the
 * service serves password users meanwhile, and each single sign-on start tries discovery again.
 */
function checkOidcDiscovery(oidc: OidcProvider, logger: IndexingLogger): void {
  oidc.discover().then(
    () =>
      logger.info({ issuer: oidc.issuer }, "single sign-on: the provider's discovery document is in order"),
    (error: unknown) =>
      logger.error(
        { issuer: oidc.issuer },
        `single sign-on is unavailable until the provider answers (tried again at each sign-in): ${
          error instanceof Error ? error.message : String(error)
        }`,
      ),
  );
}

const silentLogger: IndexingLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** An API-only process queues jobs but never runs them, so it starts no parse threads. */
const apiOnlyParser: DocumentParser = {
  parse: () => Promise.reject(new Error('this process runs with --role=api: it does not index')),
};

/** The outbound client for wiki sites, whose address users may choose: policed (see guarded-fetch.ts). */
function wikiHttpClient(config: Config): GuardedFetch {
  return new GuardedFetch({
    allowPrivateNetwork: config.wiki.allowPrivateNetwork,
    allowedHosts: config.wiki.allowedHosts,
    trustedOrigins: config.wikiBaseUrl === undefined ? [] : [new URL(config.wikiBaseUrl).origin],
    timeoutMs: config.indexing.sourceTimeoutMs,
    totalTimeoutMs: config.indexing.sourceTimeoutMs * 4,
    maxResponseBytes: config.indexing.maxFileBytes,
    sourceName: 'the wiki',
  });
}

/**
 * Sentences chosen from the passages (no model needed), or the configured chat model's answer
 * (which logs the citation numbers it had to remove), with the same model rewriting follow-ups
 * into standalone questions before search.
 */
function answeringFrom(
  config: Config,
  search: TeamSearch,
  chatModel: ChatModel | undefined,
  logger: AnswererLogger,
): { answerer: Answerer; questionRewriter: QuestionRewriter | undefined } {
  if (config.answering.answerer === 'extractive') {
    return { answerer: new ExtractiveAnswerer(search), questionRewriter: undefined };
  }
  const { llm } = config.answering;
  const model =
    chatModel ??
    new OpenAiChatModel({
      baseUrl: llm.baseUrl,
      apiKey: llm.apiKey,
      model: llm.model,
      timeoutMs: llm.timeoutMs,
      maxTokens: llm.maxTokens,
      temperature: llm.temperature,
    });
  return {
    answerer: new LlmAnswerer(model, logger),
    questionRewriter: new LlmQuestionRewriter(model, logger),
  };
}

/** The configured embedding model; undefined for `none` (lexical search only). */
function embeddingModelFrom(config: Config): EmbeddingModel | undefined {
  const settings = config.embeddings;
  if (settings.provider === 'none') return undefined;
  if (settings.provider === 'hashing') {
    return new HashingEmbeddingModel({
      ...(settings.dimensions === undefined ? {} : { dimensions: settings.dimensions }),
      maxBatchSize: settings.batchSize,
    });
  }
  return new OpenAiEmbeddingModel({
    baseUrl: settings.baseUrl,
    model: settings.model,
    maxBatchSize: settings.batchSize,
    timeoutMs: settings.timeoutMs,
    ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
    ...(settings.dimensions === undefined ? {} : { dimensions: settings.dimensions }),
  });
}

/**
 * Who keeps the database's tables in shape: the service on PGlite and on a PostgreSQL whose
 * autovacuum is off (said once at start, since an operator may not expect it), else PostgreSQL.
 */
async function storageMaintenanceFor(
  database: DatabaseHandle,
  logger: IndexingLogger,
): Promise<StorageMaintenance> {
  if (database.kind === 'embedded') {
    return new InProcessStorageMaintenance(database.sql, logger, EMBEDDED_MAINTENANCE_DEFAULTS);
  }
  if (await autovacuumRuns(database.sql)) return selfMaintainedStorage;
  logger.warn(
    {},
    "PostgreSQL's autovacuum is off: this process vacuums and analyses the chunk tables after large writes and deletes",
  );
  return new InProcessStorageMaintenance(database.sql, logger, UNVACUUMED_POSTGRES_MAINTENANCE);
}
