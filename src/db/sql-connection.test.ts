import { describe, expect, it } from 'vitest';
import { ForegroundFirst } from './sql-connection.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('ForegroundFirst', () => {
  it("lets background work start at once when no request's query runs", async () => {
    const order = new ForegroundFirst();
    const began = performance.now();
    await order.turn();
    expect(performance.now() - began).toBeLessThan(20);
  });

  it("starts background work only after the requests' queries running are done", async () => {
    const order = new ForegroundFirst();
    const query = deferred();
    const events: string[] = [];
    const running = order.foreground(async () => {
      await query.promise;
      events.push('query done');
    });
    const background = order.turn().then(() => events.push('background starts'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual([]);
    query.resolve();
    await Promise.all([running, background]);
    expect(events).toEqual(['query done', 'background starts']);
  });

  it('waits for a query that follows another within the same turn, as a request chains its queries', async () => {
    const order = new ForegroundFirst();
    const events: string[] = [];
    const first = deferred();
    const second = deferred();
    const request = (async () => {
      await order.foreground(() => first.promise);
      await order.foreground(() => second.promise);
      events.push('request done');
    })();
    const background = order.turn().then(() => events.push('background starts'));
    first.resolve();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual([]);
    second.resolve();
    await Promise.all([request, background]);
    expect(events).toEqual(['request done', 'background starts']);
  });

  it('never holds background work back for more than a moment, however busy requests keep it', async () => {
    const order = new ForegroundFirst();
    const endless = deferred();
    const running = order.foreground(() => endless.promise);
    const began = performance.now();
    await order.turn();
    const waited = performance.now() - began;
    expect(waited).toBeGreaterThanOrEqual(90);
    expect(waited).toBeLessThan(1_000);
    endless.resolve();
    await running;
  });

  /** Five background works, held open: which of them started. */
  function fiveHeldWorks(order: ForegroundFirst): {
    started: number[];
    gates: { resolve: () => void }[];
    release(): Promise<void>;
  } {
    const gates = Array.from({ length: 5 }, () => deferred());
    const started: number[] = [];
    const works = gates.map((gate, index) =>
      order.background(async () => {
        started.push(index);
        await gate.promise;
      }),
    );
    return {
      started,
      gates,
      release: async () => {
        for (const gate of gates) gate.resolve();
        await Promise.all(works);
      },
    };
  }

  it('while requests query, runs at most its number of background works at once, the others in turn', async () => {
    const order = new ForegroundFirst(2, 60_000);
    await order.foreground(async () => 'a search');
    const works = fiveHeldWorks(order);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(works.started).toEqual([0, 1]);
    works.gates[1]?.resolve();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(works.started).toEqual([0, 1, 2]);
    await works.release();
    expect(works.started).toEqual([0, 1, 2, 3, 4]);
    // Every slot was given back: the next starts at once.
    await expect(order.background(async () => 'next')).resolves.toBe('next');
  });

  it('runs background works all at once when no request has queried lately', async () => {
    const idle = new ForegroundFirst(1, 50);
    const never = fiveHeldWorks(idle);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(never.started).toEqual([0, 1, 2, 3, 4]);
    await never.release();

    await idle.foreground(async () => 'a search');
    const soon = fiveHeldWorks(idle);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(soon.started).toEqual([0]);
    await soon.release();
    await new Promise((resolve) => setTimeout(resolve, 60));
    const later = fiveHeldWorks(idle);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(later.started).toEqual([0, 1, 2, 3, 4]);
    await later.release();
  });

  it("lets a background work's own statements through without waiting for its slot", async () => {
    const order = new ForegroundFirst(1, 60_000);
    await order.foreground(async () => 'a search');
    const inner = await order.background(() => order.background(async () => 'nested statement ran'));
    expect(inner).toBe('nested statement ran');
  });

  it('gives a slot back when the work fails', async () => {
    const order = new ForegroundFirst(1, 60_000);
    await order.foreground(async () => 'a search');
    await expect(
      order.background(async () => {
        throw new Error('statement failed');
      }),
    ).rejects.toThrow('statement failed');
    await expect(order.background(async () => 'next')).resolves.toBe('next');
  });
});
