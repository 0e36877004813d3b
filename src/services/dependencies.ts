import type { GoogleDrive } from '../adapters/google-drive/google-drive.js';
import type { Mailer } from '../adapters/mail/mailer.js';
import type { SlackMessenger } from '../adapters/slack/slack-messenger.js';
import type { SlackOAuth } from '../adapters/slack/slack-oauth.js';
import type { TokenEndpointClient } from '../adapters/token-endpoint/token-endpoint-client.js';
import type { UploadStore } from '../adapters/upload-store/upload-store.js';
import type { WikiClient } from '../adapters/wiki/wiki-client.js';
import type { Answerer } from '../answering/answerer.js';
import type { Config } from '../config.js';
import type { Batcher } from '../db/batcher.js';
import type { Database, DatabaseKind } from '../db/client.js';
import type { ChatWrite, ChatWriteResult } from '../db/repositories/chats.js';
import type { SqlConnection } from '../db/sql-connection.js';
import type { StorageMaintenance } from '../db/storage-maintenance.js';
import type { AnswerChatappEventPayload } from '../jobs/definitions/answer-chatapp-event.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { TeamSearch } from '../retrieval/search-types.js';
import type { PasswordHasher } from '../security/passwords.js';
import type { SecretBox } from '../security/secret-box.js';
import type { CallerDirectory } from './caller-directory.js';

/** What became of a question handed to `recordChatappQuestions`. */
export type RecordedQuestion = 'queued' | 'duplicate' | 'unknown_workspace' | 'from_the_bot';

/** What use cases need from the outside world; built once in `deps.ts`. */
export interface ServiceDependencies {
  readonly config: Config;
  readonly db: Database;
  readonly databaseKind: DatabaseKind;
  /** Raw SQL and transactions on the same database, shared with the job queue. */
  readonly sql: SqlConnection;
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
  /** Sends verification and password-reset mails; undefined without SMTP_URL. */
  readonly mailer: Mailer | undefined;
  /** scrypt with bounded concurrency (PASSWORD_HASH_CONCURRENCY): memory stays bounded under floods. */
  readonly passwords: PasswordHasher;
  readonly now: () => Date;
  /** Bearer token -> caller, cached briefly. */
  readonly callers: CallerDirectory;
  /** Ranked chunks of one team (lexical, vectors or both). */
  readonly search: TeamSearch;
  /** Writes answers from retrieved passages: extractive by default, an LLM when configured. */
  readonly answerer: Answerer;
  /** Chat saves, committed together when they arrive together. */
  readonly chatWrites: Batcher<ChatWrite, ChatWriteResult>;
  /** Slack questions recorded and queued, many per commit when they arrive together. */
  readonly chatappQuestions: Batcher<AnswerChatappEventPayload, RecordedQuestion>;
}
