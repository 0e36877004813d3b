// Timing requests from clients in this process: each client sends its next request when its last
// one is answered (a closed loop), so latency is not inflated by a queue this side builds.
import { type Percentiles, summarise } from './stats.js';

export interface LatencyRun {
  readonly latency: Percentiles;
  /** Answered requests a second over the run. */
  readonly perSecond: number;
  readonly seconds: number;
  /** The slowest item and its time. */
  readonly slowest: { readonly index: number; readonly ms: number } | undefined;
  readonly errors: readonly string[];
}

/**
 * Sends one request per item, `clients` at a time; `work` answers the request's milliseconds
 * (or throws: counted as failed, its message kept).
 */
export async function timeRequests<T>(
  items: readonly T[],
  clients: number,
  work: (item: T, index: number) => Promise<number>,
): Promise<LatencyRun> {
  const latencies: number[] = [];
  const errors: string[] = [];
  let slowest: { index: number; ms: number } | undefined;
  let next = 0;
  const started = performance.now();
  const lanes = Array.from({ length: Math.max(1, Math.min(clients, items.length)) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      try {
        const ms = await work(items[index] as T, index);
        latencies.push(ms);
        if (slowest === undefined || ms > slowest.ms) slowest = { index, ms };
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
      }
    }
  });
  await Promise.all(lanes);
  const seconds = (performance.now() - started) / 1000;
  return {
    latency: summarise(latencies, errors.length),
    perSecond: latencies.length / Math.max(seconds, 1e-9),
    seconds,
    slowest,
    errors,
  };
}
