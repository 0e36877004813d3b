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
  const ids = files.map((file) => file.id).sort();
  return queueIndexJob(deps, {
    teamId: caller.teamId,
    connectorId,
    kind: 'googledrive',
    requestedBy: caller.userId,
    request: { files: files.map((file) => ({ id: file.id, name: file.name, type: file.type })) },
    requestHash: createHash('sha256')
      .update(JSON.stringify(['googledrive', ids]))
      .digest('hex'),
    secretsSealed: deps.secrets.seal(driveToken),
    items: files.map((file) => ({
      externalId: file.id,
      name: file.name,
      payload: { requested: { type: file.type, url: file.url, service_id: file.serviceId } },
    })),
  });
}
