// Ranking quality as BEIR reports it (pytrec_eval, i.e. trec_eval's definitions), and paired
// comparisons of two rankers over the same queries.

/** Document id → graded relevance (0: judged not relevant). */
export type Relevance = ReadonlyMap<string, number>;

/**
 * nDCG at `cutoff` as trec_eval's `ndcg_cut` (what BEIR's figures are): gain = the grade,
 * discount log2(rank + 1), the ideal from every judged document of the query. A document listed
 * twice counts once, at its first place.
 */
export function ndcgAt(cutoff: number, ranking: readonly string[], relevant: Relevance): number {
  const gain = (grade: number, rank: number) => grade / Math.log2(rank + 2);
  const dcg = dedupe(ranking)
    .slice(0, cutoff)
    .reduce((sum, id, rank) => sum + gain(relevant.get(id) ?? 0, rank), 0);
  const ideal = [...relevant.values()]
    .filter((grade) => grade > 0)
    .sort((a, b) => b - a)
    .slice(0, cutoff)
    .reduce((sum, grade, rank) => sum + gain(grade, rank), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** Share of the query's relevant documents (grade > 0) found in the first `cutoff`. */
export function recallAt(cutoff: number, ranking: readonly string[], relevant: Relevance): number {
  const wanted = [...relevant].filter(([, grade]) => grade > 0).map(([id]) => id);
  if (wanted.length === 0) return 0;
  const top = new Set(dedupe(ranking).slice(0, cutoff));
  return wanted.filter((id) => top.has(id)).length / wanted.length;
}

/** 1 / the rank of the first relevant document within `cutoff`, else 0 (BEIR's MRR@k). */
export function reciprocalRankAt(cutoff: number, ranking: readonly string[], relevant: Relevance): number {
  const index = dedupe(ranking)
    .slice(0, cutoff)
    .findIndex((id) => (relevant.get(id) ?? 0) > 0);
  return index < 0 ? 0 : 1 / (index + 1);
}

function dedupe(ranking: readonly string[]): string[] {
  return [...new Set(ranking)];
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

export interface PairedDifference {
  /** Mean of a − b over the queries. */
  readonly mean: number;
  /** Half-width of the 95 % confidence interval of that mean (normal approximation). */
  readonly halfWidth: number;
}

/** The mean difference of paired per-query scores, with its 95 % confidence interval. */
export function pairedDifference(a: readonly number[], b: readonly number[]): PairedDifference {
  if (a.length !== b.length) throw new Error(`paired scores of different lengths (${a.length}, ${b.length})`);
  const differences = a.map((value, index) => value - (b[index] ?? 0));
  const average = mean(differences);
  const variance =
    differences.length < 2
      ? 0
      : differences.reduce((sum, value) => sum + (value - average) ** 2, 0) / (differences.length - 1);
  return { mean: average, halfWidth: 1.96 * Math.sqrt(variance / Math.max(1, differences.length)) };
}

/** `+0.012 ± 0.008` (a true minus sign for negatives). */
export function formatDifference(difference: PairedDifference, decimals = 3): string {
  const sign = difference.mean < 0 ? '−' : '+';
  return `${sign}${Math.abs(difference.mean).toFixed(decimals)} ± ${difference.halfWidth.toFixed(decimals)}`;
}
