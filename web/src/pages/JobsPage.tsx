import { useEffect, useRef, useState } from 'react';
import { JOBS_LIMIT_MAX, listJobs } from '../api/jobs';
import { ErrorAlert, Loading } from '../components/ErrorAlert';
import { FinishedJob, RunningJob } from '../components/IndexJobs';
import { Pager } from '../components/Pager';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { usePolling } from '../hooks/usePolling';
import { Link } from '../router/Link';
import {
  ACTIVE_POLL_MS,
  FINISHED_PAGE_SIZE,
  finishedSince,
  type IndexStatus,
  indexStatusFrom,
  nextPollDelay,
} from './index-status';

async function loadIndexStatus(offset: number, signal: AbortSignal): Promise<IndexStatus> {
  const [active, finished] = await Promise.all([
    listJobs({ status: 'active', limit: JOBS_LIMIT_MAX, signal }),
    listJobs({ status: 'finished', limit: FINISHED_PAGE_SIZE, offset, signal }),
  ]);
  return indexStatusFrom(active, finished);
}

/** Words for the jobs that finished since the last refresh, for the page's live region. */
function useFinishedAnnouncement(status: IndexStatus | undefined): string {
  const previouslyActive = useRef<ReadonlySet<string>>(new Set());
  const [announcement, setAnnouncement] = useState('');
  useEffect(() => {
    if (status === undefined) return;
    const words = finishedSince(previouslyActive.current, status);
    if (words !== undefined) setAnnouncement(words);
    previouslyActive.current = new Set(status.active.map((job) => job.result_id));
  }, [status]);
  return announcement;
}

/**
 * The team's indexing jobs: those under way with their progress, then the finished ones with their
 * failures, refreshed every 2 s while a job runs (slower otherwise, never while the tab is hidden).
 */
export function JobsPage() {
  useDocumentTitle('Index status');
  const [offset, setOffset] = useState(0);
  const polled = usePolling(`jobs|${offset}`, (signal) => loadIndexStatus(offset, signal), nextPollDelay);
  const status = polled.value;
  const announcement = useFinishedAnnouncement(status);
  const nothingYet =
    status !== undefined && offset === 0 && status.active.length === 0 && status.finished.length === 0;

  return (
    <>
      <h1>Index status</h1>
      <p className="muted">
        Your team's indexing jobs: uploads, Google Drive and Confluence. Refreshed every{' '}
        {ACTIVE_POLL_MS / 1000} seconds while a job runs.
      </p>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {polled.error === undefined ? null : (
        <ErrorAlert
          message={`The index status could not be ${status === undefined ? 'loaded' : 'refreshed'}: ${polled.error}`}
        >
          <p>It is tried again every few seconds.</p>
          <button type="button" className="button-secondary" onClick={polled.refresh}>
            Try again
          </button>
        </ErrorAlert>
      )}
      {status === undefined && polled.error === undefined ? (
        <Loading label="Loading the index status…" />
      ) : null}
      {nothingYet ? (
        <p>
          Nothing has been indexed yet. Upload files on the <Link to="/documents">Documents</Link> page or
          connect a source on the <Link to="/connectors">Connectors</Link> page, and each indexing job shows
          here with its progress.
        </p>
      ) : null}
      {status === undefined || nothingYet ? null : (
        <>
          <section className="panel" aria-labelledby="jobs-running-heading">
            <h2 id="jobs-running-heading">Running</h2>
            {status.active.length === 0 ? (
              <p className="muted">Nothing is being indexed right now.</p>
            ) : (
              <ul className="jobs" aria-label="Running jobs">
                {status.active.map((job) => (
                  <RunningJob key={job.result_id} job={job} />
                ))}
              </ul>
            )}
          </section>
          <section className="panel" aria-labelledby="jobs-finished-heading">
            <h2 id="jobs-finished-heading">Finished</h2>
            {status.finished.length === 0 ? (
              <p className="muted">{offset === 0 ? 'No job has finished yet.' : 'No older jobs.'}</p>
            ) : (
              <ul className="jobs" aria-label="Finished jobs">
                {status.finished.map((job) => (
                  <FinishedJob key={job.result_id} job={job} />
                ))}
              </ul>
            )}
            {offset === 0 && status.finished.length < FINISHED_PAGE_SIZE ? null : (
              <Pager
                offset={offset}
                pageSize={FINISHED_PAGE_SIZE}
                hasNext={status.finished.length >= FINISHED_PAGE_SIZE}
                previousLabel="Newer jobs"
                nextLabel="Older jobs"
                onOffsetChange={setOffset}
              />
            )}
          </section>
        </>
      )}
    </>
  );
}
