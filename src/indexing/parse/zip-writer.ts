// Writes a ZIP archive of STORED (uncompressed) entries: how checked, inflated parts are handed to
// a library that only reads ZIP archives, so it inflates nothing itself.

export interface StoredZipEntry {
  readonly name: string;
  /** The entry's length, known before its bytes are produced: the archive is allocated once. */
  readonly size: number;
  readonly crc32: number;
  /** Called once, in order, when the entry is written; the bytes may be dropped afterwards. */
  readonly contents: () => Uint8Array;
}

const LOCAL_SIZE = 30;
const CENTRAL_SIZE = 46;
const END_SIZE = 22;
const FLAG_UTF8_NAME = 0x0800;
/** Stored entries, UTF-8 names: version 2.0 of the format. */
const VERSION = 20;

/**
 * A ZIP archive of `entries`, stored. Throws a `RangeError` past 4 GiB or 65,535 entries (no ZIP64:
 * callers write what caps already bound) and when an entry's bytes are not `size` long.
 */
export function writeStoredZip(entries: readonly StoredZipEntry[]): Uint8Array {
  const encoder = new TextEncoder();
  const names = entries.map((entry) => encoder.encode(entry.name));
  const localBytes = entries.reduce(
    (sum, entry, index) => sum + LOCAL_SIZE + (names[index] as Uint8Array).length + entry.size,
    0,
  );
  const centralBytes = names.reduce((sum, name) => sum + CENTRAL_SIZE + name.length, 0);
  const total = localBytes + centralBytes + END_SIZE;
  if (total > 0xffffffff || entries.length > 0xffff) {
    throw new RangeError('a stored archive this large needs ZIP64, which is not written');
  }
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let position = 0;
  const offsets: number[] = [];
  entries.forEach((entry, index) => {
    const name = names[index] as Uint8Array;
    offsets.push(position);
    view.setUint32(position, 0x04034b50, true);
    view.setUint16(position + 4, VERSION, true);
    view.setUint16(position + 6, FLAG_UTF8_NAME, true);
    view.setUint16(position + 8, 0, true);
    // Time and date stay 0: the parts' times mean nothing to a reader.
    view.setUint32(position + 14, entry.crc32, true);
    view.setUint32(position + 18, entry.size, true);
    view.setUint32(position + 22, entry.size, true);
    view.setUint16(position + 26, name.length, true);
    view.setUint16(position + 28, 0, true);
    out.set(name, position + LOCAL_SIZE);
    const contents = entry.contents();
    if (contents.length !== entry.size) {
      throw new RangeError(`${entry.name} is ${contents.length} bytes, not the ${entry.size} announced`);
    }
    out.set(contents, position + LOCAL_SIZE + name.length);
    position += LOCAL_SIZE + name.length + entry.size;
  });
  const centralOffset = position;
  entries.forEach((entry, index) => {
    const name = names[index] as Uint8Array;
    view.setUint32(position, 0x02014b50, true);
    view.setUint16(position + 4, VERSION, true);
    view.setUint16(position + 6, VERSION, true);
    view.setUint16(position + 8, FLAG_UTF8_NAME, true);
    view.setUint16(position + 10, 0, true);
    view.setUint32(position + 16, entry.crc32, true);
    view.setUint32(position + 20, entry.size, true);
    view.setUint32(position + 24, entry.size, true);
    view.setUint16(position + 28, name.length, true);
    view.setUint32(position + 42, offsets[index] as number, true);
    out.set(name, position + CENTRAL_SIZE);
    position += CENTRAL_SIZE + name.length;
  });
  view.setUint32(position, 0x06054b50, true);
  view.setUint16(position + 8, entries.length, true);
  view.setUint16(position + 10, entries.length, true);
  view.setUint32(position + 12, position - centralOffset, true);
  view.setUint32(position + 16, centralOffset, true);
  return out;
}
