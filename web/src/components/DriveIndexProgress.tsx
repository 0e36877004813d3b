import { useEffect, useId, useState } from 'react';
import { followJob } from '../api/connectors';
import { describeError, isAbort } from '../api/http';
import type { IndexJob } from '../api/types';
import { finishedWords, progressWords } from '../pages/index-status';
import { Link } from '../router/Link';
import { FailedFiles } from './FailedFiles';

/** The Drive indexing job just queued, followed until it ends: a progress bar, then its outcome. */
export function DriveIndexProgress({ resultId, onFinished }: { resultId: string; onFinished: () => void }) {
  const [job, setJob] = useState<IndexJob | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const wordsId = useId();

  useEffect(() => {
    const controller = new AbortController();
    setJob(undefined);
    setError(undefined);
    followJob(resultId, setJob, controller.signal).then(onFinished, (failure: unknown) => {
      if (!isAbort(failure)) setError(`Following the indexing failed: ${describeError(failure)}`);
    });
    return () => controller.abort();
  }, [resultId, onFinished]);

  const finished = job?.result_ready === true;
  const words =
    job === undefined
      ? 'Indexing queued…'
      : finished
        ? `Indexing ${finishedWords(job)}.`
        : `Indexing: ${progressWords(job)}.`;
  const total = job?.progress.total ?? 0;
  return (
    <div className="sync-progress">
      <progress
        aria-label="Indexing progress"
        aria-describedby={wordsId}
        {...(total > 0 ? { max: total, value: job?.progress.done ?? 0 } : {})}
      />
      {/* Announced when it changes: queued, under way, the outcome. */}
      <p
        id={wordsId}
        role="status"
        className={job?.status === 'failed' ? 'sync-words status-failed' : 'sync-words'}
      >
        {words}
      </p>
      {finished ? <FailedFiles files={job.files} label="Files that failed" /> : null}
      {finished ? (
        <p>
          <Link to="/documents">See the documents</Link>
        </p>
      ) : null}
      {error === undefined ? null : (
        <p role="alert" className="error-text">
          {error}
        </p>
      )}
    </div>
  );
}
