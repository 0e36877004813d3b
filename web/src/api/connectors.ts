import { ApiError, requestJson, requestNothing } from './http';
import type { IndexJob, QueuedJob } from './types';

/** A file or page of a connector with its latest indexing outcome. */
export interface ConnectorFile {
  id: string;
  name: string;
  status: string;
  reason: string | null;
  chunks: number;
  url: string | null;
}

/** A connector as `GET /v1/connectors` lists it: no secrets, only its non-secret settings. */
export interface Connector {
  id: number;
  /** wiki (Confluence), googledrive or chatapp (Slack). */
  slug: string;
  name: string;
  team_id: number;
  created_at: string;
  updated_at: string;
  /** configured (saved, never synced) or active. */
  status: string;
  last_synced_at: string | null;
  document_count: number;
  config: Record<string, unknown>;
  files?: ConnectorFile[];
}

/** A wiki connector's settings (its `config`): never its token. */
export interface WikiSettings {
  baseUrl: string;
  username: string;
  spaceKey: string;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function wikiSettings(connector: Connector): WikiSettings {
  return {
    baseUrl: text(connector.config.base_url),
    username: text(connector.config.username),
    spaceKey: text(connector.config.space_key),
  };
}

/** GET /v1/connectors: the team's connectors, and what the server offers for connecting one. */
export interface ConnectorList {
  /** Oldest first. */
  connectors: Connector[];
  /** Whether the server has a wiki address of its own: a Confluence form may then leave its site empty. */
  wiki_base_url_configured: boolean;
}

/** GET /v1/connectors: the team's connectors, oldest first, and whether the server has its own wiki. */
export function listConnectors(signal?: AbortSignal): Promise<ConnectorList> {
  return requestJson<ConnectorList>('GET', '/v1/connectors', {
    ...(signal === undefined ? {} : { signal }),
  });
}

/** DELETE /v1/connectors/{slug}/{id}: the connector goes, with its documents (owners and admins only). */
export function deleteConnector(slug: string, connectorId: number): Promise<void> {
  return requestNothing('DELETE', `/v1/connectors/${encodeURIComponent(slug)}/${connectorId}`);
}

/** POST /v1/connectors/wiki/{id}/sync: queues a sync (or answers the one already queued or running). */
export function syncWikiConnector(connectorId: number): Promise<QueuedJob> {
  return requestJson<QueuedJob>('POST', `/v1/connectors/wiki/${connectorId}/sync`);
}

/** GET /v1/jobs/{result_id}: any index job of the team, with its progress and per-file outcome. */
export function getIndexJob(resultId: string, signal?: AbortSignal): Promise<IndexJob> {
  return requestJson<IndexJob>('GET', `/v1/jobs/${encodeURIComponent(resultId)}`, {
    ...(signal === undefined ? {} : { signal }),
  });
}

export interface FollowTiming {
  /** Between two looks at a running job. */
  intervalMs: number;
  /** After a look that met an outage (503) or a lost connection: tried again, not given up. */
  retryMs: number;
}

const FOLLOW_TIMING: FollowTiming = { intervalMs: 1000, retryMs: 3000 };

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(new DOMException('Stopped', 'AbortError'));
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new DOMException('Stopped', 'AbortError'));
      },
      { once: true },
    );
  });
}

/**
 * Follows a job until it is done (`result_ready`): `onUpdate` gets each view of it, the last one
 * too, which the promise also resolves to. A moment without the service is ridden out; any other
 * error (the job not found) ends it. `signal` stops following (an AbortError).
 */
export async function followJob(
  resultId: string,
  onUpdate: (job: IndexJob) => void,
  signal?: AbortSignal,
  timing: FollowTiming = FOLLOW_TIMING,
): Promise<IndexJob> {
  while (true) {
    let job: IndexJob;
    try {
      job = await getIndexJob(resultId, signal);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 503 && error.status !== 0)) throw error;
      await sleep(timing.retryMs, signal);
      continue;
    }
    onUpdate(job);
    if (job.result_ready) return job;
    await sleep(timing.intervalMs, signal);
  }
}
