import { sql } from 'drizzle-orm';
import type { Database } from '../../src/db/client.js';
import { queryRows } from '../../src/db/client.js';

/** Every row of every table in the public schema, as one JSON text to search for leaked secrets. */
export async function dumpAllTables(db: Database): Promise<string> {
  const tables = await queryRows<{ table_name: string }>(
    db,
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const dump: Record<string, unknown[]> = {};
  for (const { table_name: table } of tables) {
    dump[table] = await queryRows(db, sql`SELECT * FROM ${sql.identifier(table)}`);
  }
  return JSON.stringify(dump);
}
