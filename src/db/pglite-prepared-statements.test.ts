import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PglitePreparedStatements, textLiteral } from './pglite-prepared-statements.js';
import { WriteCountingDatabase } from './pglite-worker/write-counting-database.js';
import { sqlConnection } from './sql-connection.js';

/** PGlite with its statements recorded, as the service's thread would receive them. */
function recorded(pglite: PGlite) {
  const scripts: string[] = [];
  const exec = (script: string) => {
    scripts.push(script);
    return pglite.exec(script);
  };
  return { scripts, exec };
}

describe('prepared statements on PGlite', () => {
  let pglite: PGlite;

  beforeAll(async () => {
    pglite = await PGlite.create();
    await pglite.exec(
      `CREATE TABLE notes (id bigint PRIMARY KEY, body text, tags text[], done boolean, due timestamptz, weight real);
       INSERT INTO notes VALUES (1, 'first', '{a,b}', false, '2026-01-02T03:04:05Z', 0.5);`,
    );
  });

  afterAll(async () => {
    await pglite.close();
  });

  it('prepares a text once and then only executes it', async () => {
    const { scripts, exec } = recorded(pglite);
    const statements = new PglitePreparedStatements(exec);
    const text = 'SELECT id, body FROM notes WHERE id = $1';
    const first = await statements.run(text, [1], exec);
    const second = await statements.run(text, [2], exec);
    expect(first?.rows).toEqual([{ id: 1, body: 'first' }]);
    expect(second?.rows).toEqual([]);
    expect(scripts.filter((script) => script.startsWith('PREPARE'))).toHaveLength(1);
    expect(scripts.filter((script) => script.startsWith('EXECUTE'))).toHaveLength(2);
  });

  it('gives every value back as bound parameters would: quotes, backslashes, arrays, nulls, dates', async () => {
    const { exec } = recorded(pglite);
    const statements = new PglitePreparedStatements(exec);
    const text = `SELECT $1::text AS body, $2::text[] AS tags, $3::boolean AS done,
                         $4::timestamptz AS due, $5::real AS weight, $6::bigint AS big, $7::text AS nothing`;
    const values = [
      `it's a \\back\\slash, "quoted" and 'single'; -- not a comment ☃`,
      ['plain', 'with,comma', 'with "quote"', 'back\\slash', null, '', 'NULL', '{brace}'],
      true,
      new Date('2026-11-29T06:00:00.000Z'),
      1.25,
      9007199254740993n,
      null,
    ];
    const prepared = await statements.run(text, values, exec);
    const bound = await pglite.query(text, values);
    expect(prepared?.rows).toEqual(bound.rows);
    expect(prepared?.rows[0]).toMatchObject({ body: values[0], tags: values[1], done: true, nothing: null });
  });

  it('keeps a value that looks like SQL a value', async () => {
    const { exec } = recorded(pglite);
    const statements = new PglitePreparedStatements(exec);
    const hostile = "x'); DROP TABLE notes; --";
    const result = await statements.run(
      'SELECT count(*)::int AS n FROM notes WHERE body = $1',
      [hostile],
      exec,
    );
    expect(result?.rows).toEqual([{ n: 0 }]);
    expect((await pglite.query('SELECT count(*)::int AS n FROM notes')).rows).toEqual([{ n: 1 }]);
  });

  it('declines what has no text form, so the caller binds it instead', async () => {
    const { scripts, exec } = recorded(pglite);
    const statements = new PglitePreparedStatements(exec);
    for (const value of [{ json: true }, new Uint8Array([1]), Number.NaN, 'nul\0char', [{ nested: 1 }]]) {
      expect(await statements.run('SELECT $1 AS value', [value], exec)).toBeUndefined();
    }
    expect(scripts).toEqual([]);
    expect(textLiteral("o'clock \\")).toBe("E'o''clock \\\\'");
  });

  it('prepares once for callers that arrive together, and again in a session that lost it', async () => {
    const { scripts, exec } = recorded(pglite);
    const statements = new PglitePreparedStatements(exec);
    const text = 'SELECT body FROM notes WHERE id = $1 AND $2::int = 2';
    const together = await Promise.all([1, 2, 3].map(() => statements.run(text, [1, 2], exec)));
    expect(together.map((result) => result?.rows)).toEqual([
      [{ body: 'first' }],
      [{ body: 'first' }],
      [{ body: 'first' }],
    ]);
    expect(scripts.filter((script) => script.startsWith('PREPARE'))).toHaveLength(1);
    // The session forgets it (as a database opened again would): the next run prepares it anew.
    await pglite.exec('DEALLOCATE ALL');
    expect((await statements.run(text, [1, 2], exec))?.rows).toEqual([{ body: 'first' }]);
    expect(scripts.filter((script) => script.startsWith('PREPARE'))).toHaveLength(2);
  });

  it('runs `prepared` statements of the service this way, counted as writes unless declared read-only', async () => {
    const counting = new WriteCountingDatabase(pglite);
    const sql = sqlConnection(counting);
    const text = 'SELECT body FROM notes WHERE id = $1';
    const before = counting.writesEnded;
    const read = await sql.executeSql(text, [1], { prepared: true, readOnly: true });
    expect(read.rows).toEqual([{ body: 'first' }]);
    expect(counting.writesEnded).toBe(before);
    const update = 'UPDATE notes SET body = $2 WHERE id = $1 RETURNING body';
    const written = await sql.executeSql(update, [1, 'second'], { prepared: true });
    expect(written.rows).toEqual([{ body: 'second' }]);
    expect(counting.writesEnded).toBeGreaterThan(before);
    // In a transaction the statement is bound as usual, with the same answer.
    const inTransaction = await sql.transaction((transaction) =>
      transaction.executeSql(text, [1], { prepared: true, readOnly: true }),
    );
    expect(inTransaction.rows).toEqual([{ body: 'second' }]);
  });
});
