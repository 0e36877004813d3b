import { describe, expect, it } from 'vitest';
import { batchDone, batchSummary, describeBytes, phaseWords, tooLargeWords } from './upload-words';

describe('describeBytes', () => {
  it('gives a size in the unit people read it in', () => {
    expect(describeBytes(32 * 1024 * 1024)).toBe('32 MiB');
    expect(describeBytes(256 * 1024)).toBe('256 KiB');
    expect(describeBytes(1.5 * 1024 * 1024)).toBe('1.5 MiB');
    expect(describeBytes(2 * 1024 ** 3)).toBe('2 GiB');
    expect(describeBytes(900)).toBe('900 bytes');
    expect(describeBytes(1)).toBe('1 byte');
  });
});

describe('tooLargeWords', () => {
  it('names the size the server accepts, not the setting', () => {
    expect(tooLargeWords(32 * 1024 * 1024)).toBe(
      'this file is larger than 32 MiB, the largest this server accepts',
    );
    expect(tooLargeWords(undefined)).toBe('this file is larger than this server accepts');
  });
});

describe('batchSummary', () => {
  it('folds a finished batch into one line of counts', () => {
    const phases = [...Array.from({ length: 30 }, () => 'indexed' as const), 'failed' as const];
    expect(batchSummary(phases)).toBe('31 files: 30 indexed, 1 failed');
    expect(batchDone(phases)).toBe(true);
  });

  it('counts what is still on its way after what is settled', () => {
    const phases = ['pending', 'indexed', 'waiting', 'uploading', 'skipped', 'waiting'] as const;
    expect(batchSummary(phases)).toBe('6 files: 1 indexed, 1 skipped, 1 pending, 1 uploading, 2 waiting');
    expect(batchDone(phases)).toBe(false);
  });

  it('says one file in the singular', () => {
    expect(batchSummary(['indexed'])).toBe('1 file: 1 indexed');
  });
});

describe('phaseWords', () => {
  it('says a file not yet sent is waiting to upload', () => {
    expect(phaseWords('waiting')).toBe('waiting to upload');
    expect(phaseWords('failed')).toBe('failed');
  });
});
