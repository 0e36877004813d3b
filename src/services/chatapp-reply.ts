import { escapeMrkdwn, markdownToMrkdwn, mrkdwnLink } from '../adapters/slack/mrkdwn.js';
import type { SlackBlock } from '../adapters/slack/slack-messenger.js';
import type { CitedSource } from '../answering/citations.js';

/** A cited source as a reply lists it. */
export interface ReplySource {
  readonly title: string;
  /** The name its file was uploaded under: shown beside the title when it differs. */
  readonly fileName?: string | null;
  readonly url?: string | null;
}

/**
 * A cited source as a Slack reply lists it: linked to its own URL, else to its page in the web app
 * (`publicUrl`, PUBLIC_URL) with the cited passage highlighted, so every source can be opened.
 */
export function replySourceOf(source: CitedSource, publicUrl: string): ReplySource {
  const url =
    source.url !== null && source.url !== ''
      ? source.url
      : `${publicUrl}/documents/${source.document_id}?passage=${source.chunk_id}`;
  return { title: source.title, fileName: source.file_name, url };
}

/** What `chat.postMessage` gets: blocks, and their plain fallback. */
export interface ChatappReply {
  readonly text: string;
  readonly blocks: readonly SlackBlock[];
}

/** Slack refuses a section whose text is longer (Block Kit reference). */
const SECTION_TEXT_LIMIT = 3000;
/** A message holds at most 50 blocks; a few stay free for the sources. */
const ANSWER_SECTIONS_LIMIT = 40;
const SOURCES_LIMIT = 20;
const TITLE_LIMIT = 150;
/** Of a source line's TITLE_LIMIT, what its file's name may take. */
const FILE_NAME_LIMIT = 60;
/** The notification text: a preview, not the whole answer (that is in the blocks). */
const FALLBACK_LIMIT = 3000;

export const EXTERNAL_CHANNEL_REFUSAL =
  "I can't answer here: this channel is shared with people outside your organisation, and my answers come from your team's internal documents. Ask me in an internal channel or in a direct message.";

export const EMPTY_QUESTION_REPLY =
  'Ask me a question after the mention, e.g. "@knowledge what is our travel policy?", and I will answer from your team\'s documents.';

export const FAILED_ANSWER_REPLY = 'Sorry, I could not answer that just now. Please ask again in a moment.';

/**
 * The answer in mrkdwn, then `Sources:` with one `<url|title>` line per cited source, as the
 * original's clients read them: in citation order, so the answer's `[n]` is the n-th line.
 */
export function answerReply(answerMarkdown: string, sources: readonly ReplySource[]): ChatappReply {
  const answer = markdownToMrkdwn(answerMarkdown.trim());
  const blocks: SlackBlock[] = splitText(answer === '' ? '_(no answer)_' : answer, SECTION_TEXT_LIMIT)
    .slice(0, ANSWER_SECTIONS_LIMIT)
    .map((text) => section(text));
  const lines = sources.slice(0, SOURCES_LIMIT).map(sourceLine);
  if (lines.length > 0) {
    const listed = splitText(`Sources:\n${lines.join('\n')}`, SECTION_TEXT_LIMIT);
    blocks.push(...listed.map((text) => section(text)));
  }
  return { text: fallbackText(answerMarkdown), blocks };
}

/** A reply of one plain paragraph. */
export function plainReply(text: string): ChatappReply {
  return { text: fallbackText(text), blocks: [section(escapeMrkdwn(text))] };
}

/**
 * The message's `text`, which Slack shows in notifications and reads to screen readers: mrkdwn
 * too, so document text is escaped as in the blocks (a quoted `<!channel>` must not ping anyone).
 */
function fallbackText(text: string): string {
  return escapeMrkdwn(truncate(text.trim(), FALLBACK_LIMIT));
}

function sourceLine(source: ReplySource): string {
  const title = source.title.trim() || source.url || 'Untitled';
  const fileName = source.fileName?.trim() ?? '';
  if (fileName === '' || fileName === title) return mrkdwnLink(source.url, truncate(title, TITLE_LIMIT));
  // Titles alike (two files both headed "Café menu") are told apart by their files: a long title
  // is cut rather than the file's name.
  const shownFileName = truncate(fileName, FILE_NAME_LIMIT);
  const label = `${truncate(title, TITLE_LIMIT - shownFileName.length - 3)} (${shownFileName})`;
  return mrkdwnLink(source.url, label);
}

function section(text: string): SlackBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

/** Pieces of at most `limit` characters, cut at a paragraph, else a line, else a space. */
function splitText(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    const cut = [window.lastIndexOf('\n\n'), window.lastIndexOf('\n'), window.lastIndexOf(' ')].find(
      (index) => index > limit / 2,
    );
    const end = cut ?? limit;
    pieces.push(rest.slice(0, end).trimEnd());
    rest = rest.slice(end).trimStart();
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

function truncate(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
