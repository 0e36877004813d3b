/**
 * Bytes to text: a byte-order mark wins, then the declared charset when the runtime knows it,
 * then UTF-8; bytes that are not valid UTF-8 are read as Windows-1252 (what "latin1" means on
 * the web), which never fails and is right for most legacy Western files.
 */
export function decodeText(bytes: Uint8Array, charset?: string): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return utf8(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  const declared = charset?.trim().toLowerCase();
  if (declared !== undefined && declared !== '' && declared !== 'utf-8' && declared !== 'utf8') {
    if (WINDOWS_1252_LABELS.has(declared)) return windows1252(bytes);
    const decoder = decoderFor(declared);
    if (decoder !== undefined) return decoder.decode(bytes);
  }
  try {
    return utf8(bytes);
  } catch {
    return windows1252(bytes);
  }
}

function utf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
}

function decoderFor(label: string): InstanceType<typeof TextDecoder> | undefined {
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}

// The WHATWG Encoding standard reads all of these as Windows-1252.
const WINDOWS_1252_LABELS: ReadonlySet<string> = new Set([
  'windows-1252',
  'cp1252',
  'x-cp1252',
  'latin1',
  'iso-8859-1',
  'iso8859-1',
  'iso_8859-1',
  'l1',
  'us-ascii',
  'ascii',
]);

// Bytes 0x80-0x9F, where Windows-1252 differs from ISO-8859-1 (Node 20's decoder reads them as
// C1 controls); the five undefined ones stay as their control characters.
const WINDOWS_1252_HIGH =
  '\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F' +
  '\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178';

function windows1252(bytes: Uint8Array): string {
  const parts: string[] = [];
  const step = 8192;
  for (let start = 0; start < bytes.length; start += step) {
    const codes = Array.from(bytes.subarray(start, start + step), (byte) =>
      byte >= 0x80 && byte <= 0x9f ? WINDOWS_1252_HIGH.charCodeAt(byte - 0x80) : byte,
    );
    parts.push(String.fromCharCode(...codes));
  }
  return parts.join('');
}
