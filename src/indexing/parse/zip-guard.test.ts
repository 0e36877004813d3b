import { readFileSync, writeFileSync } from 'node:fs';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  type CraftedEntry,
  craftZip,
  deflatedEntry,
  repeatedDeflate,
  storedEntry,
} from '../../../test/fixtures/crafted-zip.js';
import { generateDocx, generateDocxBomb, HANDBOOK_BLOCKS } from '../../../test/fixtures/documents.js';
import { FileFailure } from '../document.js';
import { crc32 } from './zip-crc32.js';
import { inflateZipEntry, readZipDirectory, type ZipLimits } from './zip-guard.js';

const MIB = 1024 * 1024;
const LIMITS: ZipLimits = { maxUncompressedBytes: 100 * MIB };
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function failureOf(action: () => unknown): FileFailure {
  try {
    action();
  } catch (error) {
    if (error instanceof FileFailure) return error;
    throw error;
  }
  throw new Error('expected a FileFailure');
}

/** Every entry's inflated text, by name. */
function readAll(bytes: Uint8Array, limits: ZipLimits = LIMITS): Record<string, string> {
  return Object.fromEntries(
    readZipDirectory(bytes, limits).map((entry) => [entry.name, decode(inflateZipEntry(bytes, entry))]),
  );
}

/**
 * Starts this process's peak resident memory again from what it holds now (Linux: writing 5 to
 * clear_refs resets VmHWM): the test files before this one in the same process may have peaked higher.
 */
function resetPeakResidentBytes(): void {
  writeFileSync('/proc/self/clear_refs', '5');
}

/** This process's peak resident memory so far (Linux), in bytes. */
function peakResidentBytes(): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(match?.[1] ?? Number.NaN) * 1024;
}

/** This process's CPU time so far, in ms: unlike the wall clock, other processes' load does not stretch it. */
function cpuMilliseconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

describe('readZipDirectory and inflateZipEntry on honest archives', () => {
  it('read a DOCX written by the docx package, every part intact', async () => {
    const bytes = await generateDocx({ blocks: HANDBOOK_BLOCKS });
    const parts = readAll(bytes);
    expect(Object.keys(parts)).toEqual(
      expect.arrayContaining(['[Content_Types].xml', '_rels/.rels', 'word/document.xml']),
    );
    expect(parts['word/document.xml']).toContain('Managers approve trips');
  });

  it('read stored and deflated entries, with and without ZIP64 records', () => {
    const entries = [storedEntry('a.txt', 'stored text'), deflatedEntry('dir/b.xml', '<b>deflated</b>')];
    const expected = { 'a.txt': 'stored text', 'dir/b.xml': '<b>deflated</b>' };
    expect(readAll(craftZip(entries))).toEqual(expected);
    expect(readAll(craftZip(entries, { zip64: true }))).toEqual(expected);
  });

  it('accept sizes left to a data descriptor, and the ratio of very repetitive honest XML', () => {
    const content = '<w:tr><w:tc><w:p/></w:tc></w:tr>'.repeat(200_000);
    const repetitive = deflatedEntry('word/document.xml', content);
    // About 340-fold, as generated reports of identical rows measure.
    expect(repetitive.uncompressedSize / repetitive.data.length).toBeGreaterThan(200);
    const deferred: CraftedEntry = {
      ...deflatedEntry('word/styles.xml', '<w:styles/>'),
      flags: 0x0008,
      local: { uncompressedSize: 0, compressedSize: 0 },
    };
    const parts = readAll(craftZip([repetitive, deferred]));
    expect(parts['word/document.xml']).toHaveLength(content.length);
    expect(parts['word/styles.xml']).toBe('<w:styles/>');
  });
});

describe('readZipDirectory refuses before inflating anything', () => {
  // Data that is not deflate at all: reaching the inflater would fail differently.
  const garbage = new Uint8Array(64).fill(0xff);
  const declaring = (name: string, uncompressedSize: number): CraftedEntry => ({
    name,
    data: garbage,
    method: 8,
    uncompressedSize,
    crc32: 0,
  });

  it('an entry, or all entries together, declaring more than the cap, as too_large', () => {
    const one = failureOf(() => readZipDirectory(craftZip([declaring('big.xml', 101 * MIB)]), LIMITS));
    expect(one).toMatchObject({ reason: 'too_large', message: /big\.xml inflates to 105906176 bytes/ });
    const together = craftZip([declaring('a.xml', 60 * MIB), declaring('b.xml', 60 * MIB)]);
    const sum = failureOf(() => readZipDirectory(together, { ...LIMITS, maxCompressionRatio: 10 ** 7 }));
    expect(sum).toMatchObject({ reason: 'too_large', message: /entries inflate to more than/ });
  });

  it('a ZIP64 bomb declaring 5 GiB, as too_large', () => {
    const bomb = generateDocxBomb({ inflatedMiB: 5 * 1024, declare: 'actual' });
    expect(bomb.length).toBeLessThan(8 * MIB);
    expect(failureOf(() => readZipDirectory(bomb, LIMITS))).toMatchObject({
      reason: 'too_large',
      message: /word\/document\.xml inflates to 5368709\d+ bytes/,
    });
  });

  it('an entry over 1 MiB inflating more than 500-fold, as unsafe_archive', () => {
    const bomb = generateDocxBomb({ inflatedMiB: 48, declare: 'actual' });
    expect(failureOf(() => readZipDirectory(bomb, LIMITS))).toMatchObject({
      reason: 'unsafe_archive',
      message: /word\/document\.xml inflates 10\d\d-fold, more than the 500-fold allowed/,
    });
    // The same ratio under 1 MiB costs too little to matter.
    const small = deflatedEntry('small.xml', ' '.repeat(1000 * 1000));
    expect(() => readZipDirectory(craftZip([small]), LIMITS)).not.toThrow();
  });

  it('more entries than allowed, or other than the end record counts, as unsafe_archive', () => {
    const many = Array.from({ length: 10_001 }, (_, index) => storedEntry(`part-${index}.xml`, ''));
    expect(failureOf(() => readZipDirectory(craftZip(many), LIMITS))).toMatchObject({
      reason: 'unsafe_archive',
      message: /lists 10001 entries, more than the 10000 allowed/,
    });
    const entries = [storedEntry('a.xml', 'a'), storedEntry('b.xml', 'b')];
    for (const declaredEntries of [1, 3]) {
      expect(failureOf(() => readZipDirectory(craftZip(entries, { declaredEntries }), LIMITS)).reason).toBe(
        'unsafe_archive',
      );
    }
  });

  it('methods other than stored and deflated, and encryption, as unsafe_archive', () => {
    const bzip2 = { ...deflatedEntry('a.xml', 'x'), method: 12 };
    expect(failureOf(() => readZipDirectory(craftZip([bzip2]), LIMITS))).toMatchObject({
      reason: 'unsafe_archive',
      message: /a\.xml uses compression method 12/,
    });
    const encrypted = { ...deflatedEntry('a.xml', 'x'), flags: 0x0001 };
    expect(failureOf(() => readZipDirectory(craftZip([encrypted]), LIMITS))).toMatchObject({
      reason: 'unsafe_archive',
      message: /a\.xml is encrypted/,
    });
  });

  it('local headers that disagree with the central directory, as unsafe_archive', () => {
    const honest = deflatedEntry('word/document.xml', '<w:document/>');
    const cases: [NonNullable<CraftedEntry['local']>, RegExp][] = [
      [{ name: 'word/other.xml' }, /local header of word\/document\.xml names another file/],
      [{ uncompressedSize: 10 }, /declares other sizes than the central directory/],
      [{ compressedSize: 1 }, /declares other sizes than the central directory/],
      [{ method: 0 }, /disagrees with the central directory/],
    ];
    for (const [local, message] of cases) {
      expect(failureOf(() => readZipDirectory(craftZip([{ ...honest, local }]), LIMITS))).toMatchObject({
        reason: 'unsafe_archive',
        message,
      });
    }
  });

  it('entries that overlap or share a name, as unsafe_archive', () => {
    const first = deflatedEntry('a.xml', '<a/>');
    // The first entry claims the next one's header as its own data: two names for the same bytes.
    const overlapping = craftZip([
      { ...first, compressedSize: first.data.length + 10 },
      storedEntry('b.xml', 'b'),
    ]);
    expect(failureOf(() => readZipDirectory(overlapping, LIMITS))).toMatchObject({
      reason: 'unsafe_archive',
      message: /a\.xml and b\.xml overlap/,
    });
    const twice = craftZip([storedEntry('a.xml', 'a'), storedEntry('a.xml', 'b')]);
    expect(failureOf(() => readZipDirectory(twice, LIMITS))).toMatchObject({
      reason: 'unsafe_archive',
      message: /a\.xml is listed twice/,
    });
  });

  it('bytes hidden between the entries and the directory, as unsafe_archive', () => {
    const bytes = craftZip([storedEntry('a.xml', 'a')]);
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    // The end record's directory offset, moved back one byte.
    view.setUint32(bytes.length - 6, view.getUint32(bytes.length - 6, true) - 1, true);
    expect(failureOf(() => readZipDirectory(bytes, LIMITS)).reason).toBe('unsafe_archive');
  });

  it('what is not a ZIP archive, or is cut short, as parse_error', () => {
    const text = new TextEncoder().encode('PK\u0003\u0004 not really a zip');
    expect(failureOf(() => readZipDirectory(text, LIMITS))).toMatchObject({
      reason: 'parse_error',
      message: /the archive could not be read: it is not a ZIP archive/,
    });
    const whole = craftZip([deflatedEntry('a.xml', '<a/>')]);
    expect(failureOf(() => readZipDirectory(whole.subarray(0, whole.length - 3), LIMITS)).reason).toBe(
      'parse_error',
    );
  });

  it('names the file as its caller does', () => {
    const failure = failureOf(() => readZipDirectory(new Uint8Array(10), LIMITS, 'the DOCX file'));
    expect(failure.message).toMatch(/^the DOCX file could not be read/);
  });
});

describe('inflateZipEntry', () => {
  it('stops a bomb lying about its size at the size it declares, without inflating the rest', () => {
    // 1 GiB of spaces declaring 64 KiB.
    const bomb = generateDocxBomb({ inflatedMiB: 1024, declare: 'small' });
    const entry = readZipDirectory(bomb, LIMITS).find((candidate) => candidate.name === 'word/document.xml');
    if (entry === undefined) throw new Error('no document part');
    resetPeakResidentBytes();
    const peakBefore = peakResidentBytes();
    const started = cpuMilliseconds();
    expect(failureOf(() => inflateZipEntry(bomb, entry))).toMatchObject({
      reason: 'unsafe_archive',
      message: /word\/document\.xml inflates to more than the 65536 bytes it declares/,
    });
    // Inflating it all takes seconds of CPU and a gigabyte.
    expect(cpuMilliseconds() - started).toBeLessThan(500);
    expect(peakResidentBytes() - peakBefore).toBeLessThan(64 * MIB);
  });

  it('refuses an entry that inflates to less than it declares, and one that fails its checksum', () => {
    const content = new TextEncoder().encode('<w:document/>');
    const short: CraftedEntry = { ...deflatedEntry('a.xml', content), uncompressedSize: 100 };
    const [shortEntry] = readZipDirectory(craftZip([short]), LIMITS);
    if (shortEntry === undefined) throw new Error('no entry');
    expect(failureOf(() => inflateZipEntry(craftZip([short]), shortEntry))).toMatchObject({
      reason: 'unsafe_archive',
      message: /a\.xml inflates to 13 bytes, not the 100 it declares/,
    });
    const corrupt = craftZip([{ ...deflatedEntry('a.xml', content), crc32: crc32(content) ^ 1 }]);
    const [corruptEntry] = readZipDirectory(corrupt, LIMITS);
    if (corruptEntry === undefined) throw new Error('no entry');
    expect(failureOf(() => inflateZipEntry(corrupt, corruptEntry))).toMatchObject({
      reason: 'parse_error',
      message: /a\.xml fails its checksum/,
    });
  });

  it('refuses deflate data that does not inflate, as parse_error', () => {
    const broken = craftZip([
      {
        name: 'a.xml',
        data: deflateRawSync('<a/>').subarray(0, 2),
        method: 8,
        uncompressedSize: 4,
        crc32: 0,
      },
    ]);
    const [entry] = readZipDirectory(broken, LIMITS);
    if (entry === undefined) throw new Error('no entry');
    expect(failureOf(() => inflateZipEntry(broken, entry)).reason).toBe('parse_error');
  });

  it('is tested with bombs of real deflate data: 64 MiB of output from a few kilobytes', () => {
    const encode = (text: string) => new TextEncoder().encode(text);
    const data = repeatedDeflate(encode('<a>'), new Uint8Array(16 * MIB).fill(0x20), 4, encode('</a>'));
    expect(data.length).toBeLessThan(80 * 1024);
    const inflated = inflateRawSync(data);
    expect(inflated.length).toBe(3 + 64 * MIB + 4);
    expect(decode(inflated.subarray(0, 4))).toBe('<a> ');
    expect(decode(inflated.subarray(-5))).toBe(' </a>');
  });
});
