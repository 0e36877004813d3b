import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HANG_BOUND_MS } from '../test/helpers/hang-bound.js';
import { lowerProcessPriority } from './process-priority.js';

const FIXTURE = path.resolve(import.meta.dirname, '../test/fixtures/lowered-priority.ts');

/** What the fixture, in a process of its own, reports after lowering its priority to each niceness in turn. */
async function lowerInChild(
  nicenesses: readonly number[],
): Promise<{ changed: number[]; niceness: number[] }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', FIXTURE, nicenesses.join(',')],
    { cwd: path.resolve(import.meta.dirname, '..') },
  );
  return JSON.parse(stdout);
}

describe.runIf(process.platform === 'linux')('lowerProcessPriority', () => {
  it(
    'lowers every thread, those running and those started after, and never raises one',
    async () => {
      const ours = os.getPriority();
      // The fixture starts at this process's niceness; the test needs room above it.
      expect(ours).toBeLessThanOrEqual(5);
      const { changed, niceness } = await lowerInChild([ours + 7, ours + 3]);
      // The main thread, V8's and libuv's threads, the thread started before: several changed.
      expect(changed[0]).toBeGreaterThan(2);
      // Asked for less than it has, nothing changes.
      expect(changed[1]).toBe(0);
      expect(niceness.length).toBe(niceness.filter((value) => value === ours + 7).length);
    },
    HANG_BOUND_MS,
  );

  it('refuses a niceness outside 1 to 19', () => {
    expect(() => lowerProcessPriority(0)).toThrow(RangeError);
    expect(() => lowerProcessPriority(20)).toThrow(RangeError);
    expect(() => lowerProcessPriority(2.5)).toThrow(RangeError);
  });
});
