import { describe, expect, it } from 'vitest';
import { formatDuration, formatProgressLine, ProgressDisplay } from './progress.js';

describe('formatProgressLine', () => {
  it('shows done/total, percent, rate and ETA, with a bar for a terminal', () => {
    expect(formatProgressLine({ phase: 'indexing', done: 120, total: 400 }, 10_000, true)).toBe(
      'indexing  [#######-----------------]  120/400   30%  12.0 docs/s  ETA 23s',
    );
    expect(formatProgressLine({ phase: 'indexing', done: 120, total: 400 }, 10_000, false)).toBe(
      'indexing  120/400   30%  12.0 docs/s  ETA 23s',
    );
  });

  it('copes with an unknown total, nothing done yet, and the end', () => {
    expect(formatProgressLine({ phase: 'uploading', done: 7, total: undefined }, 1000, true)).toBe(
      'uploading  7 docs  7.0 docs/s',
    );
    expect(formatProgressLine({ phase: 'uploading', done: 0, total: 10 }, 0, false)).toBe(
      'uploading  0/10    0%  0.0 docs/s  ETA ?',
    );
    expect(formatProgressLine({ phase: 'indexing', done: 10, total: 10 }, 2000, false)).toBe(
      'indexing  10/10  100%  5.0 docs/s',
    );
  });
});

describe('formatDuration', () => {
  it('reads naturally at every scale', () => {
    expect(formatDuration(950)).toBe('0.9s');
    expect(formatDuration(42_400)).toBe('42s');
    expect(formatDuration(75_000)).toBe('1m 15s');
    expect(formatDuration(2 * 3600_000 + 60_000)).toBe('2h 1m');
  });
});

describe('ProgressDisplay', () => {
  const state = { phase: 'indexing', done: 1, total: 4 };

  it('redraws one terminal line in place, at most every 100 ms, cut to the width, and clears it at the end', () => {
    const written: string[] = [];
    let now = 0;
    const display = new ProgressDisplay(
      { write: (text) => written.push(text) },
      {
        tty: true,
        columns: 30,
        now: () => now,
      },
    );
    display.update(state);
    now = 50;
    display.update(state);
    now = 150;
    display.update({ ...state, done: 2 });
    display.finish();
    expect(written).toHaveLength(3);
    expect(written[0]).toMatch(/^\rindexing {2}\[/);
    expect(written[0]?.endsWith('\x1b[K')).toBe(true);
    expect(written[0]?.length).toBe('\r'.length + 29 + '\x1b[K'.length);
    expect(written[2]).toBe('\r\x1b[K');
  });

  it('writes a note on its own line above the bar, and redraws the bar at the next update', () => {
    const written: string[] = [];
    const display = new ProgressDisplay({ write: (text) => written.push(text) }, { tty: true, now: () => 0 });
    display.update(state);
    display.note('is the worker running?');
    display.update(state);
    expect(written.slice(1)).toEqual(['\r\x1b[K', 'is the worker running?\n', written[0]]);
  });

  it('prints a plain line every few seconds elsewhere, and nothing to clear', () => {
    const written: string[] = [];
    let now = 0;
    const display = new ProgressDisplay(
      { write: (text) => written.push(text) },
      {
        tty: false,
        plainIntervalMs: 5000,
        now: () => now,
      },
    );
    display.update(state);
    now = 5000;
    display.update(state);
    now = 6000;
    display.update(state);
    display.finish();
    expect(written).toEqual(['indexing  1/4   25%  0.2 docs/s  ETA 15s\n']);
  });
});
