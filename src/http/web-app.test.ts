import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';

const INDEX_HTML =
  '<!doctype html><html><head><script type="module" src="/assets/app-abc123.js"></script></head><body><div id="root"></div></body></html>';
const APP_JS = 'console.log("the app");';
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** A web build as Vite leaves it: index.html, hashed assets, a file copied from public/. */
function fakeWebBuild(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'web-build-'));
  mkdirSync(path.join(folder, 'assets'));
  writeFileSync(path.join(folder, 'index.html'), INDEX_HTML);
  writeFileSync(path.join(folder, 'assets', 'app-abc123.js'), APP_JS);
  // What the build writes beside each asset: the same bytes compressed.
  writeFileSync(path.join(folder, 'assets', 'app-abc123.js.br'), brotliCompressSync(APP_JS));
  writeFileSync(path.join(folder, 'assets', 'app-abc123.js.gz'), gzipSync(APP_JS));
  writeFileSync(path.join(folder, 'favicon.ico'), 'icon');
  // Beside the build, where a path that climbs out of it would land.
  writeFileSync(path.join(folder, '..', `${path.basename(folder)}-secret.txt`), 'secret');
  return folder;
}

describe('the web app, served from the web build', () => {
  let webDir: string;
  let testApp: TestApp;
  beforeAll(async () => {
    webDir = fakeWebBuild();
    testApp = await startTestApp({ env: { WEB_DIR: webDir } });
  });
  afterAll(async () => {
    await testApp.close();
    rmSync(webDir, { recursive: true, force: true });
    rmSync(`${webDir}-secret.txt`, { force: true });
  });

  const get = (url: string, headers: Record<string, string> = HTML) =>
    testApp.app.inject({ method: 'GET', url, headers });

  it('answers / with index.html, revalidated on every load, without sign-in', async () => {
    const response = await get('/');
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(INDEX_HTML);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers.etag).toBeDefined();
    const again = await get('/', { ...HTML, 'if-none-match': String(response.headers.etag) });
    expect(again.statusCode).toBe(304);
    const head = await testApp.app.inject({ method: 'HEAD', url: '/' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect((await get('/index.html')).headers['cache-control']).toBe('no-cache');
  });

  it('sends the strict security headers with the page: no inline script, nothing from elsewhere', async () => {
    const response = await get('/');
    const policy = String(response.headers['content-security-policy']);
    const directives = new Map(
      policy.split(';').map((directive) => {
        const [name, ...values] = directive.trim().split(/\s+/);
        return [name, values.join(' ')] as const;
      }),
    );
    expect(directives.get('default-src')).toBe("'self'");
    expect(directives.get('script-src')).toBe("'self'");
    expect(directives.get('script-src-attr')).toBe("'none'");
    expect(directives.get('style-src')).toBe("'self'");
    expect(directives.get('img-src')).toBe("'self' data:");
    expect(directives.get('connect-src')).toBe("'self'");
    expect(directives.get('frame-ancestors')).toBe("'none'");
    expect(directives.get('object-src')).toBe("'none'");
    expect(directives.get('base-uri')).toBe("'none'");
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('unsafe-eval');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    const asset = await get('/assets/app-abc123.js');
    expect(asset.headers['content-security-policy']).toBe(policy);
  });

  it('serves hashed assets for a year, immutable; a missing one is the JSON 404', async () => {
    const asset = await get('/assets/app-abc123.js', {});
    expect(asset.statusCode).toBe(200);
    expect(asset.body).toBe(APP_JS);
    expect(asset.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    for (const headers of [{}, HTML]) {
      const missing = await get('/assets/app-0000.js', headers);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ detail: 'Not Found' });
    }
  });

  it('sends an asset compressed when the browser takes it (the build compressed it beforehand)', async () => {
    const brotli = await testApp.app.inject({
      url: '/assets/app-abc123.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(brotli.statusCode).toBe(200);
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers.vary).toMatch(/accept-encoding/i);
    expect(brotli.headers['content-type']).toMatch(/javascript/);
    expect(brotliDecompressSync(brotli.rawPayload).toString()).toBe(APP_JS);
    const gzip = await testApp.app.inject({
      url: '/assets/app-abc123.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    const plain = await testApp.app.inject({
      url: '/assets/app-abc123.js',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(APP_JS);
  });

  it('serves files copied beside index.html, revalidated', async () => {
    const icon = await get('/favicon.ico', {});
    expect(icon.statusCode).toBe(200);
    expect(icon.body).toBe('icon');
    expect(icon.headers['cache-control']).toBe('no-cache');
    expect((await get('/robots.txt', {})).statusCode).toBe(404);
  });

  it("answers the app's own routes with index.html when a browser opens them", async () => {
    for (const url of ['/documents', '/chats/abc', '/sign-in', '/documents/12?highlight=3', '/connectors/']) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toBe(INDEX_HTML);
      expect(response.headers['cache-control'], url).toBe('no-cache');
      expect(response.headers['content-security-policy'], url).toBeDefined();
    }
    const head = await testApp.app.inject({ method: 'HEAD', url: '/chats/abc', headers: HTML });
    expect(head.statusCode).toBe(200);
  });

  it("keeps the JSON 404 for the API's paths, other methods and requests that do not ask for HTML", async () => {
    const misses = [
      get('/v1/nothing-here'),
      get('/v2/nothing-here'),
      get('/v1'),
      get('/docs/nothing-here'),
      get('/healthz/deeper'),
      get('/readyz/deeper'),
      get('/assets'),
      get('/documents', { accept: 'application/json' }),
      get('/documents', {}),
      testApp.app.inject({ method: 'POST', url: '/documents', headers: HTML, payload: {} }),
      testApp.app.inject({ method: 'DELETE', url: '/chats/abc', headers: HTML }),
    ];
    for (const response of await Promise.all(misses)) {
      expect(response.statusCode, response.body).toBe(404);
      expect(response.json()).toEqual({ detail: 'Not Found' });
    }
  });

  it('leaves the API, /docs and /openapi.json where they were, authentication included', async () => {
    expect((await get('/v1/users/me')).statusCode).toBe(401);
    expect((await get('/healthz', {})).json()).toEqual({ status: 'ok' });
    const spec = await get('/openapi.json', {});
    expect(spec.statusCode).toBe(200);
    expect(spec.json().openapi).toBe('3.1.0');
    const docs = await get('/docs/');
    expect(docs.statusCode).toBe(200);
    expect(docs.body).not.toBe(INDEX_HTML);
    // The app's routes are not API endpoints.
    expect(
      Object.keys(spec.json().paths).filter(
        (route) => !/^\/(v1|v2|scim\/v2|openai\/v1|mcp|oauth|\.well-known|healthz|readyz)/.test(route),
      ),
    ).toEqual([]);
  });

  it('never serves a file outside the build', async () => {
    const secret = `${path.basename(webDir)}-secret.txt`;
    for (const url of [
      `/assets/../../${secret}`,
      `/assets/..%2f..%2f${secret}`,
      `/assets/%2e%2e/%2e%2e/${secret}`,
      `/..%2f${secret}`,
      `/%2e%2e%2f${secret}`,
    ]) {
      const response = await get(url, {});
      expect(response.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(response.body, url).not.toContain('secret');
    }
  });
});

describe('the web app before it is built', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ env: { WEB_DIR: path.join(tmpdir(), 'no-such-web-build') } });
  });
  afterAll(() => testApp.close());

  it('answers its pages 503 naming the fix, its assets 404, and the API as ever', async () => {
    for (const url of ['/', '/documents']) {
      const response = await testApp.app.inject({ url, headers: HTML });
      expect(response.statusCode, url).toBe(503);
      expect(response.json()).toEqual({ detail: 'The web app is not built: run npm run build' });
    }
    const asset = await testApp.app.inject({ url: '/assets/app-abc123.js' });
    expect(asset.statusCode).toBe(404);
    expect((await testApp.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect(
      (await testApp.app.inject({ url: '/nothing', headers: { accept: 'application/json' } })).json(),
    ).toEqual({ detail: 'Not Found' });
  });
});
