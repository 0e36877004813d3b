import { getDocumentProxy } from 'unpdf';
import { FileFailure, type ParsedDocument } from '../document.js';
import { BlockCollector, normalizeInline } from './blocks.js';

/** One visual line of a page, as pdf.js reports its text. */
interface PdfLine {
  readonly page: number;
  text: string;
  /** Baseline, in PDF units from the bottom of the page. */
  readonly y: number;
  /** Font size of the line's longest run. */
  size: number;
  longestRun: number;
}

/** The text items we read from pdf.js (`TextItem`; marked-content items have no `str`). */
interface PdfTextItem {
  readonly str: string;
  readonly transform: readonly number[];
  readonly hasEOL: boolean;
}

// Lines at least this much larger than the body text, and short, are read as headings.
const HEADING_SIZE_RATIO = 1.15;
const HEADING_MAX_WORDS = 20;
/** A gap between baselines over this many font sizes starts a new paragraph (text is set at ~1.2). */
const PARAGRAPH_GAP = 1.6;
/**
 * Metadata titles that name no document: left empty by the author, or set by a print-to-PDF
 * driver to the application and file name ("Microsoft Word - draft3.docx").
 */
const PLACEHOLDER_TITLE = /^(?:untitled(?:\s*document)?|microsoft (?:word|powerpoint|excel) - .*)$/i;
const PAGE_NUMBER = /^(?:page\s+)?\d{1,5}(?:\s*(?:of|\/)\s*\d{1,5})?$/i;

/**
 * PDF text with unpdf (pdf.js), page by page: lines are grouped into paragraphs by the space
 * between them, and short lines set larger than the body text become headings (the larger, the
 * higher). A PDF that cannot be read, or has no text at all (a scan), is a `parse_error`.
 */
export async function parsePdf(bytes: Uint8Array): Promise<ParsedDocument> {
  let document: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js may detach the buffer it is given; the caller's bytes stay theirs.
    document = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (error) {
    throw pdfFailure(error);
  }
  try {
    const lines: PdfLine[] = [];
    for (let pageNumber = 1; pageNumber <= document.numPages; pageNumber += 1) {
      const page = await document.getPage(pageNumber);
      const content = await page.getTextContent();
      lines.push(...withoutPageNumbers(readLines(content.items as readonly object[], pageNumber)));
      page.cleanup();
    }
    const collector = linesToBlocks(lines);
    if (collector.blocks.length === 0) {
      throw new FileFailure(
        'parse_error',
        'the PDF has no extractable text (a scanned document needs OCR, which is not supported)',
      );
    }
    const title = await metadataTitle(document);
    const found = title ?? collector.leadingTitle();
    return found === undefined ? { blocks: collector.blocks } : { title: found, blocks: collector.blocks };
  } catch (error) {
    throw error instanceof FileFailure ? error : pdfFailure(error);
  } finally {
    await document.destroy().catch(() => {});
  }
}

function pdfFailure(error: unknown): FileFailure {
  const name = error instanceof Error ? error.name : '';
  const detail = error instanceof Error ? error.message : String(error);
  const message =
    name === 'PasswordException' ? 'the PDF is password-protected' : `the PDF could not be read: ${detail}`;
  return new FileFailure('parse_error', message, { cause: error });
}

function isTextItem(item: object): item is PdfTextItem {
  return 'str' in item && 'transform' in item;
}

function readLines(items: readonly object[], page: number): PdfLine[] {
  const lines: PdfLine[] = [];
  let current: PdfLine | undefined;
  for (const item of items) {
    if (!isTextItem(item)) continue;
    const [, , c = 0, d = 0, , y = 0] = item.transform;
    const size = Math.round(Math.hypot(c, d) * 10) / 10;
    // pdf.js marks most line ends itself; a jump of the baseline catches the rest.
    if (current !== undefined && Math.abs(current.y - y) > Math.max(current.size, size) * 0.5) {
      lines.push(current);
      current = undefined;
    }
    if (item.str !== '') {
      current ??= { page, text: '', y, size, longestRun: 0 };
      current.text += item.str;
      if (item.str.length > current.longestRun) {
        current.longestRun = item.str.length;
        current.size = size;
      }
    }
    if (item.hasEOL && current !== undefined) {
      lines.push(current);
      current = undefined;
    }
  }
  if (current !== undefined) lines.push(current);
  return lines.filter((line) => line.text.trim() !== '');
}

/** Running page numbers ("12", "Page 3 of 9") as a page's first or last line are noise. */
function withoutPageNumbers(lines: PdfLine[]): PdfLine[] {
  return lines.filter(
    (line, index) => !((index === 0 || index === lines.length - 1) && isPageNumber(line.text.trim())),
  );
}

/** A running page number: "12", "Page 3", "3 of 9", "3/9". */
export function isPageNumber(text: string): boolean {
  return PAGE_NUMBER.test(text);
}

function linesToBlocks(lines: readonly PdfLine[]): BlockCollector {
  const bodySize = mostCommonSize(lines);
  const isHeading = (line: PdfLine) =>
    line.size >= bodySize * HEADING_SIZE_RATIO &&
    line.text.trim().split(/\s+/).length <= HEADING_MAX_WORDS &&
    /\p{L}/u.test(line.text);
  const headingSizes = [...new Set(lines.filter(isHeading).map((line) => line.size))].sort((a, b) => b - a);

  const collector = new BlockCollector();
  let paragraph: PdfLine[] = [];
  const flush = () => {
    const first = paragraph[0];
    if (first === undefined) return;
    const text = joinPdfLines(paragraph.map((line) => line.text));
    if (isHeading(first)) collector.heading(headingSizes.indexOf(first.size) + 1, text, first.page);
    else collector.text(text, first.page);
    paragraph = [];
  };
  for (const line of lines) {
    const previous = paragraph.at(-1);
    const continues =
      previous !== undefined &&
      previous.page === line.page &&
      isHeading(previous) === isHeading(line) &&
      Math.abs(previous.size - line.size) <= previous.size * 0.1 &&
      previous.y > line.y &&
      previous.y - line.y <= Math.max(previous.size, line.size) * PARAGRAPH_GAP;
    if (!continues) flush();
    paragraph.push(line);
  }
  flush();
  return collector;
}

/** The body text's font size: the one most characters are set in. */
function mostCommonSize(lines: readonly PdfLine[]): number {
  const characters = new Map<number, number>();
  for (const line of lines) characters.set(line.size, (characters.get(line.size) ?? 0) + line.text.length);
  let best = 0;
  let bestCount = -1;
  for (const [size, count] of characters) {
    if (count > bestCount || (count === bestCount && size < best)) {
      best = size;
      bestCount = count;
    }
  }
  return best;
}

/**
 * Lines of a paragraph joined by spaces, words hyphenated across a line break mended. Only the
 * end of the text so far is tested: testing all of it for each line was quadratic in its lines.
 */
export function joinPdfLines(lines: readonly string[]): string {
  const parts: string[] = [];
  // The last few code units of the text so far: enough for a letter (a surrogate pair, perhaps) and `-`.
  let tail = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (tail === '') {
      parts.length = 0;
      parts.push(line);
    } else if (/\p{L}-$/u.test(tail) && /^\p{Ll}/u.test(line)) {
      dropLastCharacter(parts);
      parts.push(line);
      tail = tail.slice(0, -1);
    } else {
      parts.push(' ', line);
      tail += ' ';
    }
    tail = (tail + line).slice(-3);
  }
  return parts.join('');
}

function dropLastCharacter(parts: string[]): void {
  for (let index = parts.length - 1; index >= 0; index -= 1) {
    const part = parts[index] ?? '';
    if (part === '') continue;
    parts[index] = part.slice(0, -1);
    return;
  }
}

async function metadataTitle(
  document: Awaited<ReturnType<typeof getDocumentProxy>>,
): Promise<string | undefined> {
  try {
    const { info } = await document.getMetadata();
    const title = (info as { Title?: unknown } | undefined)?.Title;
    if (typeof title !== 'string') return undefined;
    const normalized = normalizeInline(title);
    return normalized === '' || PLACEHOLDER_TITLE.test(normalized) ? undefined : normalized;
  } catch {
    return undefined;
  }
}
