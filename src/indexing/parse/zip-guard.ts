// Reads a ZIP archive (DOCX and every other archive-based format) without trusting it. Its
// central directory is walked and checked against caps before a byte is inflated, and an entry
// is inflated only up to the size it declares, so a zip bomb costs what its caps allow and no more.
//
// What is refused, and as what:
// - `too_large`: an entry, or all entries together, declaring more than `maxUncompressedBytes`.
// - `unsafe_archive`: anything a reader could be fooled by: more than `maxEntries` entries, an
//   entry over 1 MiB inflating more than `maxCompressionRatio`-fold, local headers that disagree
//   with the central directory, entries that overlap or are listed twice, data that inflates to
//   another size than declared, encryption, methods other than stored and deflated, several disks.
// - `parse_error`: bytes that are not a ZIP archive, or one cut short or damaged.
import { inflateRawSync } from 'node:zlib';
import { FileFailure } from '../document.js';
import { crc32 } from './zip-crc32.js';

export interface ZipLimits {
  /** Most bytes all entries together may declare, and so inflate to. */
  readonly maxUncompressedBytes: number;
  /** Most entries the archive may list. */
  readonly maxEntries?: number;
  /** Most bytes an entry over 1 MiB may inflate to per compressed byte. */
  readonly maxCompressionRatio?: number;
}

/**
 * What `INDEX_MAX_UNCOMPRESSED_BYTES` defaults to, for callers not given the configured cap. A
 * parse thread holds an archive's inflated parts besides its own bytes, and its text (blocks,
 * chunks) on its heap: 32 MiB of Word XML (some 15 MB of text) fits a thread's default share of
 * the parse memory budget (`parse-pool.ts`); 100 MiB did not.
 */
export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 32 * 1024 * 1024;
/** A DOCX has tens of entries, a few hundred with many pictures; thousands is a denial of service. */
export const DEFAULT_MAX_ZIP_ENTRIES = 10_000;
/**
 * Office XML with varied text deflates 5 to 30-fold; the most repetitive an honest document gets
 * (tens of thousands of identical rows or empty paragraphs, as generated reports have) measured
 * 240 to 340-fold. Deflate tops out near 1,030-fold, and bombs sit there.
 */
export const DEFAULT_MAX_COMPRESSION_RATIO = 500;
/** Below this an entry's ratio does not matter: the total cap bounds what small entries cost. */
const RATIO_CHECKED_ABOVE_BYTES = 1024 * 1024;

export interface ZipEntry {
  readonly name: string;
  readonly method: 'stored' | 'deflated';
  /** The CRC-32 the central directory declares for the inflated bytes. */
  readonly crc32: number;
  readonly compressedSize: number;
  /** Declared in the central directory (and the local header); inflating checks it holds. */
  readonly uncompressedSize: number;
  /** Where the entry's local header starts. */
  readonly headerOffset: number;
  /** Where its compressed bytes start, past the local header. */
  readonly dataOffset: number;
}

const END_SIGNATURE = 0x06054b50;
const END_SIZE = 22;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_LOCATOR_SIZE = 20;
const ZIP64_END_SIGNATURE = 0x06064b50;
const ZIP64_END_SIZE = 56;
const CENTRAL_SIGNATURE = 0x02014b50;
const CENTRAL_SIZE = 46;
const LOCAL_SIGNATURE = 0x04034b50;
const LOCAL_SIZE = 30;
const ZIP64_EXTRA_ID = 0x0001;
const SATURATED_16 = 0xffff;
const SATURATED_32 = 0xffffffff;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_DATA_DESCRIPTOR = 0x0008;
const FLAG_STRONG_ENCRYPTION = 0x0040;
const FLAG_UTF8_NAME = 0x0800;
/** The central directory itself is encrypted and its local headers masked. */
const FLAG_MASKED_HEADERS = 0x2000;
const METHODS = new Map<number, ZipEntry['method']>([
  [0, 'stored'],
  [8, 'deflated'],
]);

// Failures name the file as the caller calls it ("the DOCX file"), so their messages read alone.
const unsafe = (subject: string, message: string) =>
  new FileFailure('unsafe_archive', `${subject} is unsafe to open: ${message}`);
const damaged = (subject: string, message: string) =>
  new FileFailure('parse_error', `${subject} could not be read: ${message}`);
const tooLarge = (subject: string, message: string) =>
  new FileFailure('too_large', `${subject} is too large: ${message}`);
const DEFAULT_SUBJECT = 'the archive';
const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

/** Where the central directory is, from the end record (and the ZIP64 one when present). */
interface Directory {
  readonly entries: number;
  readonly offset: number;
  /** Where the directory must end: at the ZIP64 end record, or the end record. */
  readonly end: number;
}

class Reader {
  readonly #view: DataView;

  constructor(
    readonly bytes: Uint8Array,
    readonly subject: string,
  ) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get length(): number {
    return this.bytes.length;
  }

  /** Throws `parse_error` unless `length` bytes from `offset` are inside the file. */
  need(offset: number, length: number, what: string): void {
    if (offset < 0 || offset + length > this.bytes.length) throw damaged(this.subject, `${what} is cut off`);
  }

  u16(offset: number): number {
    return this.#view.getUint16(offset, true);
  }

  u32(offset: number): number {
    return this.#view.getUint32(offset, true);
  }

  /** A 64-bit field; beyond 2^53 it is Infinity, which every cap refuses. */
  u64(offset: number): number {
    const value = this.#view.getBigUint64(offset, true);
    return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(value);
  }
}

/**
 * The archive's entries, after checking its structure and every entry's declared sizes against
 * `limits`. Inflates nothing. Throws `FileFailure` (`too_large`, `unsafe_archive`, `parse_error`)
 * whose message starts with `subject` ("the DOCX file").
 */
export function readZipDirectory(
  bytes: Uint8Array,
  limits: ZipLimits,
  subject = DEFAULT_SUBJECT,
): ZipEntry[] {
  const maxEntries = limits.maxEntries ?? DEFAULT_MAX_ZIP_ENTRIES;
  const maxRatio = limits.maxCompressionRatio ?? DEFAULT_MAX_COMPRESSION_RATIO;
  const reader = new Reader(bytes, subject);
  const directory = locateDirectory(reader);
  if (directory.entries > maxEntries) {
    throw unsafe(subject, `it lists ${directory.entries} entries, more than the ${maxEntries} allowed`);
  }
  const entries: ZipEntry[] = [];
  const names = new Set<string>();
  let declaredTotal = 0;
  let position = directory.offset;
  for (let index = 0; index < directory.entries; index += 1) {
    if (position + CENTRAL_SIZE > directory.end || reader.u32(position) !== CENTRAL_SIGNATURE) {
      throw unsafe(subject, 'its central directory holds fewer entries than its end record says');
    }
    const entry = readCentralEntry(reader, position, directory.end);
    const { name } = entry;
    if (names.has(name)) throw unsafe(subject, `${name} is listed twice`);
    names.add(name);
    if ((entry.flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION | FLAG_MASKED_HEADERS)) !== 0) {
      throw unsafe(subject, `${name} is encrypted`);
    }
    const method = METHODS.get(entry.method);
    if (method === undefined) {
      throw unsafe(
        subject,
        `${name} uses compression method ${entry.method}; only stored and deflated are read`,
      );
    }
    if (entry.disk !== 0) throw unsafe(subject, 'it spans several disks');
    if (entry.uncompressedSize > limits.maxUncompressedBytes) {
      throw tooLarge(
        subject,
        `${name} inflates to ${entry.uncompressedSize} bytes, ` +
          `more than the ${limits.maxUncompressedBytes} allowed`,
      );
    }
    declaredTotal += entry.uncompressedSize;
    if (declaredTotal > limits.maxUncompressedBytes) {
      throw tooLarge(
        subject,
        `its entries inflate to more than the ${limits.maxUncompressedBytes} bytes allowed`,
      );
    }
    if (method === 'stored' && entry.compressedSize !== entry.uncompressedSize) {
      throw unsafe(subject, `${name} is stored, yet declares two different sizes`);
    }
    if (
      entry.uncompressedSize > RATIO_CHECKED_ABOVE_BYTES &&
      entry.uncompressedSize > entry.compressedSize * maxRatio
    ) {
      const ratio = Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize));
      throw unsafe(subject, `${name} inflates ${ratio}-fold, more than the ${maxRatio}-fold allowed`);
    }
    const dataOffset = checkLocalHeader(reader, entry, directory.offset);
    entries.push({
      name,
      method,
      crc32: entry.crc32,
      compressedSize: entry.compressedSize,
      uncompressedSize: entry.uncompressedSize,
      headerOffset: entry.headerOffset,
      dataOffset,
    });
    position = entry.next;
  }
  if (position !== directory.end)
    throw unsafe(subject, 'its central directory holds more than its end record says');
  checkNoOverlap(entries, subject);
  return entries;
}

/**
 * One entry's bytes, inflated into a buffer one byte larger than it declares: an entry that lies
 * about its size stops there instead of inflating on. Checks the size and the CRC-32. A stored
 * entry's bytes are a view into `bytes`.
 */
export function inflateZipEntry(bytes: Uint8Array, entry: ZipEntry, subject = DEFAULT_SUBJECT): Uint8Array {
  const data = bytes.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
  let inflated: Uint8Array = data;
  if (entry.method === 'deflated') {
    try {
      // One output chunk of declared + 1 bytes: no second chunk, no copy joining chunks.
      inflated = inflateRawSync(data, {
        maxOutputLength: Math.max(1, entry.uncompressedSize),
        chunkSize: Math.max(64, entry.uncompressedSize + 1),
      });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw unsafe(
          subject,
          `${entry.name} inflates to more than the ${entry.uncompressedSize} bytes it declares`,
        );
      }
      throw damaged(
        subject,
        `${entry.name} does not inflate: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  if (inflated.length !== entry.uncompressedSize) {
    throw unsafe(
      subject,
      `${entry.name} inflates to ${inflated.length} bytes, not the ${entry.uncompressedSize} it declares`,
    );
  }
  if (crc32(inflated) !== entry.crc32) throw damaged(subject, `${entry.name} fails its checksum`);
  return inflated;
}

function locateDirectory(reader: Reader): Directory {
  const end = findEndRecord(reader);
  const disk = reader.u16(end + 4);
  const directoryDisk = reader.u16(end + 6);
  const entriesOnDisk = reader.u16(end + 8);
  const entries = reader.u16(end + 10);
  const size = reader.u32(end + 12);
  const offset = reader.u32(end + 16);
  const locator = end - ZIP64_LOCATOR_SIZE;
  if (locator >= 0 && reader.u32(locator) === ZIP64_LOCATOR_SIGNATURE) {
    const zip64 = readZip64End(reader, locator);
    const agrees = (classic: number, wide: number, saturated: number) =>
      classic === saturated || classic === wide;
    if (
      !agrees(disk, zip64.disk, SATURATED_16) ||
      !agrees(directoryDisk, zip64.directoryDisk, SATURATED_16) ||
      !agrees(entriesOnDisk, zip64.entriesOnDisk, SATURATED_16) ||
      !agrees(entries, zip64.entries, SATURATED_16) ||
      !agrees(size, zip64.size, SATURATED_32) ||
      !agrees(offset, zip64.offset, SATURATED_32)
    ) {
      throw unsafe(reader.subject, 'its end record and ZIP64 end record disagree');
    }
    return checkedDirectory(zip64, zip64.recordOffset, reader.subject);
  }
  if (size === SATURATED_32 || offset === SATURATED_32)
    throw damaged(reader.subject, 'its ZIP64 end record is missing');
  return checkedDirectory({ disk, directoryDisk, entriesOnDisk, entries, size, offset }, end, reader.subject);
}

function checkedDirectory(
  found: {
    disk: number;
    directoryDisk: number;
    entriesOnDisk: number;
    entries: number;
    size: number;
    offset: number;
  },
  end: number,
  subject: string,
): Directory {
  if (found.disk !== 0 || found.directoryDisk !== 0 || found.entriesOnDisk !== found.entries) {
    throw unsafe(subject, 'it spans several disks');
  }
  // Nothing may hide between the directory and the end record, nor the directory start elsewhere.
  if (found.offset + found.size !== end)
    throw unsafe(subject, 'its central directory is not where its end record says');
  return { entries: found.entries, offset: found.offset, end };
}

/** The end record: the last 22 bytes, or before a comment that runs exactly to the end of the file. */
function findEndRecord(reader: Reader): number {
  const last = reader.length - END_SIZE;
  for (let offset = last; offset >= 0 && offset >= last - SATURATED_16; offset -= 1) {
    if (reader.u32(offset) === END_SIGNATURE && reader.u16(offset + 20) === last - offset) return offset;
  }
  throw damaged(reader.subject, 'it is not a ZIP archive (no end of central directory record)');
}

function readZip64End(reader: Reader, locator: number) {
  const recordDisk = reader.u32(locator + 4);
  const recordOffset = reader.u64(locator + 8);
  const disks = reader.u32(locator + 16);
  if (recordDisk !== 0 || disks > 1) throw unsafe(reader.subject, 'it spans several disks');
  reader.need(recordOffset, ZIP64_END_SIZE, 'its ZIP64 end record');
  if (reader.u32(recordOffset) !== ZIP64_END_SIGNATURE)
    throw damaged(reader.subject, 'its ZIP64 end record is missing');
  const recordSize = reader.u64(recordOffset + 4);
  if (recordSize < ZIP64_END_SIZE - 12) throw damaged(reader.subject, 'its ZIP64 end record is too short');
  if (recordOffset + 12 + recordSize !== locator) {
    throw unsafe(reader.subject, 'its ZIP64 end record is not where its locator says');
  }
  return {
    recordOffset,
    disk: reader.u32(recordOffset + 16),
    directoryDisk: reader.u32(recordOffset + 20),
    entriesOnDisk: reader.u64(recordOffset + 24),
    entries: reader.u64(recordOffset + 32),
    size: reader.u64(recordOffset + 40),
    offset: reader.u64(recordOffset + 48),
  };
}

interface CentralEntry {
  readonly name: string;
  readonly nameBytes: Uint8Array;
  readonly flags: number;
  readonly method: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly headerOffset: number;
  readonly disk: number;
  /** Where the next central directory header starts. */
  readonly next: number;
}

function readCentralEntry(reader: Reader, position: number, directoryEnd: number): CentralEntry {
  const nameLength = reader.u16(position + 28);
  const extraLength = reader.u16(position + 30);
  const commentLength = reader.u16(position + 32);
  const nameStart = position + CENTRAL_SIZE;
  const next = nameStart + nameLength + extraLength + commentLength;
  if (next > directoryEnd)
    throw unsafe(reader.subject, 'an entry of its central directory runs past the directory');
  const flags = reader.u16(position + 8);
  const nameBytes = reader.bytes.subarray(nameStart, nameStart + nameLength);
  const name = decodeName(nameBytes, flags, reader.subject);
  // ZIP64 values replace the saturated fields only, in this order.
  const wide = zip64Values(reader, nameStart + nameLength, extraLength, name, [
    reader.u32(position + 24),
    reader.u32(position + 20),
    reader.u32(position + 42),
  ]);
  const disk = reader.u16(position + 34);
  return {
    name,
    nameBytes,
    flags,
    method: reader.u16(position + 10),
    crc32: reader.u32(position + 16),
    uncompressedSize: wide[0] as number,
    compressedSize: wide[1] as number,
    headerOffset: wide[2] as number,
    disk: disk === SATURATED_16 ? Number.POSITIVE_INFINITY : disk,
    next,
  };
}

/** `fields`, each saturated one (0xFFFFFFFF) replaced by the next value of the ZIP64 extra field. */
function zip64Values(
  reader: Reader,
  extraStart: number,
  extraLength: number,
  name: string,
  fields: readonly number[],
): number[] {
  if (!fields.includes(SATURATED_32)) return [...fields];
  let position = extraStart;
  const extraEnd = extraStart + extraLength;
  while (position + 4 <= extraEnd) {
    const id = reader.u16(position);
    const size = reader.u16(position + 2);
    if (position + 4 + size > extraEnd) break;
    if (id === ZIP64_EXTRA_ID) {
      let cursor = position + 4;
      return fields.map((field) => {
        if (field !== SATURATED_32) return field;
        if (cursor + 8 > position + 4 + size)
          throw unsafe(reader.subject, `${name} lacks the ZIP64 sizes it refers to`);
        const value = reader.u64(cursor);
        cursor += 8;
        return value;
      });
    }
    position += 4 + size;
  }
  throw unsafe(reader.subject, `${name} lacks the ZIP64 sizes it refers to`);
}

function decodeName(bytes: Uint8Array, flags: number, subject: string): string {
  if ((flags & FLAG_UTF8_NAME) === 0) return latin1.decode(bytes);
  try {
    return utf8.decode(bytes);
  } catch {
    throw damaged(subject, 'an entry name is not valid UTF-8');
  }
}

/** Checks the entry's local header says what the central directory says; answers where its data starts. */
function checkLocalHeader(reader: Reader, entry: CentralEntry, directoryOffset: number): number {
  const header = entry.headerOffset;
  if (header + LOCAL_SIZE > directoryOffset || reader.u32(header) !== LOCAL_SIGNATURE) {
    throw unsafe(reader.subject, `${entry.name} has no local header where the central directory says`);
  }
  const nameLength = reader.u16(header + 26);
  const extraLength = reader.u16(header + 28);
  const nameStart = header + LOCAL_SIZE;
  const dataOffset = nameStart + nameLength + extraLength;
  if (dataOffset + entry.compressedSize > directoryOffset) {
    throw unsafe(reader.subject, `${entry.name} runs into the central directory`);
  }
  const localName = reader.bytes.subarray(nameStart, nameStart + nameLength);
  if (Buffer.compare(localName, entry.nameBytes) !== 0) {
    throw unsafe(reader.subject, `the local header of ${entry.name} names another file`);
  }
  const flags = reader.u16(header + 6);
  if (
    reader.u16(header + 8) !== entry.method ||
    (flags & FLAG_ENCRYPTED) !== (entry.flags & FLAG_ENCRYPTED)
  ) {
    throw unsafe(reader.subject, `the local header of ${entry.name} disagrees with the central directory`);
  }
  const [uncompressedSize, compressedSize] = zip64Values(
    reader,
    nameStart + nameLength,
    extraLength,
    entry.name,
    [reader.u32(header + 22), reader.u32(header + 18)],
  );
  // With a data descriptor, the local header may leave the CRC and sizes 0 (they follow the data).
  const deferred = (flags & FLAG_DATA_DESCRIPTOR) !== 0;
  const agrees = (local: number | undefined, central: number) =>
    local === central || (deferred && local === 0);
  if (
    !agrees(reader.u32(header + 14), entry.crc32) ||
    !agrees(uncompressedSize, entry.uncompressedSize) ||
    !agrees(compressedSize, entry.compressedSize)
  ) {
    throw unsafe(
      reader.subject,
      `the local header of ${entry.name} declares other sizes than the central directory`,
    );
  }
  return dataOffset;
}

/** Overlapping entries (several names for the same compressed bytes) multiply a bomb; none may. */
function checkNoOverlap(entries: readonly ZipEntry[], subject: string): void {
  const byOffset = [...entries].sort((a, b) => a.headerOffset - b.headerOffset);
  for (let index = 1; index < byOffset.length; index += 1) {
    const previous = byOffset[index - 1] as ZipEntry;
    const current = byOffset[index] as ZipEntry;
    if (previous.dataOffset + previous.compressedSize > current.headerOffset) {
      throw unsafe(subject, `${previous.name} and ${current.name} overlap`);
    }
  }
}
