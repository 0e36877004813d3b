import pino from 'pino';
import { ConfigError, parseConfig } from './config.js';
import { createRuntime } from './deps.js';
import { buildApp } from './http/app.js';
import { loggerOptions } from './logger.js';

/** Starts the service: configuration, database (migrated), HTTP server, graceful shutdown. */
async function main(): Promise<void> {
  let config: ReturnType<typeof parseConfig>;
  try {
    config = parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = pino(loggerOptions(config.logLevel));
  const runtime = await createRuntime(config);
  const app = await buildApp({
    deps: runtime.deps,
    ping: runtime.database.ping,
    logger: { ...loggerOptions(config.logLevel) },
  });
  await app.listen({ host: config.host, port: config.port });
  logger.info(
    {
      database: runtime.database.kind,
      dataDir: config.databaseUrl === undefined ? config.dataDir : undefined,
    },
    'service started',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    try {
      await app.close();
      await runtime.database.close();
      logger.info('stopped cleanly');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
