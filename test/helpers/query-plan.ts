import type { SqlExecutor } from '../../src/db/sql-connection.js';

/** One node of an `EXPLAIN (FORMAT JSON)` plan: its fields as the database names them. */
export type PlanNode = Record<string, unknown>;

/**
 * Every node of the plan the database makes for `text` now (run as well with `analyze`, which
 * adds the actual rows and loops), the top one first; CTEs and init plans are among the children.
 */
export async function planNodes(
  sql: SqlExecutor,
  text: string,
  values: unknown[] = [],
  options: { readonly analyze?: boolean } = {},
): Promise<PlanNode[]> {
  const { rows } = await sql.executeSql(
    `EXPLAIN (${options.analyze === true ? 'ANALYZE, ' : ''}FORMAT JSON) ${text}`,
    values,
  );
  const plan = Object.values(rows[0] ?? {})[0];
  // pg answers the JSON parsed; PGlite as text.
  const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan?: PlanNode }[];
  const nodes: PlanNode[] = [];
  const visit = (node: PlanNode): void => {
    nodes.push(node);
    for (const child of (node.Plans as PlanNode[] | undefined) ?? []) visit(child);
  };
  const top = parsed[0]?.Plan;
  if (top !== undefined) visit(top);
  return nodes;
}
