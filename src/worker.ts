import type { Logger } from 'pino';
import type { Config } from './config.js';
import { isDatabaseUnavailable } from './db/database-availability.js';
import type { Runtime } from './deps.js';
import { prepareVectorIndex } from './indexing/embed-stale-chunks.js';
import { ANSWER_CHATAPP_EVENT_JOB } from './jobs/definitions/answer-chatapp-event.js';
import { EMBED_STALE_CHUNKS_JOB } from './jobs/definitions/embed-stale-chunks.js';
import { INDEX_DOCUMENTS_JOB } from './jobs/definitions/index-documents.js';
import { SEND_ACCOUNT_EMAIL_JOB } from './jobs/definitions/send-account-email.js';
import { forgetOldChatappEvents } from './services/forget-chatapp-events.js';
import { forgetExpiredAuthRecords } from './services/forget-expired-auth-records.js';
import { forgetOldLexicalChanges } from './services/forget-old-lexical-changes.js';
import { forgetOrphanedUploads } from './services/forget-orphaned-uploads.js';
import { driveSyncClient, queueDueDriveSyncs } from './services/sync-drive.js';
import { queueDueWikiSyncs } from './services/sync-wiki.js';

/** How often the worker looks for wiki connectors due a sync. */
const WIKI_SCHEDULE_CHECK_MS = 60_000;
/** How often the worker looks for Drive connectors due a re-sync of their files and permissions. */
const DRIVE_SCHEDULE_CHECK_MS = 60_000;
/** How often the worker forgets old Slack event records, expired mailed codes and throttle records. */
const CLEANUP_MS = 3_600_000;

/**
 * The worker role: runs index jobs, re-embedding, the Slack bot's answers and account e-mails,
 * queues scheduled wiki syncs and Drive re-syncs and forgets old Slack event records, expired
 * sign-in records and uploads no job needs. Answers a function that stops the schedules (the queue
 * itself stops with the runtime; a round under way is not waited for).
 */
export async function startWorker(runtime: Runtime, config: Config, logger: Logger): Promise<() => void> {
  const { queue, indexing, deps, database } = runtime;
  if (database.kind === 'embedded') {
    // PGlite is opened by one process only: every job still active belongs to a process that died.
    for (const released of await queue.releaseOrphanedJobs()) {
      logger.info(released, 'job of a stopped process handed back');
    }
  }
  if (indexing.embedder !== undefined) {
    try {
      const dimensions = await prepareVectorIndex(database.sql, indexing.embedder);
      logger.info({ model: indexing.embedder.model, dimensions }, 'embeddings on');
      await queue.send(EMBED_STALE_CHUNKS_JOB, { model: indexing.embedder.model }, { singletonKey: 'all' });
    } catch (error) {
      // Indexing still works; chunks stored meanwhile are embedded by the next start's catch-up.
      logger.error(
        { err: error, model: indexing.embedder.model },
        'the embedding model did not answer at start',
      );
    }
    await queue.work(EMBED_STALE_CHUNKS_JOB);
  }
  await queue.work(INDEX_DOCUMENTS_JOB);
  await queue.work(ANSWER_CHATAPP_EVENT_JOB);
  await queue.work(SEND_ACCOUNT_EMAIL_JOB);
  // A database outage is logged once, by the database's watch; the next round catches up.
  const failed = (message: string) => (error: unknown) => {
    if (!isDatabaseUnavailable(error)) logger.error({ err: error }, message);
  };
  const sweepUploads = () =>
    forgetOrphanedUploads(deps).then((removed) => {
      if (removed > 0) logger.info({ files: removed }, 'uploads no job needs any more deleted');
    }, failed('deleting orphaned uploads failed'));
  void sweepUploads();
  const timers = [
    setInterval(() => {
      forgetOldChatappEvents(deps).then((forgotten) => {
        if (forgotten > 0) logger.info({ events: forgotten }, 'old Slack event records forgotten');
      }, failed('forgetting old Slack event records failed'));
      forgetExpiredAuthRecords(deps).catch(failed('forgetting expired sign-in records failed'));
      forgetOldLexicalChanges(deps).catch(failed('forgetting old changes of postings failed'));
      void sweepUploads();
    }, CLEANUP_MS),
  ];
  const interval = config.wiki.syncIntervalMinutes;
  if (interval > 0) {
    timers.push(
      setInterval(() => {
        queueDueWikiSyncs(deps, interval).then((queued) => {
          if (queued > 0) logger.info({ connectors: queued }, 'scheduled wiki syncs queued');
        }, failed('scheduling wiki syncs failed'));
      }, WIKI_SCHEDULE_CHECK_MS),
    );
  }
  const driveInterval = config.googleDrive.syncIntervalMinutes;
  // Drive re-syncs need the service's Google client to refresh the members' tokens.
  if (driveInterval > 0 && driveSyncClient(config) !== undefined) {
    // A round calls Google once per member: a slow one must not overlap the next.
    let driveRound: Promise<void> | undefined;
    timers.push(
      setInterval(() => {
        if (driveRound !== undefined) return;
        driveRound = queueDueDriveSyncs(deps, driveInterval)
          .then((round) => {
            for (const skip of round.skipped) {
              logger.warn(
                { connector: skip.connectorId, team: skip.teamId, user: skip.userId, reason: skip.reason },
                `a Drive re-sync was skipped: ${skip.detail}`,
              );
            }
            if (round.queued.length > 0) {
              logger.info(
                { connectors: round.connectors, jobs: round.queued.length },
                'scheduled Drive re-syncs queued',
              );
            }
          }, failed('scheduling Drive re-syncs failed'))
          .finally(() => {
            driveRound = undefined;
          });
      }, DRIVE_SCHEDULE_CHECK_MS),
    );
  }
  for (const timer of timers) timer.unref();
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}
