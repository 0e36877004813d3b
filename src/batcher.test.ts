import { describe, expect, it } from 'vitest';
import { Batcher } from './batcher.js';

describe('Batcher', () => {
  it('runs a lone input after the current turn and groups inputs that arrive while a run is in flight', async () => {
    const runs: number[][] = [];
    let release: () => void = () => {};
    const batcher = new Batcher<number, number>(
      async (inputs) => {
        runs.push([...inputs]);
        if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return inputs.map((input) => input * 10);
      },
      { maxBatchSize: 3, maxConcurrentRuns: 1 },
    );
    const first = batcher.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [2, 3, 4, 5, 6].map((input) => batcher.submit(input));
    expect(runs).toEqual([[1]]);
    release();
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40, 50, 60]);
    expect(runs).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it('retries a failed group one by one, so only the bad input fails', async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, number>(
      async (inputs) => {
        runs.push([...inputs]);
        if (inputs.includes(13)) throw new Error('unlucky');
        return inputs.map((input) => input + 1);
      },
      { maxBatchSize: 10, maxConcurrentRuns: 1 },
    );
    const blocker = batcher.submit(0);
    const results = await Promise.allSettled([
      blocker,
      batcher.submit(12),
      batcher.submit(13),
      batcher.submit(14),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(results[1]).toEqual({ status: 'fulfilled', value: 13 });
  });
});
