import type { GoogleDrive } from '../adapters/google-drive/google-drive.js';
import type { Mailer } from '../adapters/mail/mailer.js';
import type { OidcProvider } from '../adapters/oidc/oidc-provider.js';
import type { SlackMessenger } from '../adapters/slack/slack-messenger.js';
import type { SlackOAuth } from '../adapters/slack/slack-oauth.js';
import type { TokenEndpointClient } from '../adapters/token-endpoint/token-endpoint-client.js';
import type { UploadStore } from '../adapters/upload-store/upload-store.js';
import type { WikiClient } from '../adapters/wiki/wiki-client.js';
import type { Answerer } from '../answering/answerer.js';
import type { QuestionRewriter } from '../answering/standalone-question.js';
import type { Batcher } from '../batcher.js';
import type { Config } from '../config.js';
import type { DatabaseKind } from '../db/client.js';
import type { ChatWrite, ChatWriteResult } from '../db/repositories/chats.js';
import type { Repositories } from '../db/repositories.js';
import type { StorageMaintenance } from '../db/storage-maintenance.js';
import type { AnswerChatappEventPayload } from '../jobs/definitions/answer-chatapp-event.js';
import type { JobQueue, SendOptions } from '../jobs/job-queue.js';
import type { TeamSearch } from '../retrieval/search-types.js';
import type { PasswordHasher } from '../security/passwords.js';
import type { SecretBox } from '../security/secret-box.js';
import type { CallerDirectory } from './caller-directory.js';

/** What became of a question handed to `recordChatappQuestions`. */
export type RecordedQuestion = 'queued' | 'duplicate' | 'unknown_workspace' | 'from_the_bot';

/** Jobs queued inside a use case's transaction: they exist exactly when its writes commit. */
export interface TransactionJobs {
  send(name: string, payload: object, options?: Omit<SendOptions, 'db'>): Promise<string | null>;
  sendMany(name: string, payloads: readonly object[]): Promise<string[]>;
}

/** What a use case's transaction works with: the repositories on it, and jobs queued in it. */
export interface TransactionData extends Repositories {
  readonly jobs: TransactionJobs;
}

/**
 * The use cases' data port: the repositories (`data.teams.withdrawInvitation(…)`, one property
 * per module of `db/repositories/`, the connection bound), and transactions over them. Use cases
 * never see a connection; `deps.ts` binds the real one.
 */
export interface DataAccess extends Repositories {
  /** Runs `work` in one transaction: its repositories' statements and its jobs commit together. */
  transaction<T>(work: (data: TransactionData) => Promise<T>): Promise<T>;
  /** The unique index whose violation failed a write, if that is why it failed ('' when unnamed). */
  violatedUniqueIndex(error: unknown): string | undefined;
}

/** What use cases need from the outside world; built once in `deps.ts`. */
export interface ServiceDependencies {
  readonly config: Config;
  /** The stored data, through repositories (see DataAccess). */
  readonly data: DataAccess;
  readonly databaseKind: DatabaseKind;
  /** Reclaims deleted documents' space (PGlite; PostgreSQL does it itself). */
  readonly storage: StorageMaintenance;
  /** Uploaded files, streamed in, until their index job is done with them. */
  readonly uploads: UploadStore;
  /** Durable background jobs (indexing). */
  readonly jobs: JobQueue;
  /** Checks wiki credentials before a configuration is saved. */
  readonly wiki: WikiClient;
  /** Lists a Drive folder with the caller's own Google token, for the web app's file chooser. */
  readonly drive: GoogleDrive;
  readonly secrets: SecretBox;
  /** Undefined when Slack's client id and secret are not configured. */
  readonly slackOAuth: SlackOAuth | undefined;
  /** Posts the bot's replies (`chat.postMessage` at SLACK_API_URL, with each installation's bot token). */
  readonly slackMessenger: SlackMessenger;
  readonly tokenEndpoint: TokenEndpointClient;
  /** The company's OpenID Connect provider (single sign-on); undefined without OIDC_ISSUER. */
  readonly oidc: OidcProvider | undefined;
  /** Sends verification and password-reset mails; undefined without SMTP_URL. */
  readonly mailer: Mailer | undefined;
  /** scrypt with bounded concurrency (PASSWORD_HASH_CONCURRENCY): memory stays bounded under floods. */
  readonly passwords: PasswordHasher;
  readonly now: () => Date;
  /** Bearer token -> caller, cached briefly. */
  readonly callers: CallerDirectory;
  /** Ranked chunks of one team (lexical, vectors or both). */
  readonly search: TeamSearch;
  /**
   * Resolves once every process that searches from memory has heard of every write committed
   * before the call (on PostgreSQL, a barrier their `SearchFollower`s acknowledge; at once on
   * PGlite): a use case awaits it before telling a client that documents were indexed or deleted.
   */
  readonly writesSearchable: () => Promise<void>;
  /** Writes answers from retrieved passages: extractive by default, an LLM when configured. */
  readonly answerer: Answerer;
  /**
   * Rewrites a follow-up into a standalone question before search, with the LLM answerer's model;
   * undefined with the extractive answerer (the topic of earlier questions is carried instead).
   */
  readonly questionRewriter: QuestionRewriter | undefined;
  /** Chat saves, committed together when they arrive together. */
  readonly chatWrites: Batcher<ChatWrite, ChatWriteResult>;
  /** Slack questions recorded and queued, many per commit when they arrive together. */
  readonly chatappQuestions: Batcher<AnswerChatappEventPayload, RecordedQuestion>;
}
