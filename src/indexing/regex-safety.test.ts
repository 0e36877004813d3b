import { describe, expect, it } from 'vitest';
import {
  escapeMrkdwn,
  markdownToMrkdwn,
  mrkdwnLink,
  slackMessageToPlainText,
} from '../adapters/slack/mrkdwn.js';
import { citedNumbers, snippetOf, withoutCitations } from '../answering/citations.js';
import { ExtractiveAnswerer, withCitation } from '../answering/extractive-answerer.js';
import { leansOnConversation } from '../answering/follow-up.js';
import { promptFor } from '../answering/llm-answerer.js';
import { sentencesOf, wordCount } from '../answering/sentences.js';
import { americanSpelling } from '../answering/spelling.js';
import { cookieValue } from '../http/session-cookie.js';
import { unstorableTextIssues } from '../http/storable-text.js';
import { identifierWords } from '../identifier-words.js';
import { parseQuery } from '../retrieval/query-text.js';
import type { SearchHit } from '../retrieval/search-types.js';
import { splitSentences } from '../sentence-splitting.js';
import { chunkDocument, countWords } from './chunk.js';
import { compactText } from './compact-text.js';
import { contentHash } from './content-hash.js';
import { fileNameWords } from './document.js';
import { describeRow, normalizeCode, normalizeInline } from './parse/blocks.js';
import { decodeText } from './parse/decode-text.js';
import { capTitle, titleFromText } from './parse/document-title.js';
import { decodeEntities, tokenizeMarkup } from './parse/markup-tokens.js';
import { parseConfluenceStorage } from './parse/parse-confluence.js';
import { parseCsv } from './parse/parse-csv.js';
import { parseDocument } from './parse/parse-document.js';
import { parseHtml } from './parse/parse-html.js';
import { parseJson } from './parse/parse-json.js';
import { inlineMarkdown, parseMarkdown } from './parse/parse-markdown.js';
import { isPageNumber, joinPdfLines } from './parse/parse-pdf.js';
import { parsePlainText } from './parse/parse-plain-text.js';

/**
 * Every regular expression (and hand-written scan) that reads document, question or answer text
 * is fed the inputs that are worst for it, at 10k and 200k characters: V8's regular expressions
 * backtrack, so one that is quadratic on some input lets a single document or message freeze
 * the event loop (issue 10). Linear work grows ~20× between the two sizes, quadratic ~400×.
 * Adding a function or an input is adding a row to `CASES`.
 */
const SMALL = 10_000;
const LARGE = 200_000;
/**
 * Between the two: on a loaded 2-core machine, linear work that allocates much (CSV rows, chunk
 * pieces) grows faster than its input, as the large one outgrows caches and the young generation:
 * at 100k characters CSV rows measured 43× their 10k time in CI. The quadratic expressions this
 * file was written against measured 95× to 111× at 10×, ~400× at 20×, or ran for minutes.
 */
const MAX_RATIO = 120;
/** A large run under this passes whatever its ratio: timer and collector noise rule there. */
const FLOOR_MS = 50;
const ROUNDS = 5;

interface SafetyCase {
  readonly name: string;
  /** The input that is worst for `run`, about `length` characters long. */
  readonly input: (length: number) => string;
  readonly run: (text: string) => unknown;
}

/** One row per input: `group: input name`. */
function cases(
  group: string,
  run: (text: string) => unknown,
  inputs: Record<string, (length: number) => string>,
): SafetyCase[] {
  return Object.entries(inputs).map(([name, input]) => ({ name: `${group}: ${name}`, input, run }));
}

/** `unit` repeated to about `length` characters. */
const times = (unit: string, length: number) => unit.repeat(Math.max(1, Math.floor(length / unit.length)));

const hit = (text: string): SearchHit => ({
  chunkId: 1,
  documentId: 1,
  score: 1,
  text,
  headingPath: [],
  pageLabels: [],
  title: 'Title',
  url: null,
  source: 'upload',
  externalId: 'x',
  connectorId: null,
  mimeType: 'text/plain',
  documentCreatedAt: new Date(0),
  sourceModifiedAt: null,
});

const extractive = new ExtractiveAnswerer({
  analyze: async (texts) => texts.map((text) => new Map(text.split(' ', 8).map((word) => [word, 1]))),
  termStatistics: async (_teamId, terms) => ({
    chunks: 1,
    documentFrequencies: new Map(terms.map((term) => [term, 1])),
  }),
});

async function answerOf(passageText: string, question = 'zqxword policy'): Promise<string> {
  let answer = '';
  const input = {
    teamId: 1,
    question,
    history: [],
    topic: [],
    passages: [{ number: 1, hit: hit(passageText) }],
    signal: new AbortController().signal,
  };
  for await (const piece of extractive.answer(input)) answer += piece;
  return answer;
}

const CASES: SafetyCase[] = [
  // indexing/chunk.ts
  ...cases('splitSentences', splitSentences, {
    'a run of dots': (n) => `zqxword ${'.'.repeat(n)}`,
    'a run of dots and closing quotes': (n) => `a ${times('.!?\u2026', n / 2)}${times('")\u2019', n / 2)}x`,
    'dot-quote pairs': (n) => times('."', n),
    'sentence ends': (n) => times('A. ', n),
    abbreviations: (n) => times('Dr. ', n),
    'lower-case continuations': (n) => times('a. ', n),
    'a run of spaces': (n) => `a.${' '.repeat(n)}b`,
    lines: (n) => times('a\n', n),
  }),
  ...cases('countWords', countWords, {
    'a run of spaces': (n) => ' '.repeat(n),
    words: (n) => times('a ', n),
  }),
  ...cases('chunkDocument', (text) => chunkDocument({ blocks: [{ kind: 'text', text }] }), {
    'a run of dots': (n) => `zqxword ${'.'.repeat(n)}`,
    'one long word': (n) => 'x'.repeat(n),
    'short words': (n) => times('a ', n),
    'short sentences': (n) => times('A b. ', n),
    'short lines': (n) => times('a\n', n),
  }),
  ...cases('compactText', compactText, {
    'Latin-1 only': (n) => 'a'.repeat(n),
    'an emoji at the end': (n) => `${'a'.repeat(n)}\u{1F680}`,
  }),
  // answering
  ...cases('sentencesOf', sentencesOf, {
    'a run of dots': (n) => `zqxword ${'.'.repeat(n)}`,
    'lines wrapped into one': (n) => times('a\n', n),
    'heading marks': (n) => `${'#'.repeat(n)} x`,
    'list marks': (n) => `-${' '.repeat(n)}x`,
    'end marks then quotes': (n) => `a .${'"'.repeat(n)}x`,
  }),
  ...cases('wordCount', wordCount, { 'a run of spaces': (n) => ' '.repeat(n) }),
  ...cases('withCitation', (text) => withCitation(text, 1), {
    'a run of dots inside': (n) => `a${'.'.repeat(n)}x`,
    'a run of end marks at the end': (n) => `a${times('.!?', n)}`,
  }),
  ...cases('ExtractiveAnswerer', (text) => answerOf(text), {
    'a run of dots': (n) => `zqxword policy ${'.'.repeat(n)}`,
    'short end-marked words': (n) => `zqxword policy ${times('.)', n)}x`,
    'one long sentence': (n) => `zqxword policy ${times('word ', n)}.`,
  }),
  ...cases('ExtractiveAnswerer question', (text) => answerOf('The zqxword policy is short.', text), {
    'framing words': (n) => times('tell ', n),
    'asking words without the noun': (n) => times('what is the name of ', n),
    'a "what" never called anything': (n) => `what ${times('called ', n)}`,
  }),
  ...cases('americanSpelling', americanSpelling, {
    'a long word': (n) => 'a'.repeat(n),
    'a long word ending like a British one': (n) => `${'a'.repeat(n)}tre`,
    'short British words': (n) => times('colour centre ', n),
  }),
  ...cases('citedNumbers', citedNumbers, {
    'open brackets': (n) => times('[', n),
    'unclosed lists': (n) => `[${times('1, ', n)}x`,
    'unclosed ranges': (n) => `[${times('1 - 2; source ', n)}`,
    'spaces in a bracket': (n) => `[${' '.repeat(n)}1 x`,
    'many citations': (n) => times('[1][2, 3] ', n),
  }),
  ...cases('withoutCitations', withoutCitations, {
    'a run of spaces': (n) => `a${' '.repeat(n)}b`,
    'spaces and tabs before a mark': (n) => `a${times(' \t', n)}.`,
    'open brackets': (n) => times('[1, ', n),
  }),
  ...cases('snippetOf', snippetOf, { 'a run of spaces': (n) => `a${' '.repeat(n)}b` }),
  ...cases('leansOnConversation', leansOnConversation, {
    'a run of spaces': (n) => ' '.repeat(n),
    'words that refer back': (n) => times('itself ', n),
    'continuations after spaces': (n) => `${' '.repeat(n)}andx`,
  }),
  ...cases('identifierWords', identifierWords, {
    'one long identifier': (n) => `a${'bC'.repeat(n / 2)}`,
    'capitals then a lower-case letter': (n) => `${'A'.repeat(n)}b`,
    separators: (n) => times('a_', n / 2),
  }),
  ...cases('fileNameWords', fileNameWords, {
    'dots and dashes': (n) => times('a.-', n / 3),
  }),
  ...cases(
    'promptFor',
    (text) =>
      promptFor({
        teamId: 1,
        question: text,
        history: [{ role: 'assistant', content: text }],
        topic: [],
        passages: [{ number: 1, hit: hit(text) }],
        signal: new AbortController().signal,
      }),
    {
      'a run of spaces': (n) => `a${' '.repeat(n)}b`,
      'open brackets': (n) => times('[source 1 ', n),
    },
  ),
  // indexing/parse: Markdown
  ...cases('parseMarkdown', parseMarkdown, {
    'a heading line of spaces (issue 10)': (n) => `# a${' '.repeat(n)}b`,
    'a heading line of spaces and hashes': (n) => `# a${times(' #', n)}b`,
    'a heading line of tabs': (n) => `## a${'\t'.repeat(n)}#x`,
    'a heading then a line separator': (n) => `# ${' '.repeat(n)}a\u2028`,
    hashes: (n) => '#'.repeat(n),
    'a fence of backticks, not closed on its line': (n) => `${'`'.repeat(n)}\u2028`,
    'a fence of tildes, then text': (n) => `${'~'.repeat(n)}${' '.repeat(n)}\u2029`,
    'fence closings': (n) => `~~~\n${times('~~~~ x\n', n)}`,
    'a list item of spaces': (n) => `-${' '.repeat(n)}a\u2028`,
    'list items': (n) => times('- a\n', n),
    'ordered list markers': (n) => `${'1'.repeat(n)}. a`,
    'a thematic break of stars and spaces': (n) => `${times('* ', n)}x`,
    'a thematic break of dashes and tabs': (n) => `${times('-\t', n)}x`,
    'a setext underline': (n) => `Title\n${'='.repeat(n)} x`,
    'a setext underline of dashes then spaces': (n) => `Title\n-${' '.repeat(n)}x`,
    'a table delimiter of spaces': (n) => `a|b\n${' '.repeat(n)}-x`,
    'a table delimiter with spaces after a dash': (n) => `a|b\n|-${' '.repeat(n)}x`,
    'a table delimiter of many columns': (n) => `a|b\n${times('|:-: ', n)}x`,
    'table rows of bars': (n) => `a|b\n-|-\n${'|'.repeat(n)}`,
    'table rows of escaped bars': (n) => `a|b\n-|-\n${times('\\|', n)}`,
    'an unclosed link definition': (n) => `[${'a'.repeat(n)}`,
    'a link definition of spaces': (n) => `[a]:${' '.repeat(n)}`,
    'blockquote marks': (n) => times('> ', n),
    'an unclosed comment': (n) => `<!--${times(' a', n)}`,
    'indented code': (n) => times('    a\n', n),
    'a task marker of spaces': (n) => `- [x]${' '.repeat(n)}a`,
    'front matter with an unclosed quote': (n) => `---\ntitle: "${'a'.repeat(n)}\n---\nBody`,
    'front matter with spaces': (n) => `---\ntitle:${' '.repeat(n)}\n---\nBody`,
    'carriage returns': (n) => times('a\r', n),
  }),
  ...cases('inlineMarkdown', inlineMarkdown, {
    'a run of backticks': (n) => '`'.repeat(n),
    'unclosed code spans': (n) => times('`a', n),
    'code spans of growing length': (n) => times('``a`', n),
    'backticks runs of every length': (n) =>
      Array.from({ length: 440 }, (_, index) => '`'.repeat(index + 1))
        .join('a')
        .slice(0, n),
    'unclosed images': (n) => times('![', n),
    'unclosed image destinations': (n) => times('![a](', n),
    'image destinations with open parentheses': (n) => `![a](${times('(b', n)}`,
    'unclosed image references': (n) => times('![a][', n),
    'open brackets': (n) => times('[', n),
    'unclosed link destinations': (n) => times('[a](b', n),
    'link destinations of parentheses': (n) => `[a](${times('(b)', n)}`,
    'unclosed link references': (n) => times('[a][', n),
    'brackets then a close': (n) => `${'['.repeat(n)}]`,
    'unclosed autolinks': (n) => times('<http:a', n),
    'autolinks without a scheme': (n) => times('<a', n),
    'line breaks with spaces': (n) => `<br${' '.repeat(n)}x`,
    'unclosed strong stars': (n) => times('**a ', n),
    'unclosed strong underscores': (n) => times('__a ', n),
    'a run of stars': (n) => '*'.repeat(n),
    'unclosed emphasis stars': (n) => times(' *a', n),
    'unclosed emphasis underscores': (n) => times(' _a', n),
    'a run of underscores': (n) => '_'.repeat(n),
    'stars after spaces': (n) => times('* ', n),
    'unclosed strikethrough': (n) => times('~~a ', n),
    'a run of tildes': (n) => '~'.repeat(n),
    escapes: (n) => times('\\*', n),
    backslashes: (n) => '\\'.repeat(n),
    'everything unclosed': (n) => times('`![[<http:**__*_~~(', n),
  }),
  // indexing/parse: blocks, markup, other formats
  ...cases('normalizeInline', normalizeInline, {
    'a run of spaces': (n) => `a${' '.repeat(n)}b`,
    'invisible characters': (n) => times('\u00ad\u200b\u0001', n),
  }),
  ...cases('normalizeCode', normalizeCode, {
    'a run of spaces in a line': (n) => `a${' '.repeat(n)}b`,
    'spaces before every line end': (n) => times('a  \n', n),
    'tabs before a line separator': (n) => `a${'\t'.repeat(n)}\u2028b`,
    'blank lines': (n) => `a${'\n'.repeat(n)}b`,
    'carriage returns': (n) => times('\r\r\n', n),
  }),
  ...cases('describeRow', (text) => describeRow([text], [text]), { 'a run of spaces': (n) => ' '.repeat(n) }),
  ...cases('tokenizeMarkup', (text) => tokenizeMarkup(text, 'html', () => {}), {
    'open angle brackets': (n) => '<'.repeat(n),
    'unclosed tags': (n) => times('<a', n),
    'unclosed attribute values': (n) => times('<a b="', n),
    'unquoted attribute values': (n) => `<a b=${'c'.repeat(n)}`,
    'unclosed comments': (n) => times('<!--', n),
    'unclosed CDATA': (n) => times('<![CDATA[', n),
    'unclosed closing tags': (n) => times('</a', n),
    'an unclosed script': (n) => `<script>${times('</scrip', n)}`,
    'unclosed titles': (n) => times('<title>', n),
    ampersands: (n) => '&'.repeat(n),
    'unterminated numeric references': (n) => times('&#1234567', n),
    'unterminated named references': (n) => times('&abcdefgh', n),
    'named references': (n) => times('&amp;&hellip;', n),
  }),
  ...cases('decodeEntities', decodeEntities, { 'hash signs': (n) => times('&#', n) }),
  ...cases('parseHtml', parseHtml, {
    'nested headings': (n) => times('<h1><h2>', n),
    'a long tag name': (n) => `<h${'1'.repeat(n)}>a</h${'1'.repeat(n)}>`,
    'table cells': (n) => `<table>${times('<tr><td>a', n)}`,
    'a long title': (n) => `<title>${times(' a', n)}</title>`,
    breaks: (n) => `<p>${times('<br>', n)}`,
  }),
  ...cases('parseConfluenceStorage', parseConfluenceStorage, {
    'links without text': (n) => times('<ac:link><ri:page ri:content-title="t"/>', n),
    'unclosed links': (n) => times('<ac:link>a', n),
    CDATA: (n) => times('<![CDATA[a]]>', n),
  }),
  ...cases('parseCsv', parseCsv, {
    quotes: (n) => '"'.repeat(n),
    delimiters: (n) => ','.repeat(n),
    'a header of numbers': (n) => `${'1.'.repeat(n / 2)}%x\n1`,
    rows: (n) => times('a,b\n', n),
  }),
  ...cases('parseJson', parseJson, {
    'a long string': (n) => JSON.stringify('a'.repeat(n)),
    'many keys': (n) =>
      `{${Array.from({ length: Math.floor(n / 10) }, (_, index) => `"k${index}":1`).join(',')}}`,
  }),
  ...cases('parsePlainText', parsePlainText, {
    'a line of spaces': (n) => `a\n${' '.repeat(n)}x`,
    'blank lines with spaces': (n) => times('\n \n', n),
    'form feeds': (n) => '\f'.repeat(n),
  }),
  ...cases('parseDocument MIME type', (text) => parseDocument({ mimeType: text, bytes: new Uint8Array(1) }), {
    'spaces before a quote': (n) => `text/plain;${' '.repeat(n)}"`,
    'spaces around charset': (n) => `text/plain; charset=${' '.repeat(n)}x`,
  }),
  ...cases('decodeText', (text) => decodeText(new TextEncoder().encode(text)), {
    'non-ASCII': (n) => times('\u00e9', n),
  }),
  ...cases(
    'decodeText as Windows-1252',
    (text) => decodeText(Uint8Array.from(text, (char) => char.charCodeAt(0) & 0xff)),
    {
      'invalid UTF-8': (n) => times('\u0080', n),
    },
  ),
  ...cases('joinPdfLines', (text) => joinPdfLines(text.split('\n')), {
    'hyphenated lines': (n) => times('a-\n', n),
    'one-letter lines': (n) => times('a\n', n),
  }),
  ...cases('isPageNumber', isPageNumber, {
    'page then spaces': (n) => `page${' '.repeat(n)}1x`,
    'digits then spaces': (n) => `1${' '.repeat(n)}of`,
  }),
  // retrieval, Slack, HTTP
  ...cases('parseQuery', parseQuery, {
    quotes: (n) => '"'.repeat(n),
    'unclosed quotes': (n) => times('"a', n),
    'curly quotes': (n) => times('\u201ca \u201d', n),
  }),
  ...cases('markdownToMrkdwn', markdownToMrkdwn, {
    'a heading line of spaces': (n) => `# a${' '.repeat(n)}b`,
    'a heading line of hashes': (n) => `# a${times(' #', n)}b`,
    'a heading then a line separator': (n) => `# ${' '.repeat(n)}a\u2028`,
    'a list item of spaces': (n) => `-${' '.repeat(n)}a\u2028`,
    'a rule of spaced dashes': (n) => `${times('- ', n)}x`,
    'a quote': (n) => `>${' '.repeat(n)}\u2028`,
    fences: (n) => times('```\n', n),
    'a run of backticks': (n) => '`'.repeat(n),
    'unclosed code spans': (n) => times('`a', n),
    'code spans of growing length': (n) => times('``a`', n),
    'open brackets': (n) => times('[', n),
    'unclosed link destinations': (n) => times('[a](b', n),
    'unclosed link titles': (n) => times('[a](b "', n),
    'link titles': (n) => `[a](b ${times('"c" ', n)}`,
    'unclosed autolinks': (n) => times('<http://a', n),
    'unclosed strong stars': (n) => times('**a', n),
    'unclosed strong underscores': (n) => times(' __a', n),
    'unclosed emphasis': (n) => times(' *a', n),
    'unclosed strikethrough': (n) => times('~~a', n),
    'a run of stars': (n) => '*'.repeat(n),
    ampersands: (n) => '&'.repeat(n),
  }),
  ...cases('slackMessageToPlainText', (text) => slackMessageToPlainText(text, 'U1'), {
    'open angle brackets': (n) => '<'.repeat(n),
    'unclosed mentions': (n) => times('<@U2|', n),
    escapes: (n) => times('&lt;&gt;&amp;', n),
  }),
  ...cases('mrkdwnLink', (text) => mrkdwnLink(`https://${text}`, text), {
    'a long address': (n) => 'a'.repeat(n),
    'an address ending in a space': (n) => `${'a'.repeat(n)} `,
    bars: (n) => '|'.repeat(n),
  }),
  ...cases('escapeMrkdwn', escapeMrkdwn, { 'control characters': (n) => times('&<>', n) }),
  ...cases('unstorableTextIssues', (text) => unstorableTextIssues('body', { text, [text]: text }), {
    'lone surrogates': (n) => times('a\ud800', n),
    'NUL characters': (n) => '\u0000'.repeat(n),
  }),
  ...cases(
    'contentHash',
    (text) => contentHash(text, [{ position: 0, text, headingPath: [text], pageLabels: [], tokenCount: 1 }]),
    { 'a long text': (n) => 'a'.repeat(n) },
  ),
  // Raw HTML inside Markdown, titles from text, files typed by their content (issue: uploads)
  ...cases('inlineMarkdown raw HTML', inlineMarkdown, {
    'unclosed tags of elements': (n) => times('<b', n),
    'tags of elements without a close': (n) => times('<span class="a" ', n),
    'closing tags': (n) => times('</span>', n),
    'tags and text': (n) => times('<b>a</b><br>', n),
    'a long element-like name': (n) => `<${'a'.repeat(n)}>`,
    'unclosed comments': (n) => times('<!--', n),
    comments: (n) => times('<!-- a -->', n),
    'a comment closed at the end': (n) => `${times('<!-- a ', n)}-->`,
    'less-than signs before a tag end': (n) => `${times('<b <', n)}>`,
    'code spans of angle brackets': (n) => times('`<b>&amp;`', n),
    entities: (n) => times('&amp;&nbsp;&#42;', n),
  }),
  ...cases('parseMarkdown raw HTML', parseMarkdown, {
    'script openers': (n) => times('<script>\n', n),
    'a script never closed': (n) => `<script>\n${times('a\n', n)}`,
    'comment openers on their lines': (n) => times('<!--\n', n),
    'a script line of spaces': (n) => `<script${' '.repeat(n)}x`,
    'block HTML lines': (n) => times('<div align="center">\n', n),
  }),
  ...cases('titleFromText', titleFromText, {
    'blank lines': (n) => `${'\n'.repeat(n)}a`,
    'a run of spaces': (n) => ' '.repeat(n),
    'one long line': (n) => times('word ', n),
  }),
  ...cases('capTitle', capTitle, { 'a long word': (n) => 'a'.repeat(n) }),
  ...cases('cookieValue', (header) => cookieValue(header, 'ka_session'), {
    // Eight times as long as the others: a header is cheap to scan, and shorter ones run under the floor.
    'empty pairs, then pairs with no equals sign': (n) =>
      `${times('=;', 4 * n)}${times(' ;', 4 * n)}ka_session=found`,
  }),
  ...cases(
    'parseDocument untyped',
    (text) => parseDocument({ mimeType: '', bytes: new TextEncoder().encode(text) }),
    {
      'text read by its content': (n) => times('a b\n', n),
      whitespace: (n) => `${' '.repeat(n)}x`,
      'an HTML signature after spaces': (n) => `${' '.repeat(n)}<html>`,
    },
  ),
];

/**
 * The CPU time a run takes (this test file's process: vitest runs each file in a fork of its own),
 * not the wall-clock time: other processes sharing the cores, as the rest of the suite does, delay
 * a run without making it do more work.
 */
async function millisecondsOf(run: (text: string) => unknown, text: string): Promise<number> {
  const start = process.cpuUsage();
  await run(text);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

describe('every regular expression over document and user text takes time linear in its input', () => {
  it.each(CASES)('$name', async ({ run, input }) => {
    const small = input(SMALL);
    const large = input(LARGE);
    // Warm up, so the first timed run is not the one that compiles.
    await run(input(SMALL / 10));
    await run(small);
    // The fastest of a few interleaved runs of each, so a burst of load or a collection hits both.
    // The large input runs again only while noise could explain a miss: a quadratic one takes far longer.
    let smallMs = Number.POSITIVE_INFINITY;
    let largeMs = Number.POSITIVE_INFINITY;
    const bound = () => Math.max(FLOOR_MS, MAX_RATIO * smallMs);
    for (let round = 0; round < ROUNDS; round += 1) {
      smallMs = Math.min(smallMs, await millisecondsOf(run, small));
      if (round > 0 && (largeMs <= bound() || largeMs > 4 * bound())) continue;
      largeMs = Math.min(largeMs, await millisecondsOf(run, large));
    }
    expect(
      largeMs,
      `${LARGE} characters took ${largeMs.toFixed(1)} ms, ${SMALL} took ${smallMs.toFixed(2)} ms`,
    ).toBeLessThanOrEqual(bound());
  });
});

describe('the reproductions of issue 10', () => {
  it('splits 120 KB of dots after one word into sentences at once', () => {
    const text = `zqxword ${'.'.repeat(120_000)}`;
    const start = performance.now();
    const sentences = sentencesOf(text);
    expect(performance.now() - start).toBeLessThan(500);
    expect(sentences).toEqual([text]);
  });

  it('reads a heading line of 40,000 spaces at once', () => {
    const start = performance.now();
    const parsed = parseMarkdown(`# a${' '.repeat(40_000)}b`);
    expect(performance.now() - start).toBeLessThan(500);
    expect(parsed).toEqual({ title: 'a b', blocks: [{ kind: 'heading', level: 1, text: 'a b' }] });
  });
});
