import type { ParsedDocument } from '../document.js';
import { BlockCollector, describeRow } from './blocks.js';
import { type MarkupDialect, type MarkupToken, tokenizeMarkup } from './markup-tokens.js';

/** Elements whose whole content is left out: code, styling, forms, media, Confluence macro plumbing. */
const SKIPPED: ReadonlySet<string> = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'textarea',
  'select',
  'button',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'audio',
  'video',
  // Confluence storage format: macro parameters, emoticons, images, task ids and ADF duplicates.
  'ac:parameter',
  'ac:default-parameter',
  'ac:placeholder',
  'ac:emoticon',
  'ac:image',
  'ac:task-id',
  'ac:task-uuid',
  'ac:task-status',
  'ac:adf-attribute',
  'ac:adf-fallback',
]);

/** Elements that end the paragraph before them and start a new one. */
const BLOCK_BOUNDARIES: ReadonlySet<string> = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'section',
  'summary',
  'ul',
  'ac:structured-macro',
  'ac:macro',
  'ac:rich-text-body',
  'ac:layout',
  'ac:layout-section',
  'ac:layout-cell',
  'ac:task-list',
  'ac:task',
  'ac:adf-extension',
  'ac:adf-node',
  'ac:adf-content',
]);

/** Elements whose text keeps its line breaks and indentation. */
const CODE_ELEMENTS: ReadonlySet<string> = new Set(['pre', 'ac:plain-text-body']);

/** Confluence resource identifiers and the attribute that names them when a link has no text. */
const RESOURCE_LABELS: Readonly<Record<string, string>> = {
  'ri:page': 'ri:content-title',
  'ri:blog-post': 'ri:content-title',
  'ri:attachment': 'ri:filename',
  'ri:url': 'ri:value',
  'ri:space': 'ri:space-key',
};

const HEADING = /^h([1-6])$/;

interface TableRow {
  readonly cells: string[];
  /** Every cell so far is a `<th>` (or the row sits in `<thead>`). */
  header: boolean;
  cellOpen: boolean;
}

/**
 * HTML or Confluence storage format to blocks: headings with their level; paragraphs, list items
 * and table rows as text blocks; `<pre>` and code macro bodies as code; everything else inline.
 */
export function markupToBlocks(markup: string, dialect: MarkupDialect): ParsedDocument {
  const walker = new BlockWalker();
  tokenizeMarkup(markup, dialect, (token) => walker.visit(token));
  walker.finish();
  const title = walker.title ?? walker.collector.firstTitle();
  return title === undefined
    ? { blocks: walker.collector.blocks }
    : { title, blocks: walker.collector.blocks };
}

class BlockWalker {
  readonly collector = new BlockCollector();
  title: string | undefined;
  private buffer = '';
  private headingLevel: number | undefined;
  private codeDepth = 0;
  private skipped: { name: string; depth: number } | undefined;
  private titleText: string | undefined;
  private tableDepth = 0;
  private theadDepth = 0;
  private row: TableRow | undefined;
  private tableHeaders: string[] | undefined;
  private tableHasDataRows = false;
  private link: { start: number; label: string | undefined } | undefined;

  visit(token: MarkupToken): void {
    if (this.skipped !== undefined) {
      this.visitSkipped(token);
      return;
    }
    if (token.type === 'text') {
      if (this.titleText !== undefined) this.titleText += token.text;
      else this.buffer += token.text;
      return;
    }
    if (token.type === 'open') this.open(token.name, token.attributes, token.selfClosing);
    else this.close(token.name);
  }

  finish(): void {
    this.endRow();
    this.endHeading();
    this.flush();
  }

  private visitSkipped(token: MarkupToken): void {
    const skipped = this.skipped;
    if (skipped === undefined || token.type === 'text' || token.name !== skipped.name) return;
    if (token.type === 'open') {
      if (!token.selfClosing) skipped.depth += 1;
    } else {
      skipped.depth -= 1;
      if (skipped.depth === 0) this.skipped = undefined;
    }
  }

  private open(name: string, attributes: ReadonlyMap<string, string>, selfClosing: boolean): void {
    const resourceLabel = RESOURCE_LABELS[name];
    if (resourceLabel !== undefined && this.link !== undefined) {
      this.link.label ??= attributes.get(resourceLabel);
    }
    if (SKIPPED.has(name) || name.startsWith('ri:')) {
      if (!selfClosing) this.skipped = { name, depth: 1 };
      return;
    }
    const heading = HEADING.exec(name);
    if (heading !== null) {
      if (this.inlineOnly()) {
        this.buffer += ' ';
      } else {
        this.endHeading();
        this.flush();
        this.headingLevel = Number(heading[1]);
      }
      return;
    }
    switch (name) {
      case 'title':
        if (!selfClosing) this.titleText = '';
        return;
      case 'br':
        this.buffer += '\n';
        return;
      case 'time':
        this.buffer += ` ${attributes.get('datetime') ?? ''} `;
        return;
      case 'ac:link':
        if (!selfClosing) this.link = { start: this.buffer.length, label: undefined };
        return;
      case 'table':
        this.boundary();
        this.tableDepth += 1;
        return;
      case 'thead':
        if (this.tableDepth === 1) this.theadDepth += 1;
        return;
      case 'tr':
        if (this.tableDepth === 1) {
          this.endRow();
          this.row = { cells: [], header: this.theadDepth > 0, cellOpen: false };
        } else {
          this.buffer += ' ';
        }
        return;
      case 'td':
      case 'th':
        this.openCell(name);
        return;
    }
    if (CODE_ELEMENTS.has(name)) {
      this.boundary();
      this.codeDepth += 1;
    } else if (BLOCK_BOUNDARIES.has(name)) {
      this.boundary();
    }
  }

  private close(name: string): void {
    if (HEADING.test(name)) {
      if (this.headingLevel !== undefined) this.endHeading();
      else this.buffer += ' ';
      return;
    }
    switch (name) {
      case 'title':
        if (this.titleText !== undefined) {
          const title = this.titleText.replace(/\s+/g, ' ').trim();
          if (title !== '' && this.title === undefined) this.title = title;
          this.titleText = undefined;
        }
        return;
      case 'ac:link': {
        const link = this.link;
        this.link = undefined;
        if (link?.label !== undefined && this.buffer.slice(link.start).trim() === '') {
          this.buffer += link.label;
        }
        return;
      }
      case 'table':
        if (this.tableDepth === 1) {
          this.endRow();
          // A table that is only a header row still says something.
          if (this.tableHeaders !== undefined && !this.tableHasDataRows) {
            this.collector.text(describeRow(undefined, this.tableHeaders));
          }
          this.tableHeaders = undefined;
          this.tableHasDataRows = false;
          this.theadDepth = 0;
        }
        this.tableDepth = Math.max(0, this.tableDepth - 1);
        this.boundary();
        return;
      case 'thead':
        if (this.tableDepth === 1) this.theadDepth = Math.max(0, this.theadDepth - 1);
        return;
      case 'tr':
        if (this.tableDepth === 1) this.endRow();
        else this.buffer += ' ';
        return;
      case 'td':
      case 'th':
        if (this.tableDepth === 1) this.endCell();
        else this.buffer += ' ';
        return;
    }
    if (CODE_ELEMENTS.has(name)) {
      this.boundary();
      this.codeDepth = Math.max(0, this.codeDepth - 1);
    } else if (BLOCK_BOUNDARIES.has(name)) {
      this.boundary();
    }
  }

  /** Inside a table cell or a heading, block structure collapses to spaces. */
  private inlineOnly(): boolean {
    return this.row?.cellOpen === true || this.headingLevel !== undefined || this.tableDepth > 1;
  }

  private boundary(): void {
    if (this.inlineOnly()) this.buffer += ' ';
    else this.flush();
  }

  private flush(): void {
    if (this.row !== undefined && !this.row.cellOpen) {
      // Text between the cells of a row (whitespace, stray tags) belongs to no cell.
      this.buffer = '';
      return;
    }
    if (this.codeDepth > 0) this.collector.code(this.buffer);
    else this.collector.text(this.buffer);
    this.buffer = '';
  }

  private endHeading(): void {
    if (this.headingLevel === undefined) return;
    this.collector.heading(this.headingLevel, this.buffer);
    this.buffer = '';
    this.headingLevel = undefined;
  }

  private openCell(name: string): void {
    if (this.tableDepth !== 1) {
      this.buffer += ' ';
      return;
    }
    // A cell outside any <tr> (sloppy HTML) starts a row of its own.
    this.row ??= { cells: [], header: this.theadDepth > 0, cellOpen: false };
    this.endCell();
    this.buffer = '';
    this.row.cellOpen = true;
    if (name === 'td' && this.theadDepth === 0) this.row.header = false;
  }

  private endCell(): void {
    if (this.row?.cellOpen !== true) return;
    this.row.cells.push(this.buffer);
    this.row.cellOpen = false;
    this.buffer = '';
  }

  private endRow(): void {
    this.endCell();
    const row = this.row;
    if (row === undefined) return;
    this.row = undefined;
    this.buffer = '';
    if (row.cells.every((cell) => cell.trim() === '')) return;
    if (row.header && this.tableHeaders === undefined) {
      this.tableHeaders = row.cells;
      return;
    }
    this.collector.text(describeRow(this.tableHeaders, row.cells));
    this.tableHasDataRows = true;
  }
}
