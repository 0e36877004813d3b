import { describe, expect, it } from 'vitest';
import type { ListedJob } from '../api/jobs';
import { matchRoute } from '../router/routes';
import {
  ACTIVE_POLL_MS,
  countsWords,
  failureWords,
  finishedSince,
  finishedWords,
  formatJobTime,
  IDLE_POLL_MS,
  indexStatusFrom,
  jobDescription,
  jobName,
  moreFailuresWords,
  nextPollDelay,
  progressWords,
  RETRY_POLL_MS,
} from './index-status';

function job(
  fields: Partial<Omit<ListedJob, 'progress'>> & { progress?: Partial<ListedJob['progress']> } = {},
): ListedJob {
  const { progress, ...rest } = fields;
  return {
    result_id: 'job-1',
    result_ready: false,
    status: 'running',
    kind: 'upload',
    connector_id: null,
    error: null,
    first_file_name: 'notes.md',
    failures: [],
    created_at: '2026-11-24T10:42:05.000Z',
    updated_at: '2026-11-24T10:42:05.000Z',
    finished_at: null,
    ...rest,
    progress: { done: 0, total: 1, indexed: 0, skipped: 0, failed: 0, pending: 1, ...progress },
  };
}

const brokenPdf = {
  id: 'broken.pdf',
  name: 'broken.pdf',
  status: 'failed',
  reason: 'parse_error',
  message: 'the PDF file could not be read: Invalid PDF structure',
  chunks: 0,
  document_id: null,
};

describe('the index status page', () => {
  it('is at /jobs', () => {
    expect(matchRoute('/jobs')).toEqual({ page: 'jobs' });
    expect(matchRoute('/jobs/')).toEqual({ page: 'jobs' });
    expect(matchRoute('/jobs/anything')).toEqual({ page: 'not-found' });
  });

  it('names a job by its source and first file, and tells when it was asked for', () => {
    expect(jobName(job())).toBe('Upload of notes.md');
    expect(jobName(job({ progress: { total: 3 } }))).toBe('Upload of notes.md and 2 more files');
    expect(jobName(job({ progress: { total: 2 } }))).toBe('Upload of notes.md and 1 more file');
    expect(jobName(job({ first_file_name: null, progress: { total: 0 } }))).toBe('Upload');
    expect(jobName(job({ kind: 'googledrive', first_file_name: 'Roadmap', progress: { total: 120 } }))).toBe(
      'Google Drive: Roadmap and 119 more files',
    );
    expect(jobName(job({ kind: 'wiki', first_file_name: 'Onboarding', progress: { total: 12 } }))).toBe(
      'Confluence sync of 12 pages',
    );
    expect(jobName(job({ kind: 'wiki', first_file_name: null, progress: { total: 0 } }))).toBe(
      'Confluence sync',
    );
    expect(jobDescription(job())).toBe(`Upload of notes.md, ${formatJobTime('2026-11-24T10:42:05.000Z')}`);
    expect(formatJobTime('2026-11-24T10:42:05.000Z')).toMatch(/05/); // to the second
    expect(formatJobTime('not a date')).toBe('not a date');
  });

  it('says how far a job under way is', () => {
    expect(progressWords(job({ status: 'queued', progress: { total: 0 } }))).toBe('waiting to start');
    expect(progressWords(job({ status: 'queued', progress: { total: 2 } }))).toBe(
      'waiting to start: 2 files',
    );
    expect(progressWords(job({ status: 'running', progress: { total: 0 } }))).toBe('listing the files…');
    expect(progressWords(job({ progress: { total: 10 } }))).toBe('0 of 10 files done');
    expect(progressWords(job({ progress: { total: 10, done: 3, indexed: 2, failed: 1 } }))).toBe(
      '3 of 10 files done: 2 indexed, 1 failed',
    );
  });

  it('says how a finished job ended and why each file failed, in words', () => {
    const finished = job({
      status: 'completed',
      progress: { total: 2, done: 2, indexed: 1, failed: 1, pending: 0 },
      failures: [brokenPdf],
    });
    expect(finishedWords(finished)).toBe('completed: 1 indexed, 1 failed');
    expect(countsWords({ total: 3, done: 3, indexed: 0, skipped: 3, failed: 0, pending: 0 })).toBe(
      '3 skipped',
    );
    expect(countsWords({ total: 0, done: 0, indexed: 0, skipped: 0, failed: 0, pending: 0 })).toBe(
      'no files',
    );
    expect(failureWords(brokenPdf)).toBe('its content could not be read');
    expect(failureWords({ ...brokenPdf, reason: null })).toBe(brokenPdf.message);
    expect(failureWords({ ...brokenPdf, reason: null, message: null })).toBe('failed');
    expect(moreFailuresWords(finished)).toBeUndefined();
    expect(moreFailuresWords(job({ progress: { failed: 7 }, failures: [brokenPdf] }))).toBe(
      'and 6 more failed files',
    );
    expect(moreFailuresWords(job({ progress: { failed: 2 }, failures: [brokenPdf] }))).toBe(
      'and 1 more failed file',
    );
  });

  it('shows a job that finished between the two listings as finished, once', () => {
    const running = job({ result_id: 'a' });
    const done = job({ result_id: 'b', status: 'completed' });
    const status = indexStatusFrom([running, job({ result_id: 'b' })], [done]);
    expect(status.active.map((entry) => entry.result_id)).toEqual(['a']);
    expect(status.finished.map((entry) => entry.result_id)).toEqual(['b']);
  });

  it('refreshes every 2 s while a job is under way, slower otherwise, and retries after a failure', () => {
    const busy = { active: [job()], finished: [] };
    const idle = { active: [], finished: [job({ status: 'completed' })] };
    expect(nextPollDelay({ ok: true, value: busy })).toBe(ACTIVE_POLL_MS);
    expect(ACTIVE_POLL_MS).toBe(2000);
    expect(nextPollDelay({ ok: true, value: idle })).toBe(IDLE_POLL_MS);
    expect(IDLE_POLL_MS).toBeGreaterThan(ACTIVE_POLL_MS);
    expect(nextPollDelay({ ok: false, error: new Error('offline') })).toBe(RETRY_POLL_MS);
  });

  it('announces the jobs that finished since the last refresh', () => {
    const done = job({
      result_id: 'a',
      status: 'completed',
      progress: { total: 1, done: 1, failed: 1, pending: 0 },
    });
    const status = { active: [], finished: [done, job({ result_id: 'old', status: 'completed' })] };
    expect(finishedSince(new Set(['a']), status)).toBe(
      `${jobDescription(done)} finished: completed: 1 failed.`,
    );
    expect(finishedSince(new Set(), status)).toBeUndefined();
  });
});
