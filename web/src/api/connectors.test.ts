import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Connector, followJob, wikiSettings } from './connectors';
import { ApiError } from './http';
import type { IndexJob } from './types';

function job(status: string, done: number, total: number): IndexJob {
  return {
    result_id: 'job-1',
    result_ready: status === 'completed' || status === 'failed',
    status,
    kind: 'wiki',
    progress: { done, total, indexed: done, skipped: 0, failed: 0 },
    error: null,
    files: [],
  };
}

function answer(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

describe('followJob', () => {
  const fetchMock = vi.fn<(input: string, init?: RequestInit) => Promise<Response>>();
  const timing = { intervalMs: 1, retryMs: 1 };

  beforeEach(() => {
    vi.stubGlobal('window', { location: { origin: 'http://app.test' } });
    vi.stubGlobal('fetch', fetchMock);
    fetchMock.mockReset();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('polls GET /v1/jobs/{id} until the job is ready, reporting each view', async () => {
    fetchMock
      .mockResolvedValueOnce(answer(200, job('queued', 0, 0)))
      .mockResolvedValueOnce(answer(200, job('running', 1, 3)))
      .mockResolvedValueOnce(answer(200, job('completed', 3, 3)));
    const seen: string[] = [];
    const last = await followJob(
      'job-1',
      (view) => seen.push(`${view.status} ${view.progress.done}`),
      undefined,
      timing,
    );
    expect(last.status).toBe('completed');
    expect(seen).toEqual(['queued 0', 'running 1', 'completed 3']);
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual([
      '/v1/jobs/job-1',
      '/v1/jobs/job-1',
      '/v1/jobs/job-1',
    ]);
  });

  it('rides out an outage (503) and a lost connection, but not a missing job', async () => {
    fetchMock
      .mockResolvedValueOnce(answer(503, { detail: 'The database is unavailable; try again shortly' }))
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockResolvedValueOnce(answer(200, job('completed', 2, 2)));
    expect((await followJob('job-1', () => {}, undefined, timing)).status).toBe('completed');

    fetchMock.mockResolvedValueOnce(answer(404, { detail: 'Job not found' }));
    const refused = followJob('job-1', () => {}, undefined, timing);
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ status: 404, detail: 'Job not found' });
  });

  it('stops when its signal is aborted', async () => {
    fetchMock.mockResolvedValue(answer(200, job('running', 0, 5)));
    const controller = new AbortController();
    const following = followJob('job-1', () => controller.abort(), controller.signal, {
      intervalMs: 10_000,
      retryMs: 1,
    });
    await expect(following).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('wikiSettings', () => {
  it("reads a wiki connector's non-secret settings, blank where absent", () => {
    const connector = {
      config: { base_url: 'https://acme.atlassian.net/wiki', username: 'ann@acme.com', space_key: 'ENG' },
    } as unknown as Connector;
    expect(wikiSettings(connector)).toEqual({
      baseUrl: 'https://acme.atlassian.net/wiki',
      username: 'ann@acme.com',
      spaceKey: 'ENG',
    });
    expect(wikiSettings({ config: {} } as unknown as Connector)).toEqual({
      baseUrl: '',
      username: '',
      spaceKey: '',
    });
  });
});
