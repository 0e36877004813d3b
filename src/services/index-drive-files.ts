import { createHash } from 'node:crypto';
import type { Caller } from '../caller.js';
import type { ServiceDependencies } from './dependencies.js';
import { ensureTeamConnector } from './ensure-team-connector.js';
import { type QueuedIndexJob, queueIndexJob } from './queue-index-job.js';
import { assertOwnUserContext, type UserContextClaim } from './user-context.js';

/** A picked Drive entry (spec 2.4); only what indexing uses is named here. */
export interface DriveFileInput {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly url: string;
  readonly serviceId: string;
}

/**
 * Queues the indexing of picked Drive files and folders with the caller's Drive token, which is
 * kept encrypted until the job ends. The team's Drive connector is created on first use.
 */
export async function indexDriveFiles(
  deps: ServiceDependencies,
  caller: Caller,
  input: { files: readonly DriveFileInput[]; user_context: UserContextClaim },
  driveToken: string,
): Promise<QueuedIndexJob> {
  await assertOwnUserContext(deps, caller, input.user_context);
  const files = [...new Map(input.files.map((file) => [file.id, file])).values()];
  const connectorId = await ensureTeamConnector(deps, caller.teamId, 'googledrive', 'Google Drive');
  return queueIndexJob(deps, {
    teamId: caller.teamId,
    connectorId,
    kind: 'googledrive',
    requestedBy: caller.userId,
    ...driveIndexRequest(files),
    secretsSealed: deps.secrets.seal(driveToken),
  });
}

/** A Drive entry to index: picked now, or (the re-sync) picked by a member before. */
export interface DriveEntryToIndex {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  /** The picked entry's link and service id; null when no longer known (a listed folder's). */
  readonly url: string | null;
  readonly serviceId: string | null;
}

/**
 * The request, hash and items of a Drive index job over these entries, for a member's pick and
 * the worker's re-sync alike: the request hash is what lets both share one active job.
 */
export function driveIndexRequest(entries: readonly DriveEntryToIndex[]) {
  const ids = entries.map((entry) => entry.id).sort();
  return {
    request: { files: entries.map((entry) => ({ id: entry.id, name: entry.name, type: entry.type })) },
    requestHash: createHash('sha256')
      .update(JSON.stringify(['googledrive', ids]))
      .digest('hex'),
    items: entries.map((entry) => ({
      externalId: entry.id,
      name: entry.name,
      payload: {
        requested: {
          type: entry.type,
          // A picked folder's item is gone once listed: its link is then unknown (Drive's own
          // webViewLink of each file is what documents show).
          ...(entry.url === null ? {} : { url: entry.url }),
          ...(entry.serviceId === null ? {} : { service_id: entry.serviceId }),
        },
      },
    })),
  };
}
