import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type ProxyOptions } from 'vite';

const webRoot = fileURLToPath(new URL('.', import.meta.url));
const apiTarget = process.env.API_URL ?? 'http://127.0.0.1:8000';

/**
 * The dev server forwards the API to the service. The service refuses cookie-authenticated writes
 * whose Origin is not its own, and the browser sends the dev server's origin: proxied requests
 * carry the target's origin instead, as if the page had been served by the service itself.
 */
const toApi: ProxyOptions = {
  target: apiTarget,
  changeOrigin: true,
  configure(proxy) {
    const targetOrigin = new URL(apiTarget).origin;
    proxy.on('proxyReq', (proxyRequest) => {
      if (proxyRequest.getHeader('origin') !== undefined) proxyRequest.setHeader('origin', targetOrigin);
    });
  },
};

export default defineConfig({
  root: webRoot,
  plugins: [react()],
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    // Every browser the app supports has module preload; the polyfill would be dead weight.
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: Object.fromEntries(
      ['/v1', '/v2', '/docs', '/openapi.json', '/healthz', '/readyz'].map((path) => [path, toApi]),
    ),
  },
});
