import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { generateMarkdown, generatePdf, HANDBOOK_BLOCKS } from '../../test/fixtures/documents.js';
import { splitSentences } from '../sentence-splitting.js';
import { type ChunkOptions, chunkDocument, countWords, DEFAULT_CHUNK_OPTIONS } from './chunk.js';
import { contentHash } from './content-hash.js';
import type { Block, Chunk, ParsedDocument } from './document.js';
import { parseDocument } from './parse/parse-document.js';

const heading = (level: number, text: string, page?: number): Block =>
  page === undefined ? { kind: 'heading', level, text } : { kind: 'heading', level, text, page };
const text = (content: string, page?: number): Block =>
  page === undefined ? { kind: 'text', text: content } : { kind: 'text', text: content, page };

/** `count` distinct sentences of `words` words each, e.g. "Sentence 3 word word word." */
function sentences(count: number, words: number, label = 'Sentence'): string[] {
  return Array.from({ length: count }, (_, index) =>
    [`${label}`, `${index + 1}`, ...Array.from({ length: words - 2 }, () => 'word')].join(' ').concat('.'),
  );
}

const SMALL: ChunkOptions = { targetWords: 50, maxWords: 70, overlapWords: 8 };

/** The words shared by the end of `previous` and the start of `next`, if `next` starts with a tail of `previous`. */
function overlapOf(previous: Chunk, next: Chunk): string {
  const words = previous.text.split(/\s+/);
  for (let start = 1; start < words.length; start += 1) {
    const tail = words.slice(start).join(' ');
    if (next.text.replace(/\s+/g, ' ').startsWith(tail)) return tail;
  }
  return '';
}

describe('chunkDocument', () => {
  it('starts a new chunk at every heading and gives each chunk its heading path', () => {
    const parsed: ParsedDocument = {
      blocks: [
        text('Preamble before any heading.'),
        heading(1, 'Guide'),
        text('Intro.'),
        heading(2, 'Install'),
        text('Run the installer.'),
        heading(3, 'Linux'),
        text('Use the package.'),
        heading(2, 'Configure'),
        text('Edit the file.'),
        heading(1, 'Appendix'),
        text('Extra notes.'),
      ],
    };
    const chunks = chunkDocument(parsed, SMALL);
    expect(chunks.map((chunk) => [chunk.headingPath, chunk.text])).toEqual([
      [[], 'Preamble before any heading.'],
      [['Guide'], 'Intro.'],
      [['Guide', 'Install'], 'Run the installer.'],
      [['Guide', 'Install', 'Linux'], 'Use the package.'],
      // A level-2 heading replaces the level-2 and level-3 headings above it.
      [['Guide', 'Configure'], 'Edit the file.'],
      [['Appendix'], 'Extra notes.'],
    ]);
    expect(chunks.map((chunk) => chunk.position)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('packs consecutive small blocks of one section up to the target, keeping blocks whole', () => {
    const paragraphs = sentences(12, 10, 'Paragraph');
    const chunks = chunkDocument(
      { blocks: [heading(1, 'Notes'), ...paragraphs.map((paragraph) => text(paragraph))] },
      SMALL,
    );
    // Five 10-word paragraphs make 50 words: the target; the sixth starts the next chunk.
    expect(chunks.map((chunk) => chunk.tokenCount)).toEqual([50, 50, 20]);
    expect(chunks[0]?.text).toBe(paragraphs.slice(0, 5).join('\n\n'));
    // Whole paragraphs (10 words) never fit the 8-word overlap budget: no overlap here.
    expect(chunks[1]?.text.startsWith('Paragraph 6 ')).toBe(true);
  });

  it('splits a paragraph over the target at sentences, with a bounded overlap between its chunks', () => {
    const paragraph = sentences(20, 6).join(' ');
    const chunks = chunkDocument({ blocks: [heading(1, 'Long'), text(paragraph, 4)] }, SMALL);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.tokenCount).toBeLessThanOrEqual(SMALL.maxWords);
      expect(chunk.text).toMatch(/^Sentence \d+ .*\.$/);
      expect(chunk).toMatchObject({ headingPath: ['Long'], pageLabels: ['4'] });
    }
    for (let index = 1; index < chunks.length; index += 1) {
      const overlap = overlapOf(chunks[index - 1] as Chunk, chunks[index] as Chunk);
      // One whole 6-word sentence: within the 8-word budget, and never more.
      expect(overlap).toMatch(/^Sentence \d+ word word word word\.$/);
      expect(countWords(overlap)).toBeLessThanOrEqual(SMALL.overlapWords);
    }
    // Every sentence is in some chunk, in order.
    const covered = chunks.flatMap((chunk) => splitSentences(chunk.text).map((sentence) => sentence.text));
    expect([...new Set(covered)]).toEqual(sentences(20, 6));
  });

  it('does not overlap chunks of different sections', () => {
    const chunks = chunkDocument(
      { blocks: [heading(1, 'A'), text(sentences(12, 6).join(' ')), heading(1, 'B'), text('Short B text.')] },
      SMALL,
    );
    const last = chunks.at(-1);
    expect(last).toMatchObject({ headingPath: ['B'], text: 'Short B text.' });
  });

  it('cuts a sentence longer than the maximum at words', () => {
    const huge = Array.from({ length: 230 }, (_, index) => `w${index}`).join(' ');
    const chunks = chunkDocument({ blocks: [text(huge)] }, SMALL);
    expect(chunks.map((chunk) => chunk.tokenCount)).toEqual([50, 50, 50, 50, 30]);
    expect(chunks.map((chunk) => chunk.text).join(' ')).toBe(huge);
  });

  it('never passes the maximum, overlap included', () => {
    const mixed = [
      heading(1, 'Mixed'),
      ...[3, 40, 7, 65, 2, 12, 49, 51, 5].map((words) => text(sentences(1, words)[0] ?? '')),
    ];
    for (const chunk of chunkDocument({ blocks: mixed }, SMALL)) {
      expect(chunk.tokenCount).toBeLessThanOrEqual(SMALL.maxWords);
    }
  });

  it('lists the pages a chunk spans, in numeric order', () => {
    const chunks = chunkDocument(
      { blocks: [text('On page nine.', 9), text('On page ten.', 10), text('Back on nine.', 9)] },
      SMALL,
    );
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.pageLabels).toEqual(['9', '10']);
    expect(chunkDocument({ blocks: [text('No pages.')] }, SMALL)[0]?.pageLabels).toEqual([]);
  });

  it('keeps a heading with nothing under it as text, and skips a heading with subsections', () => {
    const chunks = chunkDocument(
      { blocks: [heading(1, 'Deck'), heading(2, 'Title only slide'), heading(2, 'Slide'), text('Body.')] },
      SMALL,
    );
    expect(chunks.map((chunk) => [chunk.headingPath, chunk.text])).toEqual([
      [['Deck', 'Title only slide'], 'Title only slide'],
      [['Deck', 'Slide'], 'Body.'],
    ]);
  });

  it('keeps code blocks’ lines', () => {
    const [chunk] = chunkDocument({ blocks: [text('line one\n  line two')] }, SMALL);
    expect(chunk?.text).toBe('line one\n  line two');
    expect(chunk?.tokenCount).toBe(4);
  });

  it('cuts a long Markdown code block into parts fenced as it was, so every chunk holds its code fenced', async () => {
    const lines = Array.from({ length: 40 }, (_, index) => `step_${index} --flag value${index}`);
    const markdown = ['# Setup', 'Run these commands:', ['```bash', ...lines, '```'].join('\n')].join('\n\n');
    const chunks = chunkDocument(
      await parseDocument({ mimeType: 'text/markdown', bytes: new TextEncoder().encode(markdown) }),
      SMALL,
    );
    const code = chunks.filter((chunk) => chunk.text.includes('step_'));
    expect(code.length).toBeGreaterThan(2);
    // The sentence introducing the code shares a chunk with its first part.
    expect(
      chunks.some((chunk) => chunk.text.includes('Run these commands:\n\n```bash\nstep_0 --flag value0')),
    ).toBe(true);
    for (const chunk of code) {
      expect(chunk.text.match(/^```bash$/gm)?.length).toBe(chunk.text.match(/^```$/gm)?.length);
      expect(chunk.text.trimEnd().endsWith('```')).toBe(true);
      expect(countWords(chunk.text)).toBeLessThanOrEqual(SMALL.maxWords);
    }
    const all = code.map((chunk) => chunk.text).join('\n');
    for (const line of lines) expect(all).toContain(line);
  });

  it('follows a real PDF’s headings and pages', async () => {
    const bytes = await generatePdf({
      pages: [
        [
          { heading: 'Report', level: 1 },
          'First page text.',
          { heading: 'Findings', level: 2 },
          'Finding one.',
        ],
        ['Finding two continues on the second page.'],
        [{ heading: 'Summary', level: 2 }, 'All good.'],
      ],
    });
    const chunks = chunkDocument(await parseDocument({ mimeType: 'application/pdf', bytes }), SMALL);
    expect(chunks.map((chunk) => [chunk.headingPath, chunk.pageLabels, chunk.text])).toEqual([
      [['Report'], ['1'], 'First page text.'],
      [['Report', 'Findings'], ['1', '2'], 'Finding one.\n\nFinding two continues on the second page.'],
      [['Report', 'Summary'], ['3'], 'All good.'],
    ]);
  });

  it('is deterministic, and the content hash follows the content', async () => {
    const parsed = await parseDocument({
      mimeType: 'text/markdown',
      bytes: generateMarkdown({ blocks: HANDBOOK_BLOCKS }),
    });
    const first = chunkDocument(parsed);
    const second = chunkDocument(structuredClone(parsed));
    expect(second).toEqual(first);
    expect(contentHash('Handbook', second)).toBe(contentHash('Handbook', first));
    expect(contentHash('Handbook', first)).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHash('Handbook v2', first)).not.toBe(contentHash('Handbook', first));
    const edited = first.map((chunk, index) => (index === 1 ? { ...chunk, text: `${chunk.text}!` } : chunk));
    expect(contentHash('Handbook', edited)).not.toBe(contentHash('Handbook', first));
    const moved = first.map((chunk, index) => (index === 0 ? { ...chunk, headingPath: ['Other'] } : chunk));
    expect(contentHash('Handbook', moved)).not.toBe(contentHash('Handbook', first));
    // Key order is not content.
    const reordered = first.map(({ tokenCount, text, position, pageLabels, headingPath }) => ({
      headingPath,
      pageLabels,
      position,
      text,
      tokenCount,
    }));
    expect(contentHash('Handbook', reordered)).toBe(contentHash('Handbook', first));
  });

  it('uses the defaults when given no options, and refuses inconsistent ones', () => {
    const long = sentences(200, 10).join(' ');
    const chunks = chunkDocument({ blocks: [text(long)] });
    for (const chunk of chunks) expect(chunk.tokenCount).toBeLessThanOrEqual(DEFAULT_CHUNK_OPTIONS.maxWords);
    expect(chunks[0]?.tokenCount).toBeGreaterThan(DEFAULT_CHUNK_OPTIONS.targetWords - 10);
    expect(() => chunkDocument({ blocks: [] }, { targetWords: 0, maxWords: 10, overlapWords: 0 })).toThrow(
      RangeError,
    );
    expect(() => chunkDocument({ blocks: [] }, { targetWords: 10, maxWords: 5, overlapWords: 0 })).toThrow(
      RangeError,
    );
    expect(() => chunkDocument({ blocks: [] }, { targetWords: 10, maxWords: 20, overlapWords: 10 })).toThrow(
      RangeError,
    );
    expect(chunkDocument({ blocks: [] })).toEqual([]);
  });
});

describe('chunkDocument’s character cap', () => {
  const maxChars = DEFAULT_CHUNK_OPTIONS.maxChars ?? 0;

  it('cuts a document of one 1 MB word into chunks of at most maxChars, losing nothing', () => {
    const word = 'QUJD'.repeat(250_000);
    const chunks = chunkDocument({ blocks: [text(word)] });
    expect(chunks.length).toBe(Math.ceil(word.length / maxChars));
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(maxChars);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(word);
  });

  it('never cuts between the halves of a surrogate pair', () => {
    const word = `x${'\u{1F600}'.repeat(20_000)}`;
    const chunks = chunkDocument({ blocks: [text(word)] });
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(maxChars);
      expect(chunk.text.isWellFormed()).toBe(true);
    }
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(word);
  });

  it('cuts a long line of code at its spaces, and at characters where it has none', () => {
    const minified = 'a=b.c(d,e);'.repeat(2_000);
    const spaced = Array.from(
      { length: 2_000 },
      (_, index) => `value_${index} = compute(value_${index - 1});`,
    ).join(' ');
    const code = ['function setup() {', minified, spaced, '}'].join('\n');
    const chunks = chunkDocument({ blocks: [heading(1, 'Build'), text(code)] });
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(maxChars);
      expect(chunk.tokenCount).toBeLessThanOrEqual(DEFAULT_CHUNK_OPTIONS.maxWords);
      expect(chunk.headingPath).toEqual(['Build']);
    }
    const all = chunks.map((chunk) => chunk.text).join('\n');
    expect(all.replace(/\s+/g, '')).toContain(minified);
    // The spaced line is cut between words: every statement is whole in some chunk.
    expect(all).toContain('value_1999 = compute(value_1998);');
    expect(chunks.some((chunk) => chunk.text.startsWith('value_'))).toBe(true);
  });

  it('keeps the cap, overlap included, and fills chunks to it', () => {
    const options: ChunkOptions = { ...SMALL, maxChars: 120 };
    // 4 words and 36 or 37 characters each: the cap binds long before the words do.
    const sentence = (index: number) => `Sentence${index} abcdefghij abcdefghij end.`;
    const paragraphs = [0, 1, 2].map((block) =>
      Array.from({ length: 8 }, (_, index) => sentence(block * 8 + index)).join(' '),
    );
    const chunks = chunkDocument({ blocks: paragraphs.map((paragraph) => text(paragraph)) }, options);
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(120);
    expect(chunks.some((chunk) => chunk.text.length > 100)).toBe(true);
    const overlaps = chunks.slice(1).map((chunk, index) => overlapOf(chunks[index] as Chunk, chunk));
    // Two whole sentences of overlap fit the 8-word budget and the room the cap leaves.
    for (const overlap of overlaps)
      expect(overlap).toMatch(/^(Sentence\d+ abcdefghij abcdefghij end\.\s*){2}$/);
    const covered = chunks.flatMap((chunk) =>
      chunk.text.split('\n\n').flatMap((block) => splitSentences(block).map((piece) => piece.text)),
    );
    expect([...new Set(covered)]).toEqual(Array.from({ length: 24 }, (_, index) => sentence(index)));
  });

  it('does not change the chunks of prose', async () => {
    const parsed = await parseDocument({
      mimeType: 'text/markdown',
      bytes: generateMarkdown({ blocks: HANDBOOK_BLOCKS }),
    });
    const long = { blocks: [...parsed.blocks, text(sentences(300, 14).join(' '))] };
    expect(chunkDocument(long)).toEqual(chunkDocument(long, { ...DEFAULT_CHUNK_OPTIONS, maxChars: 1e9 }));
  });

  it('refuses a cap that cannot hold a surrogate pair', () => {
    expect(() => chunkDocument({ blocks: [] }, { ...SMALL, maxChars: 1 })).toThrow(RangeError);
  });
});

describe('chunk text sent to the main thread', () => {
  it('costs a byte a character when it is Latin-1, though the file it came from holds an emoji', async () => {
    const plain = 'Plain words about the service, repeated. '.repeat(40);
    const parsed = await parseDocument({
      mimeType: 'text/markdown',
      bytes: new TextEncoder().encode(`# First\n\nThe rocket 🚀 goes up.\n\n# Second\n\n${plain}\n`),
    });
    const [withEmoji, latin1] = chunkDocument(parsed);
    expect(latin1?.text).toBe(plain.trim());
    // V8's serialiser (structured clone) writes a string as it is stored.
    const bytes = serialize(latin1?.text).byteLength;
    expect(bytes).toBeLessThan(plain.length * 1.1);
    expect(serialize(withEmoji?.text).byteLength).toBeGreaterThan((withEmoji?.text.length ?? 0) * 2 - 1);
  });
});

describe('splitSentences', () => {
  it('cuts after sentence ends, not after abbreviations, initials, decimals or before lower case', () => {
    const split = splitSentences(
      'Dr. Smith met J. R. Tolkien, e.g. at 3.5 p.m. on Monday. He said "Stop!" Then left (quietly.) Why? Fig. 2 shows it. the end... Yes.',
    ).map((sentence) => sentence.text);
    expect(split).toEqual([
      'Dr. Smith met J. R. Tolkien, e.g. at 3.5 p.m. on Monday.',
      'He said "Stop!"',
      'Then left (quietly.)',
      'Why?',
      'Fig. 2 shows it. the end...',
      'Yes.',
    ]);
  });

  it('tells an initial from a one-letter word that ends a sentence', () => {
    const split = splitSentences(
      'The act was signed by John B. Weller in 1859. Thus X reduces to Y. There are many kinds. ' +
        'Time is a function of n. Since inputs differ, we take the worst. It says yes or no. No. 5 Squadron flew on.',
    ).map((sentence) => sentence.text);
    expect(split).toEqual([
      'The act was signed by John B. Weller in 1859.',
      'Thus X reduces to Y.',
      'There are many kinds.',
      'Time is a function of n.',
      'Since inputs differ, we take the worst.',
      'It says yes or no.',
      'No. 5 Squadron flew on.',
    ]);
  });

  it('cuts text with line breaks at its lines', () => {
    expect(splitSentences('a = 1\n\nb = 2').map((sentence) => sentence.text)).toEqual(['a = 1', 'b = 2']);
  });
});
