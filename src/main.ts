import cluster from 'node:cluster';
import pino, { type DestinationStream, type Logger } from 'pino';
import { type Config, ConfigError, parseConfig } from './config.js';
import { createRuntime } from './deps.js';
import { type App, buildApp } from './http/app.js';
import { loggerOptions } from './logger.js';
import { lowerProcessPriority } from './process-priority.js';
import { startWorker } from './worker.js';

const READY = 'ready';
/** Log lines gather up to this many bytes before they are written… */
const LOG_BATCH_BYTES = 4096;
/** …or for at most this long. */
const LOG_FLUSH_MS = 200;

/**
 * Starts the service: configuration, database (migrated), then its role (`--role=` or `ROLE`):
 * `all` (the default) serves HTTP and runs background jobs, `api` serves HTTP only, `worker`
 * runs jobs only. Stops gracefully on SIGTERM/SIGINT, and, with `--stop-with-parent` (what
 * `npm start` passes), when the process that started it is gone.
 */
async function main(): Promise<void> {
  const config = readConfig();
  // Written to stdout asynchronously and in batches: a write per line (one per request) cost a
  // search a tenth of its time. Lines wait at most LOG_FLUSH_MS, and pino flushes what is pending
  // when the process exits.
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES });
  // Given a callback, a flush reports a stream closed at exit instead of throwing.
  setInterval(() => destination.flush(() => {}), LOG_FLUSH_MS).unref();
  const logger = pino(loggerOptions(config.logLevel), destination);
  if (config.apiProcesses > 1 && config.role !== 'worker' && cluster.isPrimary) {
    superviseApiProcesses(config, logger);
    return;
  }
  await serve(config, logger, destination);
}

function readConfig(): Config {
  try {
    return parseConfig(process.env, process.argv.slice(2));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/**
 * With `--stop-with-parent`, calls `stop` once this process's parent is gone. `npm start` passes it:
 * npm passes SIGTERM/SIGINT on to the service and waits for it, but a supervisor that kills npm
 * outright (or a closed terminal's SIGHUP, which npm does not pass on) would otherwise leave the
 * service running without it. An orphan is adopted by another process, so its parent id changes.
 */
function watchParent(stop: (reason: string) => void): void {
  if (!process.argv.includes('--stop-with-parent')) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop('parent exited');
  }, 500);
  timer.unref();
}

/** One process: opens (and migrates) the database, serves its role, stops gracefully. */
async function serve(config: Config, logger: Logger, destination: DestinationStream): Promise<void> {
  // A stop asked for while still starting is honoured once started, never by dying mid-migration.
  let stopRequested: string | undefined;
  let requestStop = (reason: string) => {
    stopRequested = reason;
  };
  process.on('SIGTERM', () => requestStop('SIGTERM'));
  process.on('SIGINT', () => requestStop('SIGINT'));
  watchParent((reason) => requestStop(reason));
  if (config.role === 'worker' && config.workerNiceness > 0) {
    // Before the runtime starts its threads (pools, parse threads), which then inherit it.
    try {
      const threads = lowerProcessPriority(config.workerNiceness);
      logger.info({ niceness: config.workerNiceness, threads }, 'background jobs yield the CPU to requests');
    } catch (error) {
      // A sandbox may refuse it: the jobs then run at the priority the process was started with.
      logger.warn({ err: error }, 'could not lower the CPU priority of background jobs');
    }
  }
  // Said before and after: a first start, or one waiting for another process's migration, takes a
  // while. The runtime opens and migrates the database; what else it builds takes milliseconds.
  logger.info('migrating the database…');
  const migrationBegan = performance.now();
  const runtime = await createRuntime(config, {
    logger: logger.child({ component: 'jobs' }),
    databaseLogger: logger.child({ component: 'database' }),
  });
  const migrationMs = Math.round(performance.now() - migrationBegan);
  logger.info({ durationMs: migrationMs }, `migrating the database… done in ${migrationMs} ms`);
  let app: App | undefined;
  if (config.role !== 'worker') {
    app = await buildApp({
      deps: runtime.deps,
      ping: runtime.database.ping,
      logger: { ...loggerOptions(config.logLevel), stream: destination },
    });
    await app.listen({ host: config.host, port: config.port });
  }
  const stopSchedule = config.role === 'api' ? () => {} : await startWorker(runtime, config, logger);
  logger.info(
    {
      role: config.role,
      database: runtime.database.kind,
      dataDir: config.databaseUrl === undefined ? config.dataDir : undefined,
      address: app === undefined ? undefined : `${config.host}:${config.port}`,
    },
    'service started',
  );
  process.send?.(READY);

  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'stopping: finishing in-flight requests and jobs');
    const force = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    try {
      stopSchedule();
      await app?.close();
      // Running jobs get most of the time left; what they do not finish is handed back and resumed.
      await runtime.close({ timeoutMs: Math.max(0, config.shutdownTimeoutMs - 2000) });
      logger.info('stopped cleanly');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  requestStop = (reason) => void stop(reason);
  if (stopRequested !== undefined) await stop(stopRequested);
}

/**
 * Several API processes on one port (node:cluster): a process that dies after starting is
 * replaced; one that fails to start stops the whole service, since its siblings would fail alike.
 * SIGTERM/SIGINT are passed on, and the service exits 0 once every process stopped cleanly.
 */
function superviseApiProcesses(config: Config, logger: Logger): void {
  let stopping = false;
  let failed = false;
  const started = new WeakSet<object>();
  const fork = () => {
    const worker = cluster.fork();
    worker.on('message', (message) => {
      if (message === READY) started.add(worker);
    });
  };
  for (let index = 0; index < config.apiProcesses; index++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (code !== 0) {
        failed = true;
        logger.error({ pid: worker.process.pid, code, signal }, 'an API process did not stop cleanly');
      }
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0);
      return;
    }
    if (!started.has(worker)) {
      logger.error({ pid: worker.process.pid, code }, 'an API process failed to start; stopping');
      failed = true;
      stopAll('startup failure');
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'an API process died; starting another');
    fork();
  });
  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, processes: config.apiProcesses }, 'stopping API processes');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0);
  };
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  process.on('SIGINT', () => stopAll('SIGINT'));
  watchParent(stopAll);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
