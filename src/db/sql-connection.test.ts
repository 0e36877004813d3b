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
    let started = false;
    void order.turn().then(() => {
      started = true;
    });
    // Within this turn of the event loop: not after MAX_FOREGROUND_WAIT_MS's timer.
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(true);
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
});
