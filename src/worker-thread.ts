import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts the worker thread of module `name` (without extension) beside `callerUrl` (its
 * `import.meta.url`): the compiled `.js` when the caller runs compiled, the `.ts` through tsx when
 * it runs as TypeScript (tests, `tsx`; tsx is a devDependency). On Node 20 `execArgv: ['--import',
 * 'tsx']` does not reach a worker's own module loader (tsx registers its hooks on the main thread
 * only), so the thread registers them through tsx's API itself, then imports the module.
 */
export function startWorkerThread(callerUrl: string, name: string, options: WorkerOptions): Worker {
  const typeScript = callerUrl.endsWith('.ts');
  const url = new URL(`./${name}${typeScript ? '.ts' : '.js'}`, callerUrl);
  return typeScript
    ? new Worker(typeScriptBootstrap(url), { ...options, eval: true })
    : new Worker(url, options);
}

function typeScriptBootstrap(moduleUrl: URL): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    exports?: Record<string, { import?: { default?: string } } | string>;
  };
  const entry = manifest.exports?.['./esm/api'];
  const apiPath = typeof entry === 'object' ? entry.import?.default : undefined;
  if (apiPath === undefined)
    throw new Error('running a worker thread from TypeScript needs tsx 4 (tsx/esm/api)');
  const apiUrl = new URL(apiPath, pathToFileURL(manifestPath)).href;
  return `import(${JSON.stringify(apiUrl)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(moduleUrl.href)}); });`;
}
