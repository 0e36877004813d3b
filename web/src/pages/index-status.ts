import type { JobFailure, JobProgress, ListedJob } from '../api/jobs';
import { reasonWords } from '../format/status-words';
import type { PollOutcome } from '../lib/poller';

/** Refreshed this often while a job is queued or running… */
export const ACTIVE_POLL_MS = 2000;
/** …this often when none is (a job started elsewhere: a wiki sync, another person's upload)… */
export const IDLE_POLL_MS = 15_000;
/** …and this long after a refresh failed (an outage, a lost connection). */
export const RETRY_POLL_MS = 5000;
/** Finished jobs shown a page at a time. */
export const FINISHED_PAGE_SIZE = 20;

/** What the page shows: the jobs queued or running, and a page of finished ones. */
export interface IndexStatus {
  active: ListedJob[];
  finished: ListedJob[];
}

export function isActive(job: ListedJob): boolean {
  return job.status === 'queued' || job.status === 'running';
}

/**
 * The two listings, read one after the other, as one picture: a job that finished between them may
 * be in both (it is finished) or in neither (it shows at the next refresh).
 */
export function indexStatusFrom(active: readonly ListedJob[], finished: readonly ListedJob[]): IndexStatus {
  const finishedIds = new Set(finished.map((job) => job.result_id));
  return {
    active: active.filter((job) => isActive(job) && !finishedIds.has(job.result_id)),
    finished: [...finished],
  };
}

/** Quickly while something is being indexed, slowly otherwise, a little later after a failure. */
export function nextPollDelay(outcome: PollOutcome<IndexStatus>): number {
  if (!outcome.ok) return RETRY_POLL_MS;
  return outcome.value.active.length > 0 ? ACTIVE_POLL_MS : IDLE_POLL_MS;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** What the job indexes, in words: "Upload of notes.md and 2 more files", "Confluence sync". */
export function jobName(job: ListedJob): string {
  const first = job.first_file_name;
  const others = job.progress.total - 1;
  const more = first === null || others <= 0 ? '' : ` and ${plural(others, 'more file', 'more files')}`;
  if (job.kind === 'upload') return first === null ? 'Upload' : `Upload of ${first}${more}`;
  if (job.kind === 'googledrive') return first === null ? 'Google Drive' : `Google Drive: ${first}${more}`;
  if (job.kind === 'wiki') {
    return job.progress.total === 0
      ? 'Confluence sync'
      : `Confluence sync of ${plural(job.progress.total, 'page', 'pages')}`;
  }
  return first === null ? job.kind : `${job.kind}: ${first}${more}`;
}

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A job's time as the reader's locale writes it, to the second (jobs are minutes apart or less). */
export function formatJobTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : timeFormat.format(date);
}

/** A job told apart from the others: what it indexes and when it was asked for. */
export function jobDescription(job: ListedJob): string {
  return `${jobName(job)}, ${formatJobTime(job.created_at)}`;
}

/** A job's counts; a single job's view (GET /v1/jobs/{id}) has no `pending`. */
type CountedProgress = Omit<JobProgress, 'pending'> & { pending?: number };

/** The files done so far, by outcome: "1 indexed, 1 failed"; "no files" for none. */
export function countsWords(progress: CountedProgress): string {
  const parts: string[] = [];
  if (progress.indexed > 0) parts.push(`${progress.indexed} indexed`);
  if (progress.skipped > 0) parts.push(`${progress.skipped} skipped`);
  if (progress.failed > 0) parts.push(`${progress.failed} failed`);
  if (parts.length > 0) return parts.join(', ');
  return progress.total === 0 ? 'no files' : 'none done yet';
}

/** What the words of a job's progress need: any job view (listed or single) has it. */
type JobOutline = { status: string; progress: CountedProgress };

/** A job under way, in words: how far it is, beside its progress bar. */
export function progressWords(job: JobOutline): string {
  const { done, total } = job.progress;
  if (job.status === 'queued')
    return total === 0 ? 'waiting to start' : `waiting to start: ${plural(total, 'file', 'files')}`;
  if (total === 0) return 'listing the files…';
  const far = `${done} of ${plural(total, 'file', 'files')} done`;
  return done === 0 ? far : `${far}: ${countsWords(job.progress)}`;
}

/** A finished job's outcome in words: "completed: 1 indexed, 1 failed". */
export function finishedWords(job: JobOutline): string {
  return `${job.status}: ${countsWords(job.progress)}`;
}

/** Why a file failed, in words: the reason's words, else the service's message. */
export function failureWords(failure: JobFailure): string {
  if (failure.reason !== null && failure.reason !== '') return reasonWords(failure.reason);
  if (failure.message !== null && failure.message !== '') return failure.message;
  return 'failed';
}

/** The failed files a job has beyond those listed with it, in words; undefined when none. */
export function moreFailuresWords(job: ListedJob): string | undefined {
  const more = job.progress.failed - job.failures.length;
  return more > 0 ? `and ${plural(more, 'more failed file', 'more failed files')}` : undefined;
}

/**
 * What to announce after a refresh: each job that was under way before and is now among the
 * finished ones ("Upload of notes.md, … finished: completed: 1 indexed").
 */
export function finishedSince(
  previouslyActive: ReadonlySet<string>,
  status: IndexStatus,
): string | undefined {
  const words = status.finished
    .filter((job) => previouslyActive.has(job.result_id))
    .map((job) => `${jobDescription(job)} finished: ${finishedWords(job)}.`);
  return words.length === 0 ? undefined : words.join(' ');
}
