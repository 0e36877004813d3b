import { useId } from 'react';
import type { ListedJob } from '../api/jobs';
import {
  countsWords,
  failureWords,
  formatJobTime,
  jobDescription,
  moreFailuresWords,
  progressWords,
} from '../pages/index-status';
import { BreakableName } from './BreakableName';

/** A job's failed files, each by name with why in words; the count of those not listed. */
function JobFailures({ job, description }: { job: ListedJob; description: string }) {
  if (job.failures.length === 0) return null;
  const more = moreFailuresWords(job);
  return (
    <>
      <ul className="job-failures" aria-label={`Failed files of ${description}`}>
        {job.failures.map((failure) => (
          <li key={failure.id}>
            <span className="job-failure-name">
              <BreakableName text={failure.name} />
            </span>
            : <span className="status-failed">{failureWords(failure)}</span>
            {failure.reason !== null && failure.message !== null && failure.message !== '' ? (
              <span className="muted"> ({failure.message})</span>
            ) : null}
          </li>
        ))}
      </ul>
      {more === undefined ? null : <p className="job-more muted">{more}</p>}
    </>
  );
}

/** A job queued or running: its progress bar (done of total files), named by the job. */
export function RunningJob({ job }: { job: ListedJob }) {
  const nameId = useId();
  const wordsId = useId();
  const description = jobDescription(job);
  const { done, total } = job.progress;
  return (
    <li className="job">
      <span id={nameId} className="job-name">
        <BreakableName text={description} />
      </span>
      {/* Without files yet (a folder being listed) the bar is indeterminate: no value. */}
      <progress
        aria-labelledby={nameId}
        aria-describedby={wordsId}
        {...(total > 0 ? { max: total, value: done } : {})}
      />
      <span id={wordsId} className="job-words">
        {progressWords(job)}
      </span>
      <JobFailures job={job} description={description} />
    </li>
  );
}

/** A finished job: how it ended, its counts, and each failed file with its reason. */
export function FinishedJob({ job }: { job: ListedJob }) {
  const description = jobDescription(job);
  return (
    <li className="job">
      <h3 className="job-name">
        <BreakableName text={description} />
      </h3>
      <p className="job-words">
        <span className={`status ${job.status === 'failed' ? 'status-failed' : 'status-indexed'}`}>
          {job.status}
        </span>
        : {countsWords(job.progress)}
        {job.finished_at === null ? null : (
          <span className="muted">, finished {formatJobTime(job.finished_at)}</span>
        )}
      </p>
      {job.error === null ? null : <p className="job-error">{job.error}</p>}
      <JobFailures job={job} description={description} />
    </li>
  );
}
