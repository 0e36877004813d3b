import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENV } from '../../../../test/helpers/test-app.js';
import { testDatabaseKind } from '../../../../test/helpers/test-database.js';
import { parseConfig } from '../../../config.js';
import { createRuntime, type Runtime } from '../../../deps.js';
import { loggerOptions } from '../../../logger.js';
import { type App, buildApp } from '../../app.js';

/** Settled or not, readable at any time: what the test orders events by. */
function watched<T>(promise: Promise<T>): { readonly settled: boolean; readonly promise: Promise<T> } {
  const state = { settled: false, promise };
  const settle = () => {
    state.settled = true;
  };
  promise.then(settle, settle);
  return state;
}

/**
 * A statement that holds PGlite until the test says so: it writes `busy-started` in the data
 * folder, then loops until a file `release` appears there (PGlite's files are the folder's, read
 * through to the disk). A bound ends it should the test never release it (a hang, not a timing):
 * below the test's own timeout, so a regression fails the assertions instead of hanging the run.
 */
const HOLD_UNTIL_RELEASED = `
DO $$
DECLARE
  started timestamptz := clock_timestamp();
BEGIN
  EXECUTE 'COPY (SELECT 1) TO ' || quote_literal(current_setting('data_directory') || '/busy-started');
  WHILE pg_stat_file('release', true) IS NULL AND clock_timestamp() < started + interval '90 seconds' LOOP
  END LOOP;
END $$`;

// PGlite only: the statement reads PGlite's own data folder. The app runs on a folder (not the
// in-memory database of startTestApp) so the test can release the statement from outside.
describe.skipIf(testDatabaseKind() === 'postgres')('/healthz while PGlite runs a long statement', () => {
  let folder: string;
  let runtime: Runtime;
  let app: App;
  let base: string;

  beforeAll(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'healthz-busy-'));
    const config = parseConfig({ ...TEST_ENV, DATA_DIR: folder, LOG_LEVEL: 'silent' });
    runtime = await createRuntime(config, { database: { kind: 'embedded', dataDir: folder, thread: true } });
    app = await buildApp({
      deps: runtime.deps,
      ping: runtime.database.ping,
      logger: loggerOptions('silent'),
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app?.close();
    await runtime?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('answers /healthz while the statement holds the database, which queries wait for', async () => {
    const pgliteFolder = path.join(folder, 'pglite');
    const busy = watched(runtime.database.sql.executeSql(HOLD_UNTIL_RELEASED));
    await expect.poll(() => existsSync(path.join(pgliteFolder, 'busy-started'))).toBe(true);

    for (let probe = 0; probe < 5; probe++) {
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
    }
    // /readyz asks the database: it waits behind the statement, while /healthz still answers.
    const ready = watched(fetch(`${base}/readyz`));
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(busy.settled).toBe(false);
    expect(ready.settled).toBe(false);

    writeFileSync(path.join(pgliteFolder, 'release'), '');
    await busy.promise;
    const readiness = await ready.promise;
    expect(readiness.status).toBe(200);
    expect(await readiness.json()).toEqual({ status: 'ready' });
  });
});
