import { isUtf8 } from 'node:buffer';
import { compactText } from '../compact-text.js';
import { FileFailure, type ParsedDocument } from '../document.js';
import { decodeText } from './decode-text.js';
import { CONFLUENCE_STORAGE_MIME_TYPE, parseConfluenceStorage } from './parse-confluence.js';
import { parseCsv } from './parse-csv.js';
import { parseDocx } from './parse-docx.js';
import { parseHtml } from './parse-html.js';
import { parseJson } from './parse-json.js';
import { parseMarkdown } from './parse-markdown.js';
import { parsePdf } from './parse-pdf.js';
import { parsePlainText } from './parse-plain-text.js';
import { DEFAULT_MAX_UNCOMPRESSED_BYTES } from './zip-guard.js';

export { CONFLUENCE_STORAGE_MIME_TYPE };

export interface ParseInput {
  /** As the source labels the file; parameters (`; charset=…`) are allowed. */
  readonly mimeType: string;
  readonly bytes: Uint8Array;
  /**
   * Used for its extension when the type says nothing (`application/octet-stream`, empty, …);
   * without a known extension the content decides (see `sniffFormat`).
   */
  readonly fileName?: string;
  /** Most bytes an archive-based file (DOCX) may inflate to, all entries together; INDEX_MAX_UNCOMPRESSED_BYTES (32 MiB) unless told. */
  readonly maxUncompressedBytes?: number;
}

type Format = 'pdf' | 'docx' | 'html' | 'confluence' | 'markdown' | 'text' | 'csv' | 'tsv' | 'json';

const FORMAT_BY_MIME_TYPE: ReadonlyMap<string, Format> = new Map([
  ['application/pdf', 'pdf'],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  ['text/html', 'html'],
  ['application/xhtml+xml', 'html'],
  [CONFLUENCE_STORAGE_MIME_TYPE, 'confluence'],
  // Google Docs export as Markdown, Sheets as CSV, Slides as plain text.
  ['text/markdown', 'markdown'],
  ['text/x-markdown', 'markdown'],
  ['text/plain', 'text'],
  ['text/csv', 'csv'],
  ['text/tab-separated-values', 'tsv'],
  ['application/json', 'json'],
]);

const FORMAT_BY_EXTENSION: ReadonlyMap<string, Format> = new Map([
  ['pdf', 'pdf'],
  ['docx', 'docx'],
  ['html', 'html'],
  ['htm', 'html'],
  ['xhtml', 'html'],
  ['md', 'markdown'],
  ['markdown', 'markdown'],
  ['txt', 'text'],
  ['text', 'text'],
  ['csv', 'csv'],
  ['tsv', 'tsv'],
  ['json', 'json'],
]);

/** The type each format is stored as when the file came without a useful one. */
const MIME_TYPE_BY_FORMAT: Readonly<Record<Exclude<Format, 'confluence'>, string>> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  html: 'text/html',
  markdown: 'text/markdown',
  text: 'text/plain',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  json: 'application/json',
};

/**
 * Types that say nothing about the content: what curl and browsers send for a file they do not
 * know (`application/octet-stream`, or no type), and a few servers' equivalents.
 */
const GENERIC_MIME_TYPES: ReadonlySet<string> = new Set([
  '',
  'application/octet-stream',
  'binary/octet-stream',
  'application/binary',
  'application/unknown',
  'application/x-unknown',
  'application/force-download',
  'application/download',
]);
/** What some clients call a DOCX, which is a ZIP archive: its extension decides. */
const ZIP_MIME_TYPES: ReadonlySet<string> = new Set([
  'application/zip',
  'application/x-zip',
  'application/x-zip-compressed',
]);

/** `Text/HTML; charset=UTF-8` → `{ essence: 'text/html', charset: 'UTF-8' }`. */
function parseMimeType(mimeType: string): { essence: string; charset: string | undefined } {
  const [essence = '', ...parameters] = mimeType.split(';');
  const charset = parameters
    // Trimmed first: `\s*` at both ends of an unanchored run of spaces backtracks quadratically.
    .map((parameter) => /^charset\s*=\s*"?([^";]*)"?$/i.exec(parameter.trim())?.[1])
    .find((value) => value !== undefined);
  return { essence: essence.trim().toLowerCase(), charset };
}

function extensionOf(fileName: string | undefined): string | undefined {
  return /\.([a-z0-9]+)$/i.exec(fileName ?? '')?.[1]?.toLowerCase();
}

/** The format a label names; a generic label (or a ZIP's, or text/plain) is refined by the extension. */
function formatOf(essence: string, fileName: string | undefined): Format | undefined {
  const byExtension = () => {
    const extension = extensionOf(fileName);
    return extension === undefined ? undefined : FORMAT_BY_EXTENSION.get(extension);
  };
  if (ZIP_MIME_TYPES.has(essence)) return byExtension() === 'docx' ? 'docx' : undefined;
  const known = FORMAT_BY_MIME_TYPE.get(essence);
  // A multipart file part without a type reads as text/plain (RFC 7578), and some systems label
  // every text file so: the extension of a format we read says more (`.md`, `.csv`, `.pdf`).
  if (known === 'text') return byExtension() ?? known;
  if (known !== undefined) return known;
  if (essence.endsWith('+json')) return 'json';
  return GENERIC_MIME_TYPES.has(essence) ? byExtension() : undefined;
}

/** Whether `parseDocument` reads this type (for an untyped file, pass its name: the extension decides). */
export function isSupportedMimeType(mimeType: string, fileName?: string): boolean {
  return formatOf(parseMimeType(mimeType).essence, fileName) !== undefined;
}

/**
 * The type to keep for an uploaded file, before its bytes are read, or `undefined` when no parser
 * reads it. A label that says nothing (`application/octet-stream`, curl's default) becomes the
 * type its extension names (`notes.md` → `text/markdown`); a file without any extension keeps it,
 * and its content decides when it is parsed. Any other label is kept as sent.
 */
export function resolveMimeType(mimeType: string, fileName?: string): string | undefined {
  const { essence } = parseMimeType(mimeType);
  const format = formatOf(essence, fileName);
  if (format === undefined) {
    const untyped = GENERIC_MIME_TYPES.has(essence) && extensionOf(fileName) === undefined;
    return untyped ? 'application/octet-stream' : undefined;
  }
  if (format === 'confluence' || FORMAT_BY_MIME_TYPE.get(essence) === format) return mimeType;
  return MIME_TYPE_BY_FORMAT[format];
}

/**
 * A file's bytes to blocks, by its MIME type; a file labelled with a type that says nothing is
 * read by its extension, else by its content, and one labelled text/plain by the extension of a
 * format it reads; the type it was then read as is returned as `mimeType`. Throws `FileFailure`: `empty` for a file of nothing but whitespace,
 * `unsupported_type` for a type it does not read, `parse_error` for a file it cannot read, and
 * for an archive `too_large` or `unsafe_archive` (see `zip-guard.ts`).
 */
export async function parseDocument(input: ParseInput): Promise<ParsedDocument> {
  const { essence, charset } = parseMimeType(input.mimeType);
  const labelled = formatOf(essence, input.fileName);
  const generic = GENERIC_MIME_TYPES.has(essence) || ZIP_MIME_TYPES.has(essence);
  const format = labelled ?? (generic ? sniffFormat(input.bytes, input.fileName) : undefined);
  if (format === undefined) {
    const described = essence === '' ? 'a file without a type' : essence;
    throw new FileFailure('unsupported_type', `${described} is not a supported document type`);
  }
  if (isBlank(input.bytes)) throw emptyFile();
  let parsed: ParsedDocument;
  try {
    parsed = await parseFormat(format, input, charset);
  } catch (error) {
    if (error instanceof FileFailure) throw error;
    // A reader that trips over a file will trip again: final for this file, not retried.
    const detail = error instanceof Error ? error.message : String(error);
    throw new FileFailure('parse_error', `the ${format} file could not be read: ${detail}`, { cause: error });
  }
  // Each block's text a string of its own, so the file's decoded text can go (see compactText).
  parsed = { ...parsed, blocks: parsed.blocks.map((block) => ({ ...block, text: compactText(block.text) })) };
  // Reported when the label said nothing, or named another format (text/plain on a `.md` file).
  const named = FORMAT_BY_MIME_TYPE.get(essence);
  const relabelled = generic || (named !== undefined && named !== format);
  if (!relabelled || format === 'confluence') return parsed;
  return { ...parsed, mimeType: MIME_TYPE_BY_FORMAT[format] };
}

const emptyFile = () =>
  new FileFailure('empty', 'nothing to index: the file is empty or holds only whitespace');

const isAsciiSpace = (byte: number | undefined) =>
  byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x0c;

/** No bytes, or only ASCII whitespace (a byte-order mark before it allowed); stops at the first other byte. */
function isBlank(bytes: Uint8Array): boolean {
  let index = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (index < bytes.length && isAsciiSpace(bytes[index])) index += 1;
  return index === bytes.length;
}

/** How far into a file its signature is looked for (a PDF may have junk before `%PDF-`). */
const SNIFF_BYTES = 1024;
const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];

/**
 * The format of a file whose label says nothing, from its content: `%PDF-` near the start is a
 * PDF; a ZIP archive naming `word/document.xml` (names are stored uncompressed) a DOCX; a page
 * opening with `<!doctype html` or `<html` is HTML. Other bytes that are UTF-8 text without NULs
 * are plain text, but only in a file without an extension: one we do not read (`.zip`, `.exe`)
 * stays unsupported.
 */
function sniffFormat(bytes: Uint8Array, fileName: string | undefined): Format | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const head = buffer.subarray(0, SNIFF_BYTES);
  if (head.includes('%PDF-', 0, 'latin1')) return 'pdf';
  if (ZIP_SIGNATURE.every((byte, index) => head[index] === byte)) {
    return buffer.includes('word/document.xml', 0, 'latin1') ? 'docx' : undefined;
  }
  const start = head
    .toString('latin1')
    .replace(/^\xEF\xBB\xBF/, '')
    .trimStart()
    .slice(0, 14);
  if (/^<!doctype html|^<html[\s>]/i.test(start)) return 'html';
  if (extensionOf(fileName) !== undefined || buffer.includes(0)) return undefined;
  return isUtf8(buffer) ? 'text' : undefined;
}

async function parseFormat(
  format: Format,
  input: ParseInput,
  charset: string | undefined,
): Promise<ParsedDocument> {
  const { bytes } = input;
  if (format === 'pdf') return parsePdf(bytes);
  if (format === 'docx') {
    return parseDocx(bytes, {
      maxUncompressedBytes: input.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES,
    });
  }
  const text = decodeText(bytes, charset);
  // Whitespace beyond ASCII (a UTF-16 file's, U+3000) is as empty as ASCII's.
  if (text.trim() === '') throw emptyFile();
  switch (format) {
    case 'html':
      return parseHtml(text);
    case 'confluence':
      return parseConfluenceStorage(text);
    case 'markdown':
      return parseMarkdown(text);
    case 'text':
      return parsePlainText(text);
    case 'csv':
      return parseCsv(text, ',');
    case 'tsv':
      return parseCsv(text, '\t');
    case 'json':
      return parseJson(text);
  }
}
