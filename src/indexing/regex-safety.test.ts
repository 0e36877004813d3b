import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../retrieval/search-types.js';

/**
 * Every regular expression (and hand-written scan) that reads document, question or answer text
 * is fed the inputs that are worst for it, at 2k and 200k characters: V8's regular expressions
 * backtrack, so one that is quadratic on some input lets a single document or message freeze
 * the event loop (issue 10). Adding a function or an input is adding a row to `CASES`.
 *
 * Linearity is shown without a clock that load could skew (issue 34: the time ratios this file
 * used failed on a busy machine), in two ways:
 * - Steps counted: V8's block coverage counts every call and every pass through a block (a loop's
 *   body) of the project's code, exactly, however busy the machine. Linear work takes ~100 times
 *   the steps at 100 times the size, quadratic ~10,000 times.
 * - The regular-expression engine's own work, which no counter shows, as CPU time compared with
 *   CPU time for the same number of characters: one run of the large input against 100 runs of the
 *   small one. Linear work costs about the same on both sides (the small runs' fixed costs favour
 *   the large one), whatever the load or the machine; quadratic work costs 100 times as much.
 */
const SMALL = 2_000;
const LARGE = 200_000;
const SIZE_RATIO = LARGE / SMALL;
/** Twice the linear count: room for fixed costs and inputs that round their units; quadratic is 100×. */
const MAX_STEP_RATIO = 2 * SIZE_RATIO;
/**
 * Between the large run's CPU time and the small runs' together. Linear work that allocates much
 * (CSV rows, chunk pieces) costs a few times more in one large run, whose objects outgrow the
 * young generation and the caches; quadratic work costs ~100 times more.
 */
const MAX_TIME_RATIO = 25;
/**
 * A large run under this much CPU time passes whatever its ratio: quadratic work over 200k
 * characters takes seconds, and timer and collector noise rule below it.
 */
const FLOOR_MS = 250;
const ROUNDS = 3;

const SOURCE_FOLDER = path.resolve(import.meta.dirname, '..');

// Block coverage counts only code compiled after it starts: it starts before the modules under
// test are loaded (below), and every count is taken between two takes, which reset the counters.
const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });

const { escapeMrkdwn, markdownToMrkdwn, mrkdwnLink, slackMessageToPlainText } = await import(
  '../adapters/slack/mrkdwn.js'
);
const { citedNumbers, snippetOf, withoutCitations } = await import('../answering/citations.js');
const { ExtractiveAnswerer, withCitation } = await import('../answering/extractive-answerer.js');
const { leansOnConversation } = await import('../answering/follow-up.js');
const { promptFor } = await import('../answering/llm-answerer.js');
const { sentencesOf, wordCount } = await import('../answering/sentences.js');
const { americanSpelling } = await import('../answering/spelling.js');
const { cookieValue } = await import('../http/session-cookie.js');
const { unstorableTextIssues } = await import('../http/storable-text.js');
const { identifierWords } = await import('../identifier-words.js');
const { parseQuery } = await import('../retrieval/query-text.js');
const { splitSentences } = await import('../sentence-splitting.js');
const { chunkDocument, countWords } = await import('./chunk.js');
const { compactText } = await import('./compact-text.js');
const { contentHash } = await import('./content-hash.js');
const { fileNameWords } = await import('../file-name-words.js');
const { describeRow, normalizeCode, normalizeInline } = await import('./parse/blocks.js');
const { decodeText } = await import('./parse/decode-text.js');
const { capTitle, titleFromText } = await import('./parse/document-title.js');
const { decodeEntities, tokenizeMarkup } = await import('./parse/markup-tokens.js');
const { parseConfluenceStorage } = await import('./parse/parse-confluence.js');
const { parseCsv } = await import('./parse/parse-csv.js');
const { parseDocument } = await import('./parse/parse-document.js');
const { parseHtml } = await import('./parse/parse-html.js');
const { parseJson } = await import('./parse/parse-json.js');
const { inlineMarkdown, parseMarkdown } = await import('./parse/parse-markdown.js');
const { isPageNumber, joinPdfLines } = await import('./parse/parse-pdf.js');
const { parsePlainText } = await import('./parse/parse-plain-text.js');

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
  fileName: null,
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
    // Eight times as long as the others: a header is cheap to scan.
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
 * The steps `run` takes in the project's code (not the test's, not its dependencies'): how many
 * times each block ran (a loop's body once a pass). A function's first range, its calls, is left
 * out: optimized code does not count the calls of a function it inlined, and a call's work is
 * in its blocks, or in the regular expressions it runs (timed below).
 */
async function stepsOf(run: (text: string) => unknown, text: string): Promise<number> {
  await inspector.post('Profiler.takePreciseCoverage');
  await run(text);
  const { result } = await inspector.post('Profiler.takePreciseCoverage');
  let steps = 0;
  for (const script of result) {
    const file = script.url.startsWith('file:') ? fileURLToPath(script.url) : script.url;
    if (!file.startsWith(`${SOURCE_FOLDER}${path.sep}`) || file.endsWith('.test.ts')) continue;
    for (const { ranges } of script.functions) for (const range of ranges.slice(1)) steps += range.count;
  }
  return steps;
}

/**
 * The CPU time of `times` runs (this test file's process: it runs in a fork of its own, the
 * `pglite-own-process` project of vitest.config.ts), not the wall-clock time: other processes sharing the cores delay a run without making it
 * do more work.
 */
async function cpuMillisecondsOf(run: (text: string) => unknown, text: string, times = 1): Promise<number> {
  const start = process.cpuUsage();
  for (let index = 0; index < times; index += 1) await run(text);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

describe('every regular expression and scan over document and user text does work linear in its input', () => {
  it.each(CASES)('$name', async ({ run, input }) => {
    // Everything below is promise callbacks, which never let the event loop reach vitest's messages
    // to this process: a run of cases longer than a minute would see its calls to vitest time out.
    await new Promise((resolve) => setImmediate(resolve));
    const small = input(SMALL);
    const large = input(LARGE);
    // Warm up, so that what is compiled or cached on a first run is counted in neither.
    await run(input(SMALL / 10));
    await run(small);

    const smallSteps = await stepsOf(run, small);
    const largeSteps = await stepsOf(run, large);
    expect(
      largeSteps,
      `${large.length} characters took ${largeSteps} steps, ${small.length} took ${smallSteps}`,
    ).toBeLessThanOrEqual(MAX_STEP_RATIO * Math.max(1, smallSteps));

    // The fastest of a few interleaved measures of each, so that a burst of load or a collection
    // hits both; measured again only while the large run is over its bound.
    const smallRuns = Math.max(1, Math.round(large.length / small.length));
    let smallMs = Number.POSITIVE_INFINITY;
    let largeMs = Number.POSITIVE_INFINITY;
    const bound = () => Math.max(FLOOR_MS, MAX_TIME_RATIO * smallMs);
    for (let round = 0; round === 0 || (round < ROUNDS && largeMs > bound()); round += 1) {
      smallMs = Math.min(smallMs, await cpuMillisecondsOf(run, small, smallRuns));
      largeMs = Math.min(largeMs, await cpuMillisecondsOf(run, large));
    }
    expect(
      largeMs,
      `${large.length} characters took ${largeMs.toFixed(1)} ms of CPU, ${smallRuns} runs of ${small.length} took ${smallMs.toFixed(1)} ms`,
    ).toBeLessThanOrEqual(bound());
  });
});

describe('the step counter', () => {
  it("sees the project's loops: a scan's steps grow with its input", async () => {
    // Were it blind (code compiled before coverage started, a path not matched), every case above
    // would pass unexamined.
    const rows = (length: number) => times('a,b\n', length);
    const small = await stepsOf(parseCsv, rows(SMALL));
    const large = await stepsOf(parseCsv, rows(LARGE));
    expect(small).toBeGreaterThan(SMALL / 4);
    expect(large).toBeGreaterThan((SIZE_RATIO / 2) * small);
  });
});

describe('the reproductions of issue 10', () => {
  // They froze the event loop for minutes; CPU time, which load does not stretch, shows they no longer do.
  it('splits 120 KB of dots after one word into sentences at once', async () => {
    const text = `zqxword ${'.'.repeat(120_000)}`;
    let sentences: string[] = [];
    expect(await cpuMillisecondsOf(() => (sentences = sentencesOf(text)), text)).toBeLessThan(2_000);
    expect(sentences).toEqual([text]);
  });

  it('reads a heading line of 40,000 spaces at once', async () => {
    const text = `# a${' '.repeat(40_000)}b`;
    let parsed: ReturnType<typeof parseMarkdown> | undefined;
    expect(await cpuMillisecondsOf(() => (parsed = parseMarkdown(text)), text)).toBeLessThan(2_000);
    expect(parsed).toEqual({ title: 'a b', blocks: [{ kind: 'heading', level: 1, text: 'a b' }] });
  });
});
