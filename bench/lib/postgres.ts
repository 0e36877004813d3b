import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL the benchmarks use unless BENCH_DATABASE_URL says otherwise. */
export const DEFAULT_BENCH_DATABASE_URL = 'postgres://postgres:postgres@127.0.0.1:5432/rag_test';

/** The server's version when `url` accepts a connection within `timeoutMs`, else why not. */
export async function probePostgres(
  url: string,
  timeoutMs = 3_000,
): Promise<{ ok: true; version: string } | { ok: false; reason: string }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    const result = await client.query<{ server_version: string }>('SHOW server_version');
    return { ok: true, version: result.rows[0]?.server_version ?? 'unknown' };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await client.end().catch(() => {});
  }
}

export interface ScratchDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

/** Creates a new, empty database next to the one `adminUrl` points at. */
export async function createScratchDatabase(
  adminUrl: string,
  prefix: string,
  /** A database to copy (`CREATE DATABASE … TEMPLATE`); no session may be connected to it. */
  template?: string,
): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  for (const identifier of [name, template ?? name]) {
    if (!/^[a-z_][a-z0-9_]*$/.test(identifier)) throw new Error(`unsafe database name ${identifier}`);
  }
  await withClient(adminUrl, (client) =>
    client.query(`CREATE DATABASE ${name}${template === undefined ? '' : ` TEMPLATE ${template}`}`),
  );
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () =>
      withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

export async function withClient(url: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/** The server processes serving connections to database `name` (to account for their CPU). */
export async function backendPids(adminUrl: string, name: string): Promise<number[]> {
  const pids: number[] = [];
  await withClient(adminUrl, async (client) => {
    const result = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1',
      [name],
    );
    for (const row of result.rows) pids.push(Number(row.pid));
  });
  return pids;
}
