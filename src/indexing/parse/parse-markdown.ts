import type { ParsedDocument } from '../document.js';
import { BlockCollector, describeRow } from './blocks.js';

const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const TASK_MARKER = /^\[[ xX]\][ \t]+/;
const BLOCKQUOTE = /^ {0,3}>[ \t]?/;
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:[ \t]*\S/;
const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const INDENTED_CODE = /^(?: {4}|\t)/;

/**
 * Markdown (CommonMark and what Google Docs exports): ATX and setext headings, fenced and
 * indented code kept whole, paragraphs, list items and table rows as text blocks. Link reference
 * definitions are dropped: Google Docs puts its images there as base64 data URIs.
 */
export function parseMarkdown(source: string): ParsedDocument {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const frontMatter = readFrontMatter(lines);
  const parser = new MarkdownParser();
  for (let index = frontMatter.bodyStart; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const next = lines[index + 1];
    if (parser.line(line, next) === 'consumed-next') index += 1;
  }
  parser.finish();
  const title = frontMatter.title ?? parser.collector.leadingTitle();
  return title === undefined
    ? { blocks: parser.collector.blocks }
    : { title, blocks: parser.collector.blocks };
}

interface Fence {
  readonly marker: string;
  readonly indentation: RegExp;
  readonly lines: string[];
}

class MarkdownParser {
  readonly collector = new BlockCollector();
  private paragraph: string[] = [];
  private listItem: string[] | undefined;
  private fence: Fence | undefined;
  private indentedCode: string[] | undefined;
  private tableHeaders: string[] | undefined;
  private inComment = false;

  /** Reads one line; `next` lets a table header see its delimiter row. */
  line(raw: string, next: string | undefined): 'consumed-next' | undefined {
    if (this.fence !== undefined) {
      this.fenceLine(raw, this.fence);
      return undefined;
    }
    if (this.inComment) {
      if (raw.includes('-->')) this.inComment = false;
      return undefined;
    }
    if (this.indentedCode !== undefined) {
      if (raw.trim() === '' || INDENTED_CODE.test(raw)) {
        this.indentedCode.push(raw.replace(INDENTED_CODE, ''));
        return undefined;
      }
      this.flushIndentedCode();
    }
    if (this.tableHeaders !== undefined) {
      if (raw.trim() !== '' && raw.includes('|')) {
        this.collector.text(describeRow(this.tableHeaders, splitTableRow(raw)).replace(/\\\|/g, '|'));
        return undefined;
      }
      this.tableHeaders = undefined;
    }
    const line = raw.replace(BLOCKQUOTE, '').replace(BLOCKQUOTE, '');
    if (line.trim() === '') {
      this.flushText();
      return undefined;
    }
    const fence = FENCE_OPEN.exec(line);
    if (fence !== null && !(fence[2]?.startsWith('`') && fence[3]?.includes('`'))) {
      this.flushText();
      // A fence indented by n spaces takes up to n spaces off each of its lines.
      this.fence = {
        marker: fence[2] ?? '```',
        indentation: new RegExp(`^ {0,${fence[1]?.length ?? 0}}`),
        lines: [],
      };
      return undefined;
    }
    const heading = ATX_HEADING.exec(line);
    if (heading !== null) {
      this.flushText();
      this.collector.heading(heading[1]?.length ?? 1, inlineMarkdown(heading[2] ?? ''));
      return undefined;
    }
    const underline = SETEXT_UNDERLINE.exec(line);
    if (underline !== null && this.paragraph.length > 0 && this.listItem === undefined) {
      const text = this.paragraph.join(' ');
      this.paragraph = [];
      this.collector.heading(underline[1]?.startsWith('=') ? 1 : 2, inlineMarkdown(text));
      return undefined;
    }
    if (THEMATIC_BREAK.test(line)) {
      this.flushText();
      return undefined;
    }
    if (this.paragraph.length === 0 && LINK_DEFINITION.test(line)) return undefined;
    if (line.includes('|') && next?.includes('-') && TABLE_DELIMITER.test(next)) {
      this.flushText();
      this.tableHeaders = splitTableRow(line);
      return 'consumed-next';
    }
    const item = LIST_ITEM.exec(line);
    if (item !== null) {
      this.flushText();
      this.listItem = [(item[1] ?? '').replace(TASK_MARKER, '')];
      return undefined;
    }
    if (this.paragraph.length === 0 && this.listItem === undefined && INDENTED_CODE.test(line)) {
      this.indentedCode = [line.replace(INDENTED_CODE, '')];
      return undefined;
    }
    if (/^ {0,3}<!--/.test(line) && this.paragraph.length === 0 && !line.includes('-->')) {
      this.flushText();
      this.inComment = true;
      return undefined;
    }
    // Lines after a list item's first line continue it (lazy continuation), as in CommonMark.
    if (this.listItem !== undefined) this.listItem.push(line.trim());
    else this.paragraph.push(line.trim());
    return undefined;
  }

  finish(): void {
    if (this.fence !== undefined) this.collector.code(this.fence.lines.join('\n'));
    this.fence = undefined;
    this.flushIndentedCode();
    this.flushText();
  }

  private fenceLine(raw: string, fence: Fence): void {
    const closing = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(raw);
    const marker = closing?.[1];
    if (marker !== undefined && marker[0] === fence.marker[0] && marker.length >= fence.marker.length) {
      this.collector.code(fence.lines.join('\n'));
      this.fence = undefined;
      return;
    }
    fence.lines.push(raw.replace(fence.indentation, ''));
  }

  private flushIndentedCode(): void {
    if (this.indentedCode !== undefined) this.collector.code(this.indentedCode.join('\n'));
    this.indentedCode = undefined;
  }

  private flushText(): void {
    if (this.paragraph.length > 0) this.collector.text(inlineMarkdown(this.paragraph.join(' ')));
    if (this.listItem !== undefined) this.collector.text(inlineMarkdown(this.listItem.join(' ')));
    this.paragraph = [];
    this.listItem = undefined;
  }
}

function readFrontMatter(lines: readonly string[]): { bodyStart: number; title: string | undefined } {
  if (lines[0]?.trim() !== '---') return { bodyStart: 0, title: undefined };
  const end = lines.findIndex((line, index) => index > 0 && (line.trim() === '---' || line.trim() === '...'));
  if (end < 0) return { bodyStart: 0, title: undefined };
  const titleLine = lines.slice(1, end).find((line) => /^title:\s*\S/.test(line));
  const title = titleLine
    ?.replace(/^title:\s*/, '')
    .replace(/^(["'])(.*)\1$/, '$2')
    .trim();
  return { bodyStart: end + 1, title: title === '' ? undefined : title };
}

function splitTableRow(line: string): string[] {
  const trimmed = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return trimmed.split(/(?<!\\)\|/).map((cell) => inlineMarkdown(cell));
}

// Escaped punctuation is parked in the private use area while the inline rules run, so `\*` stays a star.
const ESCAPED = /\\([!-/:-@[-`{-~])/g;
const PARKED = /[\uE000-\uE07F]/g;

/** Inline markup to its text: links to their labels, images to their alt text, emphasis and code marks dropped. */
export function inlineMarkdown(text: string): string {
  return text
    .replace(ESCAPED, (_, char: string) => String.fromCharCode(0xe000 + char.charCodeAt(0)))
    .replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, '$2')
    .replace(/!\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)/g, '$1')
    .replace(/!\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/\[([^\]]+)\]\((?:[^()]|\([^()]*\))*\)/g, '$1')
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/<((?:https?|mailto|ftp):[^>\s]+)>/gi, '$1')
    .replace(/<br\s*\/?>/gi, ' ')
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
    .replace(/(^|[^\w*])\*(?=\S)([\s\S]*?\S)\*(?![\w*])/g, '$1$2')
    .replace(/(^|[^\w_])_(?=\S)([\s\S]*?\S)_(?![\w_])/g, '$1$2')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
    .replace(PARKED, (char) => String.fromCharCode(char.charCodeAt(0) - 0xe000));
}
