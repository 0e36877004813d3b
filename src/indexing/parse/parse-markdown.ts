import { closes, fenceOf, languageOf } from '../../markdown-fence.js';
import type { ParsedDocument } from '../document.js';
import { BlockCollector, describeRow } from './blocks.js';
import { inlineMarkdown } from './markdown-inline.js';

export { inlineMarkdown } from './markdown-inline.js';

/*
 * Every expression here is anchored at the line's start and cannot split one run of characters
 * between two quantifiers in more than one way, so each backtracks linearly at worst; a run that
 * two quantifiers could share (spaces after a marker, before the rest of the line) is claimed
 * whole by a lookahead (`(?![ \t])`, `(?!`)`). Lines may hold U+2028, which `.` does not match.
 */
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+(?![ \t])(.*))?$/;
const TASK_MARKER = /^\[[ xX]\][ \t]+/;
const BLOCKQUOTE = /^ {0,3}>[ \t]?/;
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:[ \t]*\S/;
const TABLE_DELIMITER = /^[ \t]*(?:\|[ \t]*)?:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*(?:\|[ \t]*)?$/;
const INDENTED_CODE = /^(?: {4}|\t)/;
/** A line opening raw HTML that is not text: a script, a style sheet, a form field, a comment, `<?…`. */
const RAW_HTML_BLOCK = /^ {0,3}<(?:(script|style|textarea)(?![A-Za-z0-9-])|!--|\?)/i;

/**
 * Markdown (CommonMark and what Google Docs exports): ATX and setext headings, fenced and
 * indented code kept whole, paragraphs, list items and table rows as text blocks. Link reference
 * definitions are dropped: Google Docs puts its images there as base64 data URIs. Raw HTML goes:
 * scripts, styles and comments whole, other tags leaving their text (`inlineMarkdown`).
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
  const title = frontMatter.title ?? parser.collector.firstTitle();
  return title === undefined
    ? { blocks: parser.collector.blocks }
    : { title, blocks: parser.collector.blocks };
}

interface OpenFence {
  readonly marker: string;
  /** The first word of the opening fence's info string: the code's language, or ''. */
  readonly language: string;
  readonly indentation: RegExp;
  readonly lines: string[];
}

class MarkdownParser {
  readonly collector = new BlockCollector();
  private paragraph: string[] = [];
  private listItem: string[] | undefined;
  private fence: OpenFence | undefined;
  private indentedCode: string[] | undefined;
  private tableHeaders: string[] | undefined;
  /** Inside raw HTML that is dropped (see RAW_HTML_BLOCK): what the line that ends it holds. */
  private rawHtmlEnd: string | undefined;

  /** Reads one line; `next` lets a table header see its delimiter row. */
  line(raw: string, next: string | undefined): 'consumed-next' | undefined {
    if (this.fence !== undefined) {
      this.fenceLine(raw, this.fence);
      return undefined;
    }
    if (this.rawHtmlEnd !== undefined) {
      if (raw.toLowerCase().includes(this.rawHtmlEnd)) this.rawHtmlEnd = undefined;
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
    const fence = fenceOf(line);
    if (fence !== undefined) {
      this.flushText();
      // A fence indented by n spaces takes up to n spaces off each of its lines.
      this.fence = {
        marker: fence.marker,
        language: languageOf(fence.info),
        indentation: new RegExp(`^ {0,${fence.indent}}`),
        lines: [],
      };
      return undefined;
    }
    const heading = atxHeading(line);
    if (heading !== undefined) {
      this.flushText();
      this.collector.heading(heading.level, inlineMarkdown(heading.text));
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
    const rawHtml = RAW_HTML_BLOCK.exec(line);
    if (rawHtml !== null) {
      const end =
        rawHtml[1] !== undefined ? `</${rawHtml[1].toLowerCase()}>` : rawHtml[0].endsWith('?') ? '?>' : '-->';
      const rest = line.slice(rawHtml[0].length).toLowerCase();
      // A comment closed on its own line is inline HTML: the text around it stays (`withoutHtml`).
      if (end !== '-->' || !rest.includes(end)) {
        this.flushText();
        if (!rest.includes(end)) this.rawHtmlEnd = end;
        return undefined;
      }
    }
    // Lines after a list item's first line continue it (lazy continuation), as in CommonMark.
    if (this.listItem !== undefined) this.listItem.push(line.trim());
    else this.paragraph.push(line.trim());
    return undefined;
  }

  finish(): void {
    if (this.fence !== undefined)
      this.collector.code(this.fence.lines.join('\n'), undefined, this.fence.language);
    this.fence = undefined;
    this.flushIndentedCode();
    this.flushText();
  }

  private fenceLine(raw: string, fence: OpenFence): void {
    if (closes(raw, fence)) {
      this.collector.code(fence.lines.join('\n'), undefined, fence.language);
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

/**
 * An ATX heading (`## Title ##`): what `/^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/`
 * matched, read by hand: the lazy text before the closing hashes backtracked over every space
 * of the line, quadratically (`# a` + 40,000 spaces + `b` took 1.5 s).
 */
function atxHeading(line: string): { level: number; text: string } | undefined {
  let index = 0;
  while (index < 3 && line[index] === ' ') index += 1;
  const hashesStart = index;
  while (line[index] === '#') index += 1;
  const level = index - hashesStart;
  if (level < 1 || level > 6) return undefined;
  if (index === line.length) return { level, text: '' };
  if (!isSpaceOrTab(line[index])) return undefined;
  // `.` matches no line terminator, and `$` is the end of the line only.
  if (/[\n\r\u2028\u2029]/.test(line)) return undefined;
  while (isSpaceOrTab(line[index])) index += 1;
  // The text ends before trailing spaces, and before a closing run of hashes that spaces precede.
  let end = line.length;
  while (end > index && isSpaceOrTab(line[end - 1])) end -= 1;
  let closing = end;
  while (closing > index && line[closing - 1] === '#') closing -= 1;
  if (closing < end && closing > index && isSpaceOrTab(line[closing - 1])) {
    end = closing;
    while (end > index && isSpaceOrTab(line[end - 1])) end -= 1;
  }
  return { level, text: line.slice(index, end) };
}

const isSpaceOrTab = (char: string | undefined) => char === ' ' || char === '\t';
