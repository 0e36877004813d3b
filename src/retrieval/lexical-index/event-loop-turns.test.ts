import { describe, expect, it } from 'vitest';
import { EventLoopTurns } from './event-loop-turns.js';

describe('EventLoopTurns', () => {
  it('gives each caller a turn in an event loop iteration of its own', async () => {
    const turns = new EventLoopTurns();
    // Counts the loop's iterations: an immediate queued from its own callback runs in the next one.
    let iteration = 0;
    let counting = true;
    const count = () => {
      iteration += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const seen = await Promise.all(
      [1, 2, 3, 4].map(async () => {
        await turns.take();
        return iteration;
      }),
    );
    counting = false;
    // Taken in order, each after the loop has turned since the one before (and read I/O there).
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size).toBe(seen.length);
  });
});
