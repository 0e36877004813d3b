import { describe, expect, it } from 'vitest';
import { crc32 } from './zip-crc32.js';
import { inflateZipEntry, readZipDirectory } from './zip-guard.js';
import { writeStoredZip } from './zip-writer.js';

const encode = (text: string) => new TextEncoder().encode(text);

describe('writeStoredZip', () => {
  it('writes stored entries the guard reads back, producing each entry once, in order', () => {
    const contents = { '[Content_Types].xml': '<Types/>', 'word/document.xml': '<w:document>é</w:document>' };
    const produced: string[] = [];
    const zip = writeStoredZip(
      Object.entries(contents).map(([name, text]) => ({
        name,
        size: encode(text).length,
        crc32: crc32(encode(text)),
        contents: () => {
          produced.push(name);
          return encode(text);
        },
      })),
    );
    expect(produced).toEqual(Object.keys(contents));
    const entries = readZipDirectory(zip, { maxUncompressedBytes: 1024 });
    expect(entries.map((entry) => [entry.name, entry.method])).toEqual([
      ['[Content_Types].xml', 'stored'],
      ['word/document.xml', 'stored'],
    ]);
    const read = entries.map((entry) => new TextDecoder().decode(inflateZipEntry(zip, entry)));
    expect(read).toEqual(Object.values(contents));
  });

  it('refuses contents of another length than announced', () => {
    const entry = { name: 'a.xml', size: 3, crc32: 0, contents: () => encode('four') };
    expect(() => writeStoredZip([entry])).toThrow(RangeError);
  });
});
