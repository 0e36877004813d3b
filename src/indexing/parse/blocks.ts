import { fenced } from '../../markdown-fence.js';
import { isWhitespace } from '../../text-scanning.js';
import type { Block } from '../document.js';

// C0/C1 controls (but tab, line feed, carriage return), zero-width spaces, soft hyphens and BOMs:
// invisible, and U+0000 cannot even be stored by PostgreSQL.
const INVISIBLE = /(?![\t\n\r])[\p{Cc}\u00AD\u200B\u2060\uFEFF]/gu;

/** One line of prose: invisible characters dropped, every run of whitespace one space. */
export function normalizeInline(text: string): string {
  return text.toWellFormed().replace(INVISIBLE, '').replace(/\s+/g, ' ').trim();
}

/** Code keeps its lines and indentation; only trailing spaces and runs of blank lines go. */
export function normalizeCode(text: string): string {
  return withoutTrailingSpaces(text.toWellFormed().replace(/\r\n?/g, '\n').replace(INVISIBLE, ''))
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
}

/**
 * `text.replace(/[^\S\n]+$/gm, '')` as a scan: that expression backtracked over every run of
 * spaces not at a line's end, quadratically. A line ends (`$`, multiline) before `\n`, `\r`,
 * U+2028, U+2029 and at the end of the text; those last three are spaces too, so a run that
 * holds one loses what comes before its last one.
 */
function withoutTrailingSpaces(text: string): string {
  const parts: string[] = [];
  let kept = 0;
  for (let index = 0; index < text.length; ) {
    const code = text.charCodeAt(index);
    if (code === 0x0a || !isWhitespace(code)) {
      index += 1;
      continue;
    }
    let end = index;
    let lastLineEnd = -1;
    for (; end < text.length; end += 1) {
      const inner = text.charCodeAt(end);
      if (inner === 0x0a || !isWhitespace(inner)) break;
      if (end > index && isLineEnd(inner)) lastLineEnd = end;
    }
    const cut = end === text.length || text.charCodeAt(end) === 0x0a ? end : lastLineEnd;
    if (cut > index) {
      parts.push(text.slice(kept, index));
      kept = cut;
    }
    index = end;
  }
  if (kept === 0) return text;
  parts.push(text.slice(kept));
  return parts.join('');
}

const isLineEnd = (code: number) => code === 0x0d || code === 0x2028 || code === 0x2029;

/** Collects blocks in reading order, normalising their text and dropping the empty ones. */
export class BlockCollector {
  readonly blocks: Block[] = [];

  heading(level: number, text: string, page?: number): void {
    const normalized = normalizeInline(text);
    if (normalized === '') return;
    const clamped = Math.min(6, Math.max(1, Math.trunc(level)));
    this.blocks.push(
      page === undefined
        ? { kind: 'heading', level: clamped, text: normalized }
        : { kind: 'heading', level: clamped, text: normalized, page },
    );
  }

  text(text: string, page?: number): void {
    this.push(normalizeInline(text), page);
  }

  /** A code block, kept fenced so that chunks, search results and answers show it as code. */
  code(text: string, page?: number, language = ''): void {
    const code = normalizeCode(text);
    if (code !== '') this.push(fenced(code, language), page);
  }

  /** The first level-1 heading's text, wherever it is: how Markdown and HTML pages name themselves. */
  firstTitle(): string | undefined {
    return this.blocks.find((block) => block.kind === 'heading' && block.level === 1)?.text;
  }

  /** The first block's text when it is a level-1 heading: the usual way a document names itself. */
  leadingTitle(): string | undefined {
    const first = this.blocks[0];
    return first?.kind === 'heading' && first.level === 1 ? first.text : undefined;
  }

  private push(text: string, page: number | undefined): void {
    if (text === '') return;
    this.blocks.push(page === undefined ? { kind: 'text', text } : { kind: 'text', text, page });
  }
}

/**
 * A table or sheet row that reads on its own: `Header: value; …`, empty values left out.
 * Columns without a header are named by position; without any header the values are joined.
 */
export function describeRow(headers: readonly string[] | undefined, cells: readonly string[]): string {
  if (headers === undefined) {
    return cells
      .map(normalizeInline)
      .filter((cell) => cell !== '')
      .join(' | ');
  }
  const pairs: string[] = [];
  cells.forEach((cell, index) => {
    const value = normalizeInline(cell);
    if (value === '') return;
    const header = normalizeInline(headers[index] ?? '');
    pairs.push(`${header === '' ? `Column ${index + 1}` : header}: ${value}`);
  });
  return pairs.join('; ');
}
