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
  return text
    .toWellFormed()
    .replace(/\r\n?/g, '\n')
    .replace(INVISIBLE, '')
    .replace(/[^\S\n]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
}

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

  code(text: string, page?: number): void {
    this.push(normalizeCode(text), page);
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
