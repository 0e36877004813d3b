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
  /** Used for its extension when the type says nothing (`application/octet-stream` or empty). */
  readonly fileName?: string;
  /** Most bytes an archive-based file (DOCX) may inflate to, all entries together; 100 MiB unless told. */
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

/** `Text/HTML; charset=UTF-8` → `{ essence: 'text/html', charset: 'UTF-8' }`. */
function parseMimeType(mimeType: string): { essence: string; charset: string | undefined } {
  const [essence = '', ...parameters] = mimeType.split(';');
  const charset = parameters
    // Trimmed first: `\s*` at both ends of an unanchored run of spaces backtracks quadratically.
    .map((parameter) => /^charset\s*=\s*"?([^";]*)"?$/i.exec(parameter.trim())?.[1])
    .find((value) => value !== undefined);
  return { essence: essence.trim().toLowerCase(), charset };
}

function formatOf(essence: string, fileName: string | undefined): Format | undefined {
  const known = FORMAT_BY_MIME_TYPE.get(essence);
  if (known !== undefined) return known;
  if (essence.endsWith('+json')) return 'json';
  if (essence !== '' && essence !== 'application/octet-stream' && essence !== 'binary/octet-stream') {
    return undefined;
  }
  const extension = /\.([a-z0-9]+)$/i.exec(fileName ?? '')?.[1]?.toLowerCase();
  return extension === undefined ? undefined : FORMAT_BY_EXTENSION.get(extension);
}

/** Whether `parseDocument` reads this type (for an untyped file, pass its name: the extension decides). */
export function isSupportedMimeType(mimeType: string, fileName?: string): boolean {
  return formatOf(parseMimeType(mimeType).essence, fileName) !== undefined;
}

/**
 * A file's bytes to blocks, by its MIME type (or its extension when untyped). Throws `FileFailure`:
 * `unsupported_type` for a type it does not read, `parse_error` for a file it cannot read, and for
 * an archive `too_large` or `unsafe_archive` (see `zip-guard.ts`).
 */
export async function parseDocument(input: ParseInput): Promise<ParsedDocument> {
  const { essence, charset } = parseMimeType(input.mimeType);
  const format = formatOf(essence, input.fileName);
  if (format === undefined) {
    const described = essence === '' ? 'a file without a type' : essence;
    throw new FileFailure('unsupported_type', `${described} is not a supported document type`);
  }
  try {
    return await parseFormat(format, input, charset);
  } catch (error) {
    if (error instanceof FileFailure) throw error;
    // A reader that trips over a file will trip again: final for this file, not retried.
    const detail = error instanceof Error ? error.message : String(error);
    throw new FileFailure('parse_error', `the ${format} file could not be read: ${detail}`, { cause: error });
  }
}

async function parseFormat(
  format: Format,
  input: ParseInput,
  charset: string | undefined,
): Promise<ParsedDocument> {
  const { bytes } = input;
  switch (format) {
    case 'pdf':
      return parsePdf(bytes);
    case 'docx':
      return parseDocx(bytes, {
        maxUncompressedBytes: input.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES,
      });
    case 'html':
      return parseHtml(decodeText(bytes, charset));
    case 'confluence':
      return parseConfluenceStorage(decodeText(bytes, charset));
    case 'markdown':
      return parseMarkdown(decodeText(bytes, charset));
    case 'text':
      return parsePlainText(decodeText(bytes, charset));
    case 'csv':
      return parseCsv(decodeText(bytes, charset), ',');
    case 'tsv':
      return parseCsv(decodeText(bytes, charset), '\t');
    case 'json':
      return parseJson(decodeText(bytes, charset));
  }
}
