/**
 * Slack's text formats (https://api.slack.com/reference/surfaces/formatting): what we post is
 * mrkdwn, where `&`, `<` and `>` are control characters (`<!channel>` would ping a whole channel,
 * so text from documents is always escaped); what users send carries mentions and links in
 * `<…>` and those three characters escaped.
 */

import { CharacterRuns, forwardFinder, isWhitespace } from '../../text-scanning.js';

/** Escapes the three characters Slack reads as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * A link `<url|label>`, or the escaped label alone when the address is not http(s) or mailto
 * (Slack would not link it, and a `javascript:` address is no business of ours).
 */
export function mrkdwnLink(url: string | null | undefined, label: string): string {
  const text = escapeMrkdwn(label.replace(/\s+/g, ' ').trim());
  if (url === null || url === undefined || !/^(https?:\/\/|mailto:)\S+$/i.test(url)) return text;
  // A `|` or `>` in the address would end it early: percent-encode them (and `<`) instead.
  const address = url.replace(/&/g, '&amp;').replace(/\|/g, '%7C').replace(/</g, '%3C').replace(/>/g, '%3E');
  return text === '' ? `<${address}>` : `<${address}|${text}>`;
}

const FENCE = /^\s*```/;

/**
 * Markdown, as an LLM or a document writes it, to Slack mrkdwn: `**bold**` → `*bold*`,
 * `*italic*` → `_italic_`, `~~struck~~` → `~struck~`, `[label](url)` → `<url|label>`, headings
 * → bold lines, `-`/`*` items → `•`. Code spans and fenced blocks keep their text, escaped only.
 */
export function markdownToMrkdwn(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let inFence = false;
  for (const line of lines) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      // Slack's fences take no language name.
      out.push('```');
      continue;
    }
    if (inFence) {
      out.push(escapeMrkdwn(line));
      continue;
    }
    out.push(convertLine(line));
  }
  return out.join('\n');
}

function convertLine(line: string): string {
  const heading = headingText(line);
  if (heading !== undefined) {
    // The whole line goes bold: bold inside it would only close it early.
    const text = convertInline(heading.replace(/\*\*|__/g, ''));
    return text === '' ? '' : `*${text}*`;
  }
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return '───';
  // `(?!\s)`: the spaces after the marker are all its own; a line that fails tries no split of them.
  const item = /^(\s*)[-*+]\s+(?!\s)(.*)$/.exec(line);
  if (item !== null) return `${item[1] ?? ''}• ${convertInline(item[2] ?? '')}`;
  const quote = /^\s{0,3}>\s?(.*)$/.exec(line);
  // Slack's own quote marker is a literal `>` at the line's start, so it is not escaped.
  if (quote !== null) return `>${convertInline(quote[1] ?? '')}`;
  return convertInline(line);
}

/**
 * A heading line's text: what `/^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/` captured, read by hand (its lazy
 * text backtracked over every space of the line, quadratically): the text after the marks, up
 * to the trailing spaces and closing hashes; none when it holds a line terminator (`.` stops there).
 */
function headingText(line: string): string | undefined {
  let index = 0;
  while (index < 3 && isSpace(line, index)) index += 1;
  const hashesStart = index;
  while (line[index] === '#') index += 1;
  if (index === hashesStart || index - hashesStart > 6 || !isSpace(line, index)) return undefined;
  while (isSpace(line, index)) index += 1;
  let end = line.length;
  while (end > index && isSpace(line, end - 1)) end -= 1;
  while (end > index && line[end - 1] === '#') end -= 1;
  while (end > index && isSpace(line, end - 1)) end -= 1;
  const text = line.slice(index, end);
  return /[\n\r\u2028\u2029]/.test(text) ? undefined : text;
}

const isSpace = (text: string, index: number) => index < text.length && isWhitespace(text.charCodeAt(index));

/**
 * Code spans, `[label](url)` and `<url>` links, or plain text between them: what
 * `` /(`+)([\s\S]*?[^`])\1(?!`)|\[([^\]\n]+)\]\((\S+?)(?:\s+"[^"]*")?\)| `` followed by
 * `/<((?:https?:\/\/|mailto:)[^>\s]+)>/g` matched, scanned by hand: it searched to the end of the
 * text again from every unclosed backtick or bracket, quadratically in their number.
 */
function convertInline(text: string): string {
  const scanner = new InlineTokenScanner(text);
  let result = '';
  let last = 0;
  for (let index = nextTokenStart(text, 0); index >= 0; ) {
    const token = scanner.tokenAt(index);
    if (token === undefined) {
      index = nextTokenStart(text, scanner.resumeAfter(index));
      continue;
    }
    result += emphasis(escapeMrkdwn(text.slice(last, index)));
    if (token.kind === 'code') result += `\`${escapeMrkdwn(token.code)}\``;
    else result += mrkdwnLink(token.url, token.label);
    last = token.end;
    index = nextTokenStart(text, token.end);
  }
  return result + emphasis(escapeMrkdwn(text.slice(last)));
}

type InlineToken =
  | { readonly kind: 'code'; readonly code: string; readonly end: number }
  | { readonly kind: 'link'; readonly url: string; readonly label: string; readonly end: number };

/** Where a token could start: a backtick, `[` or `<`. */
function nextTokenStart(text: string, from: number): number {
  for (let index = from; index < text.length; index += 1) {
    const char = text[index];
    if (char === '`' || char === '[' || char === '<') return index;
  }
  return -1;
}

const AUTOLINK_SCHEME = /(?:https?:\/\/|mailto:)/y;
const LINE_FEED = 0x0a;
const QUOTE = 0x22;
const CLOSE_PAREN = 0x29;
const GREATER_THAN = 0x3e;
const CLOSE_BRACKET = 0x5d;

/**
 * Reads the token at a position. Asked at positions that only grow, its searches for what
 * closes a token only move forward, so a text full of unclosed openers is read once.
 */
class InlineTokenScanner {
  private readonly backtickRuns: CharacterRuns;
  private readonly nextLabelEnd: (from: number) => number;
  private readonly nextUrlEnd: (from: number) => number;
  private readonly nextQuote: (from: number) => number;
  private readonly nextAddressEnd: (from: number) => number;
  private spacesFrom = -1;
  private spacesEnd = -1;

  constructor(private readonly text: string) {
    this.backtickRuns = new CharacterRuns(text, '`');
    this.nextLabelEnd = forwardFinder(text, (code) => code === CLOSE_BRACKET || code === LINE_FEED);
    this.nextUrlEnd = forwardFinder(text, (code) => code === CLOSE_PAREN || isWhitespace(code));
    this.nextQuote = forwardFinder(text, (code) => code === QUOTE);
    this.nextAddressEnd = forwardFinder(text, (code) => code === GREATER_THAN || isWhitespace(code));
  }

  tokenAt(index: number): InlineToken | undefined {
    const char = this.text[index];
    if (char === '`') return this.codeAt(index);
    if (char === '[') return this.linkAt(index);
    if (char === '<') return this.autolinkAt(index);
    return undefined;
  }

  /**
   * Where to look for a token after none started at `index`: past its whole run of backticks, since
   * what is left of a run that closes nothing closes nothing either.
   */
  resumeAfter(index: number): number {
    return this.text[index] === '`' ? this.backtickRuns.end(index) : index + 1;
  }

  /** An opening run of backticks (as much of it as closes) up to the next run of that length. */
  private codeAt(index: number): InlineToken | undefined {
    const end = this.backtickRuns.end(index);
    for (let length = end - index; length >= 1; length -= 1) {
      const closing = this.backtickRuns.nextOfLength(length, end + 1);
      if (closing !== undefined) {
        return { kind: 'code', code: this.text.slice(index + length, closing), end: closing + length };
      }
    }
    return undefined;
  }

  /** `[label](url)`, perhaps with a `"title"` after the address. */
  private linkAt(index: number): InlineToken | undefined {
    const text = this.text;
    const labelEnd = this.nextLabelEnd(index + 1);
    if (labelEnd <= index + 1 || text[labelEnd] !== ']' || text[labelEnd + 1] !== '(') return undefined;
    const urlStart = labelEnd + 2;
    if (!isNonSpace(text, urlStart)) return undefined;
    const urlEnd = this.nextUrlEnd(urlStart + 1);
    if (urlEnd < 0) return undefined;
    const link = {
      kind: 'link',
      url: text.slice(urlStart, urlEnd),
      label: text.slice(index + 1, labelEnd),
    } as const;
    if (text[urlEnd] === ')') return { ...link, end: urlEnd + 1 };
    // Links before one `]` share their address and the spaces after it: those are read once.
    if (this.spacesFrom !== urlEnd) {
      this.spacesFrom = urlEnd;
      this.spacesEnd = urlEnd;
      while (isSpace(text, this.spacesEnd)) this.spacesEnd += 1;
    }
    const titleStart = this.spacesEnd;
    if (text[titleStart] !== '"') return undefined;
    const titleEnd = this.nextQuote(titleStart + 1);
    return titleEnd >= 0 && text[titleEnd + 1] === ')' ? { ...link, end: titleEnd + 2 } : undefined;
  }

  /** `<https://…>` or `<mailto:…>`. */
  private autolinkAt(index: number): InlineToken | undefined {
    AUTOLINK_SCHEME.lastIndex = index + 1;
    if (!AUTOLINK_SCHEME.test(this.text)) return undefined;
    const addressStart = AUTOLINK_SCHEME.lastIndex;
    const addressEnd = this.nextAddressEnd(addressStart);
    if (addressEnd <= addressStart || this.text[addressEnd] !== '>') return undefined;
    return { kind: 'link', url: this.text.slice(index + 1, addressEnd), label: '', end: addressEnd + 1 };
  }
}

const isNonSpace = (text: string, index: number) => index < text.length && !isSpace(text, index);

const BOLD_MARK = '\u0001';

function emphasis(text: string): string {
  return (
    text
      // Bold first, through a placeholder, so its `*` is not then read as italics.
      .replace(/\*\*(?=\S)([^*\n]*?\S)\*\*/g, `${BOLD_MARK}$1${BOLD_MARK}`)
      .replace(/(^|[^\w])__(?=\S)([^_\n]*?\S)__(?!\w)/g, `$1${BOLD_MARK}$2${BOLD_MARK}`)
      .replace(/(^|[^*\w])\*(?=\S)([^*\n]*?\S)\*(?![*\w])/g, '$1_$2_')
      .replace(/~~(?=\S)([^~\n]*?\S)~~/g, '~$1~')
      .replaceAll(BOLD_MARK, '*')
  );
}

/**
 * A user's message as plain text for a question: the bot's own mentions removed; other mentions,
 * channels and links as their labels; Slack's escapes undone; spaces collapsed.
 */
export function slackMessageToPlainText(text: string, botUserId: string | undefined): string {
  return text
    .replace(/<([^<>]*)>/g, (_whole, inner: string) => {
      const bar = inner.indexOf('|');
      const target = bar < 0 ? inner : inner.slice(0, bar);
      const label = bar < 0 ? undefined : inner.slice(bar + 1);
      if (target.startsWith('@')) {
        const user = target.slice(1);
        if (botUserId !== undefined && user === botUserId) return ' ';
        return `@${label ?? user}`;
      }
      if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
      // `<!here>`, `<!subteam^S123|@team>`, `<!date^…|fallback>`.
      if (target.startsWith('!')) return label ?? `@${target.slice(1).split('^')[0] ?? ''}`;
      return label ?? target.replace(/^mailto:/i, '');
    })
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}
