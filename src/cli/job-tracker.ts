import { type ApiClient, detailOf } from './api-client.js';
import { FatalError } from './cli-errors.js';
import type { OutcomeStatus, Outcomes } from './outcomes.js';

interface TrackedJob {
  readonly id: string;
  /** Documents or files the job was given. */
  readonly items: number;
  /** Of those, how many it has finished, as last polled. */
  done: number;
}

interface JobFileView {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly reason: string | null;
  readonly message: string | null;
}

interface JobView {
  readonly ready: boolean;
  readonly done: number;
  readonly error: string | null;
  readonly files: JobFileView[];
}

/** Jobs polled per round: the oldest unfinished, which a worker takes first; the rest wait their turn. */
const DEFAULT_POLL_WINDOW = 8;

/** Follows the upload jobs a run queued, and records each file's outcome once its job is done. */
export class JobTracker {
  /** In the order they were queued. */
  private readonly unfinished: TrackedJob[] = [];
  readonly jobIds: string[] = [];
  /** Documents and files handed to jobs. */
  queuedItems = 0;

  constructor(
    private readonly client: ApiClient,
    private readonly outcomes: Outcomes,
    private readonly pollWindow = DEFAULT_POLL_WINDOW,
  ) {}

  add(jobId: string, items: number): void {
    this.unfinished.push({ id: jobId, items, done: 0 });
    this.jobIds.push(jobId);
    this.queuedItems += items;
  }

  /** Jobs not yet completed or failed. */
  get pending(): number {
    return this.unfinished.length;
  }

  /** Items the unfinished jobs have already finished. */
  get doneInPendingJobs(): number {
    return this.unfinished.reduce((total, job) => total + job.done, 0);
  }

  /** Items in unfinished jobs. */
  get itemsInPendingJobs(): number {
    return this.unfinished.reduce((total, job) => total + job.items, 0);
  }

  /** Asks the service about the oldest unfinished jobs, one request after another (gently). */
  async pollOnce(): Promise<void> {
    for (const job of this.unfinished.slice(0, this.pollWindow)) {
      const response = await this.client.get(`v1/documents/jobs/${encodeURIComponent(job.id)}`);
      if (response.status === 401 || response.status === 403) {
        throw new FatalError(
          `the service refused the token (${response.status}): ${detailOf(response.body)}`,
        );
      }
      if (response.status === 404) {
        this.settle(job);
        for (let item = 0; item < job.items; item += 1) {
          this.outcomes.record({
            status: 'failed',
            id: null,
            name: `job ${job.id}`,
            reason: 'job_not_found',
            message: 'The service no longer knows this job',
          });
        }
        continue;
      }
      // Anything else (a 5xx after the retries) is asked again next round. An outage (503, refused
      // connections) is waited out inside client.get, for up to --max-wait, then stops the run.
      if (response.status !== 200) continue;
      const view = jobViewOf(response.body);
      if (view === undefined) continue;
      job.done = view.done;
      if (!view.ready) continue;
      this.settle(job);
      for (const file of view.files) {
        const final = file.status === 'indexed' || file.status === 'skipped' || file.status === 'failed';
        this.outcomes.record({
          status: final ? (file.status as OutcomeStatus) : 'failed',
          id: file.id,
          name: file.name,
          reason: final ? file.reason : 'internal_error',
          message: final ? file.message : (view.error ?? `The job ended with this file ${file.status}`),
        });
      }
    }
  }

  private settle(job: TrackedJob): void {
    this.unfinished.splice(this.unfinished.indexOf(job), 1);
  }
}

function jobViewOf(body: unknown): JobView | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const view = body as Record<string, unknown>;
  const progress = view.progress as Record<string, unknown> | undefined;
  if (!Array.isArray(view.files)) return undefined;
  return {
    ready: view.result_ready === true,
    done: typeof progress?.done === 'number' ? progress.done : 0,
    error: typeof view.error === 'string' ? view.error : null,
    files: view.files.map((entry: unknown) => {
      const file = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
      return {
        id: String(file.id ?? ''),
        name: String(file.name ?? file.id ?? ''),
        status: String(file.status ?? ''),
        reason: typeof file.reason === 'string' ? file.reason : null,
        message: typeof file.message === 'string' ? file.message : null,
      };
    }),
  };
}
