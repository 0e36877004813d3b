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

export default defineConfig(({ command, mode }) => {
  // A production build is a production build whatever NODE_ENV the builder inherited. Vite and the
  // React plugin take NODE_ENV as they find it, and a build started under Vitest (NODE_ENV=test:
  // the browser tests' build-web-app.ts) shipped React's development build and development JSX
  // (530 kB instead of 280, several times the rendering work, source paths in the bundle), which
  // scripts/build.mjs then kept: its fingerprint is of web/'s files only.
  if (command === 'build' && mode === 'production') process.env.NODE_ENV = 'production';
  return {
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
  };
});
