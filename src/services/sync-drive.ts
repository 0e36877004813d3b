import {
  AccessTokenRefreshError,
  type RefreshFailureKind,
  refreshAccessToken,
} from '../adapters/token-endpoint/refresh-access-token.js';
import type { Config } from '../config.js';
import type { DriveSyncUser, DueDriveConnector } from '../db/repositories/drive-sync.js';
import type { ServiceDependencies } from './dependencies.js';
import { driveIndexRequest } from './index-drive-files.js';
import { queueIndexJob } from './queue-index-job.js';

/**
 * The `provider` of the registration accounts whose refresh tokens are Google's (Auth.js names its
 * Google provider so; the registration stores whatever the front end sends).
 */
export const GOOGLE_ACCOUNT_PROVIDERS: readonly string[] = ['google'];

/** Connectors one round claims at most; the rest are due at the next round, a minute later. */
const CONNECTORS_PER_ROUND = 100;

/** Where and as whom the worker trades refresh tokens: the service's Google OAuth client. */
export interface DriveSyncClient {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * The Google client the re-sync refreshes tokens with (GOOGLE_CLIENT_ID/SECRET and
 * GOOGLE_TOKEN_URL, or the `googledrive` entry of OAUTH_PROXY_CLIENT_CREDENTIALS); undefined when
 * none is configured, and then nothing is re-synced.
 */
export function driveSyncClient(config: Config): DriveSyncClient | undefined {
  const credentials = config.oauthProxy.clientCredentials.googledrive;
  const tokenUrl = credentials?.tokenUrls[0];
  if (credentials === undefined || tokenUrl === undefined) return undefined;
  return { tokenUrl, clientId: credentials.clientId, clientSecret: credentials.clientSecret };
}

/** One member's re-sync queued (or an active job with the same request answered instead). */
export interface QueuedDriveSync {
  readonly connectorId: number;
  readonly teamId: number;
  readonly userId: number;
  readonly jobId: string;
  /** Drive entries (files and folders) the job re-indexes. */
  readonly entries: number;
}

/** One member's re-sync not queued; `detail` carries no token, secret or provider free text. */
export interface SkippedDriveSync {
  readonly connectorId: number;
  readonly teamId: number;
  readonly userId: number;
  /** Why: the refresh failed (`revoked`: the member must sign in again), or the stored token cannot be opened. */
  readonly reason: RefreshFailureKind | 'unreadable_token';
  readonly detail: string;
}

/** What one round did. */
export interface DriveSyncRound {
  /** Connectors claimed (and marked synced) this round. */
  readonly connectors: number;
  readonly queued: readonly QueuedDriveSync[];
  readonly skipped: readonly SkippedDriveSync[];
}

const NOTHING: DriveSyncRound = { connectors: 0, queued: [], skipped: [] };

/**
 * The worker's schedule (every minute): re-syncs every Drive connector not synced for
 * `intervalMinutes` (DRIVE_SYNC_INTERVAL_MINUTES), so that sharing changes, which leave a file's
 * `modifiedTime` alone, reach its access list. For each member who indexed Drive entries into the
 * connector and registered a Google refresh token, the token is traded for an access token and
 * ONE index job is queued as that member over the union of the entries they picked, exactly as
 * `indexDriveFiles` queues it with a fresh token (same request, same request hash: while a job for
 * the same entries is queued or running in the team, that one stands and nothing is added).
 * Unchanged files are not re-embedded: the pipeline compares Drive's modifiedTime and checksum.
 *
 * Each connector is claimed (marked synced) before its members are handled, so concurrent workers
 * never re-sync one twice and a connector whose refreshes all fail waits a whole interval. A failed
 * refresh (a revoked token: 400 `invalid_grant`) skips that member and is reported in the answer for
 * the worker to log; the other members and connectors go on. Other errors (the database) reject.
 * Nothing happens without a Google client configured or with an interval of 0.
 */
export async function queueDueDriveSyncs(
  deps: ServiceDependencies,
  intervalMinutes: number,
): Promise<DriveSyncRound> {
  const client = driveSyncClient(deps.config);
  if (client === undefined || !(intervalMinutes > 0)) return NOTHING;
  const now = deps.now();
  const cutoff = new Date(now.getTime() - intervalMinutes * 60_000);
  const due = await deps.data.driveSync.listDriveConnectorsDueSync(cutoff, CONNECTORS_PER_ROUND);
  let connectors = 0;
  const queued: QueuedDriveSync[] = [];
  const skipped: SkippedDriveSync[] = [];
  for (const connector of due) {
    // Another worker took it since the listing.
    if (!(await deps.data.driveSync.claimDriveConnectorSync(connector.id, cutoff, now))) continue;
    connectors += 1;
    const users = await deps.data.driveSync.listDriveSyncUsers(
      connector.id,
      connector.teamId,
      GOOGLE_ACCOUNT_PROVIDERS,
    );
    for (const user of users) {
      const outcome = await syncMember(deps, client, connector, user);
      if (outcome === undefined) continue;
      if ('jobId' in outcome) queued.push(outcome);
      else skipped.push(outcome);
    }
  }
  return { connectors, queued, skipped };
}

/** One member's re-sync of one connector; undefined when they have nothing left to re-index. */
async function syncMember(
  deps: ServiceDependencies,
  client: DriveSyncClient,
  connector: DueDriveConnector,
  user: DriveSyncUser,
): Promise<QueuedDriveSync | SkippedDriveSync | undefined> {
  const who = { connectorId: connector.id, teamId: connector.teamId, userId: user.userId };
  const entries = await deps.data.driveSync.listRequestedDriveEntries(
    connector.id,
    connector.teamId,
    user.userId,
  );
  // No refresh (a call to Google) for a member whose picks no longer bring anything in.
  if (entries.length === 0) return undefined;
  let refreshToken: string;
  try {
    refreshToken = deps.secrets.open(user.refreshTokenSealed);
  } catch {
    // Sealed with another ENCRYPTION_KEY: only a new sign-in stores one we can open.
    return {
      ...who,
      reason: 'unreadable_token',
      detail: 'The stored refresh token cannot be decrypted with this ENCRYPTION_KEY',
    };
  }
  let accessToken: string;
  try {
    const refreshed = await refreshAccessToken(deps.tokenEndpoint, { ...client, refreshToken });
    accessToken = refreshed.accessToken;
    if (refreshed.refreshToken !== undefined) {
      // A provider that rotates refresh tokens has just invalidated the stored one (RFC 6749 §6).
      await deps.data.driveSync.replaceAccountRefreshToken(
        user.accountId,
        deps.secrets.seal(refreshed.refreshToken),
      );
    }
  } catch (error) {
    if (!(error instanceof AccessTokenRefreshError)) throw error;
    return { ...who, reason: error.kind, detail: error.message };
  }
  const job = await queueIndexJob(deps, {
    teamId: connector.teamId,
    connectorId: connector.id,
    kind: 'googledrive',
    requestedBy: user.userId,
    ...driveIndexRequest(entries),
    secretsSealed: deps.secrets.seal(accessToken),
  });
  return { ...who, jobId: job.result_id, entries: entries.length };
}
