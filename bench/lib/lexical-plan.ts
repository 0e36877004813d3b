// EXPLAIN ANALYZE of the service's own lexical search statement, for tuning: the statement is
// built by `searchLexical` itself (src/retrieval), so the plan is that of what the service runs.
import type { Reader } from '../../src/access.js';
import { readableAccessListIds } from '../../src/db/repositories/access-lists.js';
import type { SqlExecutor } from '../../src/db/sql-connection.js';
import { BackgroundFolds } from '../../src/retrieval/background-folds.js';
import { searchLexical } from '../../src/retrieval/lexical-search.js';
import { parseQuery } from '../../src/retrieval/query-text.js';
import { TeamStatisticsCache } from '../../src/retrieval/team-statistics.js';

/**
 * The plan lines of the lexical statement for `query` in the reader's team, with `limit` results,
 * as the service runs it for that reader (filtered by the access lists they may open) once it
 * has seen the query: the statement runs once first, so the pages it reads are cached and the
 * terms' document-frequency rows it finds crowded are folded, as in the service.
 */
export async function explainLexicalSearch(
  sql: SqlExecutor,
  reader: Reader,
  query: string,
  limit: number,
): Promise<string[]> {
  const { teamId } = reader;
  const statistics = await new TeamStatisticsCache(sql).get(teamId);
  let plan: string[] = [];
  const explaining: SqlExecutor = {
    executeSql: async (text, values) => {
      const { rows } = await sql.executeSql(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
      plan = rows.map((row) => String(row['QUERY PLAN'] ?? Object.values(row)[0]));
      return { rows: [] };
    },
  };
  const accessListIds = await readableAccessListIds(sql, reader);
  const request = {
    teamId,
    accessListIds,
    query: parseQuery(query),
    limit,
    folds: new BackgroundFolds(),
  };
  await searchLexical(sql, statistics, request);
  await searchLexical(explaining, statistics, request);
  return plan;
}
