/**
 * Slack's text formats (https://api.slack.com/reference/surfaces/formatting): what we post is
 * mrkdwn, where `&`, `<` and `>` are control characters (`<!channel>` would ping a whole channel,
 * so text from documents is always escaped); what users send carries mentions and links in
 * `<…>` and those three characters escaped.
 */

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
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading !== null) {
    // The whole line goes bold: bold inside it would only close it early.
    const text = convertInline((heading[1] ?? '').replace(/\*\*|__/g, ''));
    return text === '' ? '' : `*${text}*`;
  }
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return '───';
  const item = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (item !== null) return `${item[1] ?? ''}• ${convertInline(item[2] ?? '')}`;
  const quote = /^\s{0,3}>\s?(.*)$/.exec(line);
  // Slack's own quote marker is a literal `>` at the line's start, so it is not escaped.
  if (quote !== null) return `>${convertInline(quote[1] ?? '')}`;
  return convertInline(line);
}

/** Code spans, `[label](url)` and `<url>` links, or plain text between them. */
const INLINE_TOKEN =
  /(`+)([\s\S]*?[^`])\1(?!`)|\[([^\]\n]+)\]\((\S+?)(?:\s+"[^"]*")?\)|<((?:https?:\/\/|mailto:)[^>\s]+)>/g;

function convertInline(text: string): string {
  let result = '';
  let last = 0;
  for (const match of text.matchAll(INLINE_TOKEN)) {
    const index = match.index ?? 0;
    result += emphasis(escapeMrkdwn(text.slice(last, index)));
    const [whole, , code, label, url, autolink] = match;
    if (code !== undefined) result += `\`${escapeMrkdwn(code)}\``;
    else if (label !== undefined) result += mrkdwnLink(url, label);
    else if (autolink !== undefined) result += mrkdwnLink(autolink, '');
    last = index + whole.length;
  }
  return result + emphasis(escapeMrkdwn(text.slice(last)));
}

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
