import { describe, expect, it } from 'vitest';
import { nextStatement, StatementSizer } from './statement-sizer.js';

describe('nextStatement', () => {
  const sizes = [300, 300, 300, 5_000, 300, 300];
  const rowOf = (size: number) => ({ row: `row of ${size}`, units: size });

  it('takes items while they fit in the budget', () => {
    expect(nextStatement(sizes, 0, 1_000, 100, rowOf)).toEqual({
      rows: ['row of 300', 'row of 300', 'row of 300'],
      units: 900,
    });
  });

  it('sends an item bigger than the budget alone, never an empty statement', () => {
    expect(nextStatement(sizes, 3, 1_000, 100, rowOf)).toEqual({ rows: ['row of 5000'], units: 5_000 });
  });

  it('stops at the most items a statement may carry, and at the end of the items', () => {
    expect(nextStatement(sizes, 0, 1_000_000, 2, rowOf)).toEqual({
      rows: ['row of 300', 'row of 300'],
      units: 600,
    });
    expect(nextStatement(sizes, 4, 1_000_000, 100, rowOf)).toEqual({
      rows: ['row of 300', 'row of 300'],
      units: 600,
    });
  });
});

describe('StatementSizer', () => {
  it('settles on the size that takes the target time, within its bounds', () => {
    const sizer = new StatementSizer({ targetMs: 10, min: 100, max: 100_000 }, 1_000);
    // Work that costs 1 ms per 500 units: 5,000 units fit in 10 ms.
    for (let round = 0; round < 12; round++) sizer.record(sizer.next, sizer.next / 500);
    expect(sizer.next).toBeGreaterThan(4_900);
    expect(sizer.next).toBeLessThan(5_100);
    for (let round = 0; round < 30; round++) sizer.record(sizer.next, sizer.next);
    expect(sizer.next).toBe(100);
  });

  it('does not collapse after one slow statement', () => {
    const sizer = new StatementSizer({ targetMs: 10, min: 1, max: 1_000 }, 200);
    sizer.record(200, 10);
    sizer.record(200, 1_000);
    expect(sizer.next).toBeGreaterThanOrEqual(100);
  });

  it('keeps a fixed size whatever the statements take', () => {
    const sizer = StatementSizer.fixed(200);
    sizer.record(200, 5_000);
    expect(sizer.next).toBe(200);
  });
});
