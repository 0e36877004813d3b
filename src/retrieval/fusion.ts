/** A ranked list of chunk ids, best first. */
export type Ranking = readonly number[];

export interface FusedResult {
  readonly chunkId: number;
  readonly score: number;
}

/**
 * Weighted reciprocal rank fusion (Cormack et al. 2009): a chunk scores Σ wᵢ / (k + rankᵢ) over
 * the rankings that hold it. Ranks, not raw scores, are fused: BM25 and cosine scores live on
 * different scales. The weights let a weak vector model add evidence without outvoting BM25
 * (bench/eval-scifact measures them). Ties keep the first ranking's order.
 */
export function fuseRankings(
  rankings: readonly { readonly ranking: Ranking; readonly weight: number }[],
  k: number,
  limit: number,
): FusedResult[] {
  const scores = new Map<number, { score: number; firstSeen: number }>();
  let order = 0;
  for (const { ranking, weight } of rankings) {
    if (weight <= 0) continue;
    ranking.forEach((chunkId, index) => {
      const entry = scores.get(chunkId) ?? { score: 0, firstSeen: order++ };
      entry.score += weight / (k + index + 1);
      scores.set(chunkId, entry);
    });
  }
  return [...scores.entries()]
    .sort(([, a], [, b]) => b.score - a.score || a.firstSeen - b.firstSeen)
    .slice(0, limit)
    .map(([chunkId, { score }]) => ({ chunkId, score }));
}
