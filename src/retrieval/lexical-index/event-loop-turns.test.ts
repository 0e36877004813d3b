import { describe, expect, it } from 'vitest';
import { countEventLoopIterations } from '../../../test/helpers/event-loop-iterations.js';
import { EventLoopTurns } from './event-loop-turns.js';

describe('EventLoopTurns', () => {
  it('gives each caller a turn in an event loop iteration of its own', async () => {
    const turns = new EventLoopTurns();
    const iterations = countEventLoopIterations();
    const seen = await Promise.all(
      [1, 2, 3, 4].map(async () => {
        await turns.take();
        return iterations.current();
      }),
    );
    iterations.stop();
    // Taken in order, each after the loop has turned since the one before (and read I/O there).
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size).toBe(seen.length);
  });
});
