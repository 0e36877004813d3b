import { stat } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../errors.js';

/** Vite names assets by their content's hash: a name never changes meaning, so browsers keep them a year. */
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

/** First path segments that are the API's (or its docs'): never answered with the app. */
const SERVICE_SEGMENTS = new Set([
  'v1',
  'v2',
  'scim',
  'openai',
  'mcp',
  'oauth',
  '.well-known',
  'docs',
  'openapi.json',
  'healthz',
  'readyz',
  'assets',
]);

/** A file Vite copies beside index.html (favicon.ico, robots.txt): a name with an extension, no dot first. */
const TOP_LEVEL_FILE = /^[\w-][\w.-]*\.[A-Za-z0-9]+$/;

const NOT_BUILT = 'The web app is not built: run npm run build';

/**
 * Serves the single-page app built into `webDir`: `/` (and each app route a browser opens, such as
 * `/documents` or `/chats/abc`) is index.html, always revalidated so a new build shows at once;
 * `/assets/*` are long-cached. All public: the app signs in through the API. Any other path keeps
 * the API's JSON 404. Without a build, the app's pages answer 503 and the API works as ever.
 */
export async function registerWebApp(app: FastifyInstance, webDir: string): Promise<void> {
  // Only `reply.sendFile`: the routes are ours, so that a missing build never stops the start and
  // no wildcard route takes the API's 404s (or their authentication) over. The build writes a
  // .br and a .gz beside each file (scripts/build.mjs): sent when the browser takes them.
  await app.register(fastifyStatic, { serve: false, preCompressed: true });
  const hidden = { config: { public: true }, schema: { hide: true } };

  const sendIndex = async (reply: FastifyReply) => {
    if (!(await isFile(path.join(webDir, 'index.html')))) throw new ServiceError('unavailable', NOT_BUILT);
    return reply.header('cache-control', 'no-cache').sendFile('index.html', webDir, { cacheControl: false });
  };

  app.get('/', hidden, (_request, reply) => sendIndex(reply));
  app.get('/index.html', hidden, (_request, reply) => sendIndex(reply));
  app.get<{ Params: { '*': string } }>('/assets/*', hidden, (request, reply) =>
    reply.sendFile(`assets/${request.params['*']}`, webDir, { immutable: true, maxAge: ASSET_MAX_AGE_MS }),
  );
  app.get<{ Params: { file: string } }>('/:file', hidden, (request, reply) => {
    const { file } = request.params;
    if (!TOP_LEVEL_FILE.test(file)) return reply.callNotFound();
    return reply.header('cache-control', 'no-cache').sendFile(file, webDir, { cacheControl: false });
  });

  app.setNotFoundHandler(async (request, reply) => {
    if (opensAppPage(request)) return sendIndex(reply);
    return reply.code(404).send({ detail: 'Not Found' });
  });
}

/**
 * Whether a request nothing else answered is a browser opening one of the app's own routes: a
 * GET or HEAD for HTML outside the API's paths. A script's or a fetch's miss stays a JSON 404.
 */
export function opensAppPage(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (!(request.headers.accept ?? '').includes('text/html')) return false;
  const pathname = request.url.split('?', 1)[0] ?? '';
  const firstSegment = pathname.split('/', 2)[1] ?? '';
  return !SERVICE_SEGMENTS.has(firstSegment);
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
