import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type DatabaseHandle, type DatabaseLocation, openDatabase } from '../../src/db/client.js';
import { pgliteSnapshot } from './pglite-snapshot.js';

/** Which database this test run uses: PGlite in memory, or a fresh PostgreSQL database. */
export function testDatabaseKind(): 'embedded' | 'postgres' {
  return process.env.TEST_DB_KIND === 'postgres' ? 'postgres' : 'embedded';
}

export interface TestDatabase {
  readonly location: DatabaseLocation;
  /** Drops the PostgreSQL database (PGlite in memory needs nothing). */
  drop(): Promise<void>;
}

/** A new empty database for one test app: isolated from every other test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (testDatabaseKind() === 'embedded' || adminUrl === undefined) {
    const snapshot = pgliteSnapshot();
    return {
      location: { kind: 'embedded', dataDir: undefined, ...(snapshot === undefined ? {} : { snapshot }) },
      drop: async () => {},
    };
  }
  const name = `test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    location: { kind: 'postgres', url: url.toString(), poolSize: 5 },
    drop: () => withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

async function withAdmin(url: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A database of the test file's own, opened before its tests and closed (and dropped) after them:
 * the answer gives it to the tests.
 */
export function databaseForTheseTests(): () => DatabaseHandle {
  let testDatabase: TestDatabase | undefined;
  let database: DatabaseHandle | undefined;
  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    database = await openDatabase(testDatabase.location);
  });
  afterAll(async () => {
    await database?.close();
    await testDatabase?.drop();
  });
  return () => {
    if (database === undefined) throw new Error('the test database is opened before the tests run');
    return database;
  };
}
