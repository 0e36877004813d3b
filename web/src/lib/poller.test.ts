import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type PollOutcome, startPoller, type Visibility } from './poller';

/** A page whose visibility the test switches. */
function fakeVisibility(): Visibility & { set(hidden: boolean): void } {
  let hidden = false;
  const listeners = new Set<() => void>();
  return {
    hidden: () => hidden,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(value) {
      hidden = value;
      for (const listener of listeners) listener();
    },
  };
}

/** A load the test answers by hand, recording each call and whether it was aborted. */
function manualLoads() {
  const calls: { signal: AbortSignal; resolve: (value: number) => void; reject: (error: unknown) => void }[] =
    [];
  const load = (signal: AbortSignal) =>
    new Promise<number>((resolve, reject) => {
      calls.push({ signal, resolve, reject });
    });
  return { calls, load };
}

const flush = () => vi.advanceTimersByTimeAsync(0);

describe('startPoller', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('loads at once, then again after the delay each outcome asks for, one load at a time', async () => {
    const visibility = fakeVisibility();
    const { calls, load } = manualLoads();
    const outcomes: PollOutcome<number>[] = [];
    const poller = startPoller({
      load,
      visibility,
      onOutcome: (outcome) => outcomes.push(outcome),
      delayAfter: (outcome) => (outcome.ok && outcome.value > 0 ? 2000 : 15_000),
    });
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(1); // no second load while the first is under way

    calls[0]?.resolve(1);
    await flush();
    expect(outcomes).toEqual([{ ok: true, value: 1 }]);
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);

    calls[1]?.resolve(0);
    await flush();
    await vi.advanceTimersByTimeAsync(14_999);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(3);

    const failure = new Error('offline');
    calls[2]?.reject(failure);
    await flush();
    expect(outcomes.at(-1)).toEqual({ ok: false, error: failure });
    poller.stop();
  });

  it('loads nothing while the page is hidden, and at once when it is shown again', async () => {
    const visibility = fakeVisibility();
    const { calls, load } = manualLoads();
    const outcomes: PollOutcome<number>[] = [];
    const poller = startPoller({
      load,
      visibility,
      onOutcome: (o) => outcomes.push(o),
      delayAfter: () => 2000,
    });
    calls[0]?.resolve(1);
    await flush();

    visibility.set(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(1);

    visibility.set(false);
    expect(calls).toHaveLength(2);
    // Hidden again while that load runs: it is aborted, and its answer is not reported.
    visibility.set(true);
    expect(calls[1]?.signal.aborted).toBe(true);
    calls[1]?.resolve(2);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(outcomes).toHaveLength(1);
    expect(calls).toHaveLength(2);
    poller.stop();
  });

  it('does not start while the page is hidden', async () => {
    const visibility = fakeVisibility();
    visibility.set(true);
    const { calls, load } = manualLoads();
    const poller = startPoller({ load, visibility, onOutcome: () => {}, delayAfter: () => 2000 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toHaveLength(0);
    visibility.set(false);
    expect(calls).toHaveLength(1);
    poller.stop();
  });

  it('refresh loads now, replacing the load under way; stop aborts it and loads no more', async () => {
    const visibility = fakeVisibility();
    const { calls, load } = manualLoads();
    const outcomes: PollOutcome<number>[] = [];
    const poller = startPoller({
      load,
      visibility,
      onOutcome: (o) => outcomes.push(o),
      delayAfter: () => 2000,
    });
    poller.refresh();
    expect(calls).toHaveLength(2);
    expect(calls[0]?.signal.aborted).toBe(true);
    calls[0]?.resolve(1);
    calls[1]?.resolve(2);
    await flush();
    expect(outcomes).toEqual([{ ok: true, value: 2 }]);

    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toHaveLength(3);
    poller.stop();
    expect(calls[2]?.signal.aborted).toBe(true);
    calls[2]?.resolve(3);
    visibility.set(true);
    visibility.set(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(3);
    expect(outcomes).toHaveLength(1);
  });
});
