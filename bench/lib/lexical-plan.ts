// EXPLAIN ANALYZE of the service's own lexical search statement, for tuning: the statement is
// built by `searchLexical` itself (src/retrieval), so the plan is that of what the service runs.
import { parseConfig } from '../../src/config.js';
import type { SqlExecutor } from '../../src/db/sql-connection.js';
import { searchLexical } from '../../src/retrieval/lexical-search.js';
import { parseQuery } from '../../src/retrieval/query-text.js';
import { TeamStatisticsCache } from '../../src/retrieval/team-statistics.js';

/** The plan lines of the lexical statement for `query` in `teamId`'s chunks, with `limit` results. */
export async function explainLexicalSearch(
  sql: SqlExecutor,
  teamId: number,
  query: string,
  limit: number,
): Promise<string[]> {
  const statistics = await new TeamStatisticsCache(sql).get(teamId);
  let plan: string[] = [];
  const explaining: SqlExecutor = {
    executeSql: async (text, values) => {
      const { rows } = await sql.executeSql(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
      plan = rows.map((row) => String(row['QUERY PLAN'] ?? Object.values(row)[0]));
      return { rows: [] };
    },
  };
  // The service's default postings budget (SEARCH_MAX_POSTINGS_PER_TERM).
  const { maxPostingsPerTerm } = parseConfig(process.env).search;
  await searchLexical(explaining, statistics, {
    teamId,
    query: parseQuery(query),
    limit,
    maxPostingsPerTerm,
  });
  return plan;
}
