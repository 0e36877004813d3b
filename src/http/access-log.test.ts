import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';

describe('the access log', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('writes one line a request, once answered, with what was asked, the status and the time taken', async () => {
    const response = await testApp.app.inject({
      url: '/?code=s3cret-code&x=1',
      headers: { 'x-request-id': 'access-log-1' },
    });
    expect(response.statusCode).toBe(200);
    const lines = testApp.logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.request_id === 'access-log-1');
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        req: expect.objectContaining({ method: 'GET', url: '/?code=[redacted]&x=1' }),
        res: expect.objectContaining({ statusCode: 200 }),
        responseTime: expect.any(Number),
      }),
    ]);
  });

  it("keeps to a route's own log level, and never writes a header", async () => {
    const probe = await testApp.app.inject({ url: '/healthz', headers: { 'x-request-id': 'access-log-2' } });
    expect(probe.statusCode).toBe(200);
    const secret = 'Bearer access-log-secret-token';
    const search = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: { 'x-request-id': 'access-log-3', authorization: secret },
      payload: { query: 'anything' },
    });
    expect(search.statusCode).toBe(401);
    const entries = testApp.logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    // /healthz logs at warn: an orchestrator's probes fill no log.
    expect(entries.filter((entry) => entry.request_id === 'access-log-2')).toEqual([]);
    expect(entries.filter((entry) => entry.request_id === 'access-log-3')).toEqual([
      expect.objectContaining({ msg: 'request completed', res: { statusCode: 401 } }),
    ]);
    expect(testApp.logLines.join('\n')).not.toContain('access-log-secret-token');
  });
});
