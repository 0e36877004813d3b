import { useEffect, useState } from 'react';
import { type Connector, followJob, syncWikiConnector, wikiSettings } from '../api/connectors';
import { describeError, isAbort } from '../api/http';
import type { IndexJob } from '../api/types';
import { connectorStatusWords, lastSyncWords, syncProgress } from '../format/connectors';
import { FailedFiles } from './FailedFiles';

const QUEUED = 'Sync queued…';

interface WikiSyncPanelProps {
  connector: Connector;
  /** A sync to follow that started elsewhere (the first one, queued by saving the settings). */
  startedSync: string | undefined;
  /** The sync is over: the connector's status and last sync changed. */
  onSynced: () => void;
}

/**
 * The connected space: its status, last sync and document count, and "Sync now", which queues a
 * sync (or finds the one running) and follows its job until it finishes.
 */
export function WikiSyncPanel({ connector, startedSync, onSynced }: WikiSyncPanelProps) {
  const [followed, setFollowed] = useState<string | undefined>(startedSync);
  const [job, setJob] = useState<IndexJob | undefined>(undefined);
  const [syncError, setSyncError] = useState<string | undefined>(undefined);
  const settings = wikiSettings(connector);

  useEffect(() => {
    if (startedSync !== undefined) setFollowed(startedSync);
  }, [startedSync]);

  useEffect(() => {
    if (followed === undefined) return;
    const controller = new AbortController();
    setJob(undefined);
    followJob(followed, setJob, controller.signal).then(
      () => onSynced(),
      (error: unknown) => {
        if (!isAbort(error)) setSyncError(`Following the sync failed: ${describeError(error)}`);
      },
    );
    return () => controller.abort();
  }, [followed, onSynced]);

  async function syncNow() {
    setSyncError(undefined);
    try {
      const queued = await syncWikiConnector(connector.id);
      // The same job while one runs: it is followed already.
      setFollowed(queued.result_id);
    } catch (error) {
      setSyncError(`The sync could not start: ${describeError(error)}`);
    }
  }

  const following = followed !== undefined;
  const progress = job === undefined ? undefined : syncProgress(job);

  return (
    <div className="wiki-sync">
      <dl className="document-facts">
        <div>
          <dt>Space</dt>
          <dd>{settings.spaceKey}</dd>
        </div>
        <div>
          <dt>Site</dt>
          <dd>{settings.baseUrl}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{connectorStatusWords(connector.status)}</dd>
        </div>
        <div>
          <dt>Last sync</dt>
          <dd>{lastSyncWords(connector.last_synced_at)}</dd>
        </div>
        <div>
          <dt>Documents</dt>
          <dd>{connector.document_count}</dd>
        </div>
      </dl>
      <button type="button" className="button-secondary" onClick={syncNow}>
        Sync now
      </button>
      {syncError === undefined ? null : (
        <p role="alert" className="error-text">
          {syncError}
        </p>
      )}
      {/* Announced: the phase only (waiting, listing, syncing, the summary), not every page done. */}
      <p role="status" className="visually-hidden">
        {following ? (progress?.phase ?? QUEUED) : ''}
      </p>
      {following ? (
        <div className="sync-progress">
          <progress aria-label="Sync progress" max={progress?.max ?? 1} value={progress?.value} />
          <p className={progress?.failed === true ? 'sync-words status-failed' : 'sync-words'}>
            {progress?.words ?? QUEUED}
          </p>
          {job?.result_ready === true ? <FailedFiles files={job.files} label="Pages that failed" /> : null}
        </div>
      ) : null}
    </div>
  );
}
