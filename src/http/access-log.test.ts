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
});
