import type { ParsedDocument } from '../document.js';
import { BlockCollector, describeRow, normalizeInline } from './blocks.js';

/**
 * Comma- (or tab-) separated values, read as RFC 4180 says: quoted fields may hold the delimiter,
 * line breaks and doubled quotes. Forgiving where the RFC is strict: a quote inside an unquoted
 * field is a character, and an unterminated quoted field runs to the end of the file.
 */
export function parseCsvRows(text: string, delimiter = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  const endField = () => {
    row.push(field);
    field = '';
    fieldStarted = false;
  };
  const endRow = () => {
    endField();
    rows.push(row);
    row = [];
  };
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quoted) {
      if (char !== '"') field += char;
      else if (text[index + 1] === '"') {
        field += '"';
        index += 1;
      } else quoted = false;
    } else if (char === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
    } else if (char === delimiter) {
      endField();
    } else if (char === '\r' || char === '\n') {
      if (char === '\r' && text[index + 1] === '\n') index += 1;
      endRow();
    } else {
      field += char;
      fieldStarted = true;
    }
  }
  if (fieldStarted || field !== '' || row.length > 0) endRow();
  return rows;
}

/**
 * Each data row becomes a text block that reads on its own, `Header: value; …`, when the first
 * row looks like a header (some text, no numbers); otherwise each row's values are joined.
 */
export function parseCsv(text: string, delimiter = ','): ParsedDocument {
  const rows = parseCsvRows(text, delimiter).filter((row) =>
    row.some((cell) => normalizeInline(cell) !== ''),
  );
  const collector = new BlockCollector();
  const [first, ...rest] = rows;
  if (first === undefined) return { blocks: [] };
  const headers = rest.length > 0 && looksLikeHeader(first) ? first : undefined;
  for (const row of headers === undefined ? rows : rest) collector.text(describeRow(headers, row));
  return { blocks: collector.blocks };
}

function looksLikeHeader(row: readonly string[]): boolean {
  const cells = row.map(normalizeInline).filter((cell) => cell !== '');
  return cells.length > 0 && cells.every((cell) => !/^[-+]?[\d.,]+%?$/.test(cell));
}
