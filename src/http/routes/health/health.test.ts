import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/test-app.js';

describe('health endpoints', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('answers /healthz and /readyz without a token', async () => {
    const health = await testApp.app.inject({ url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await testApp.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('tells /readyz failures apart once the database is closed', async () => {
    const other = await startTestApp();
    await other.runtime.queue.stop();
    await other.runtime.database.close();
    const ready = await other.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ detail: 'The database is unavailable; try again shortly' });
    expect(ready.headers['retry-after']).toBe('5');
    await other.app.close();
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const openapi = await testApp.app.inject({ url: '/openapi.json' });
    expect(openapi.statusCode).toBe(200);
    const document = openapi.json() as { paths: Record<string, unknown> };
    for (const path of [
      '/v1/connectors/{connector_slug}/{connector_id}',
      '/v1/oauth-proxy/token',
      '/v2/users/register',
      '/v1/chats/{chat_id}',
      '/v1/wiki/config',
    ]) {
      expect(document.paths).toHaveProperty([path]);
    }
    const docs = await testApp.app.inject({ url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });

  it('answers unknown routes with 404 in FastAPI shape', async () => {
    const response = await testApp.app.inject({ url: '/nope' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: 'Not Found' });
  });
});
