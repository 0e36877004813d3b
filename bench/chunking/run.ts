// `npx tsx bench/chunking/run.ts`: how chunk size and overlap change lexical retrieval on the
// BEIR SciFact test split. Each abstract is parsed as a plain-text document and chunked by the
// service's own chunker; chunks are ranked with an in-memory BM25 (./bm25.ts) and a document
// scores as its best chunk. Writes the chunking section of docs/benchmarks.md.
//
//   --dataset DIR   the SciFact copy (BENCH_SCIFACT_DIR, default /work/shared/datasets/scifact)
//   --no-write      print the table without writing docs/benchmarks.md
import { parseArgs } from 'node:util';
import { type ChunkOptions, chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/indexing/chunk.js';
import { type Chunk, contextualText } from '../../src/indexing/document.js';
import { parseDocument } from '../../src/indexing/parse/parse-document.js';
import { commandLine, environmentLine, formatNumber, markdownTable, writeSection } from '../lib/report.js';
import { formatDifference, mean, ndcgAt, pairedDifference, recallAt } from '../lib/retrieval-metrics.js';
import { DEFAULT_SCIFACT_DIR, loadScifact, type Scifact, type ScifactDocument } from '../lib/scifact.js';
import { ANSERINI_BM25, Bm25Index } from './bm25.js';

interface Quality {
  readonly ndcgAt10: number;
  readonly recallAt100: number;
  /** nDCG@10 of each query, in `Scifact.queries` order, for paired comparisons. */
  readonly perQuery: readonly number[];
}

/** The passages one way of chunking gives, and the document each belongs to. */
interface Passages {
  readonly texts: string[];
  readonly documents: number[];
}

const TARGETS = [64, 128, 256, 384, 512] as const;
/** Overlap as a share of the target; 0 and the ~12 % the chunker is designed for. */
const OVERLAP_SHARES = [0, 0.125] as const;
/** The maximum a chunk may reach, as a share of the target (the defaults use 320/256). */
const MAX_SHARE = 1.25;

const { values } = parseArgs({
  options: { dataset: { type: 'string' }, 'no-write': { type: 'boolean' } },
  strict: true,
});
const datasetDir = values.dataset ?? process.env.BENCH_SCIFACT_DIR ?? DEFAULT_SCIFACT_DIR;

const log = (line: string) => process.stderr.write(`${line}\n`);

async function chunksOf(text: string, options: ChunkOptions): Promise<Chunk[]> {
  const parsed = await parseDocument({ mimeType: 'text/plain', bytes: new TextEncoder().encode(text) });
  return chunkDocument(parsed, options);
}

/**
 * `chunk`: title and abstract as one plain-text document, each chunk indexed as it is.
 * `contextual`: the abstract alone chunked, each chunk indexed with the title in front
 * (`contextualText`), as the service indexes and embeds chunks.
 */
async function passagesFor(
  documents: readonly ScifactDocument[],
  options: ChunkOptions,
): Promise<{ chunk: Passages; contextual: Passages }> {
  const chunk: Passages = { texts: [], documents: [] };
  const contextual: Passages = { texts: [], documents: [] };
  for (const [index, document] of documents.entries()) {
    for (const piece of await chunksOf(`${document.title}\n\n${document.text}`, options)) {
      chunk.texts.push(piece.text);
      chunk.documents.push(index);
    }
    const body = await chunksOf(document.text, options);
    // An abstract with no text still has its title to be found by.
    if (body.length === 0) {
      contextual.texts.push(document.title);
      contextual.documents.push(index);
    }
    for (const piece of body) {
      contextual.texts.push(contextualText(document.title, piece));
      contextual.documents.push(index);
    }
  }
  return { chunk, contextual };
}

function evaluate(dataset: Scifact, passages: Passages): Quality {
  const index = new Bm25Index(passages.texts, ANSERINI_BM25);
  const perQuery: number[] = [];
  const recalls: number[] = [];
  for (const query of dataset.queries) {
    const scores = index.score(query.text);
    // A document scores as its best chunk.
    const best = new Map<number, number>();
    scores.forEach((score, passage) => {
      if (score <= 0) return;
      const document = passages.documents[passage] ?? -1;
      if (score > (best.get(document) ?? 0)) best.set(document, score);
    });
    const ranking = [...best]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, 100)
      .map(([document]) => dataset.documents[document]?.id ?? '');
    const relevant = dataset.judgements.get(query.id) ?? new Map<string, number>();
    perQuery.push(ndcgAt(10, ranking, relevant));
    recalls.push(recallAt(100, ranking, relevant));
  }
  return { ndcgAt10: mean(perQuery), recallAt100: mean(recalls), perQuery };
}

/** Mean difference of paired per-query scores, ± the half-width of its 95 % confidence interval. */
function pairedDifferenceText(a: readonly number[], b: readonly number[]): string {
  return formatDifference(pairedDifference(a, b));
}

const started = performance.now();
const dataset = loadScifact(datasetDir);
const wordsOf = (text: string) => text.split(/\s+/).filter((word) => word !== '').length;
const documentWords = dataset.documents.map((document) => wordsOf(`${document.title} ${document.text}`));
const meanWords = documentWords.reduce((sum, words) => sum + words, 0) / documentWords.length;
const sortedWords = [...documentWords].sort((a, b) => a - b);
const percentile = (share: number) =>
  sortedWords[Math.min(sortedWords.length - 1, Math.floor(share * sortedWords.length))];
log(
  `${dataset.documents.length} documents (mean ${meanWords.toFixed(0)} words), ${dataset.queries.length} test queries`,
);

const whole = evaluate(dataset, {
  texts: dataset.documents.map((document) => `${document.title}\n\n${document.text}`),
  documents: dataset.documents.map((_, index) => index),
});
log(`whole documents: nDCG@10 ${whole.ndcgAt10.toFixed(4)}, recall@100 ${whole.recallAt100.toFixed(4)}`);

const fixed = (value: number) => value.toFixed(3);
const rows: string[][] = [
  [
    'whole document',
    '–',
    '–',
    '1.00',
    formatNumber(meanWords),
    fixed(whole.ndcgAt10),
    fixed(whole.recallAt100),
    '',
    '',
    '',
    '',
  ],
];
for (const targetWords of TARGETS) {
  for (const share of OVERLAP_SHARES) {
    const options: ChunkOptions = {
      targetWords,
      maxWords: Math.round(targetWords * MAX_SHARE),
      overlapWords: Math.round(targetWords * share),
    };
    const { chunk, contextual } = await passagesFor(dataset.documents, options);
    const plain = evaluate(dataset, chunk);
    const withTitle = evaluate(dataset, contextual);
    const perDocument = chunk.texts.length / dataset.documents.length;
    const wordsPerChunk = chunk.texts.reduce((sum, text) => sum + wordsOf(text), 0) / chunk.texts.length;
    log(
      `target ${targetWords}, max ${options.maxWords}, overlap ${options.overlapWords}: ${perDocument.toFixed(2)} chunks/doc, ` +
        `nDCG@10 ${plain.ndcgAt10.toFixed(4)} / ${withTitle.ndcgAt10.toFixed(4)} with title, ` +
        `recall@100 ${plain.recallAt100.toFixed(4)} / ${withTitle.recallAt100.toFixed(4)}`,
    );
    rows.push([
      String(targetWords),
      String(options.maxWords),
      String(options.overlapWords),
      perDocument.toFixed(2),
      formatNumber(wordsPerChunk),
      fixed(plain.ndcgAt10),
      fixed(plain.recallAt100),
      pairedDifferenceText(plain.perQuery, whole.perQuery),
      fixed(withTitle.ndcgAt10),
      fixed(withTitle.recallAt100),
      pairedDifferenceText(withTitle.perQuery, whole.perQuery),
    ]);
  }
}

const table = markdownTable(
  [
    'target words',
    'max',
    'overlap',
    'chunks/doc',
    'words/chunk',
    'nDCG@10',
    'recall@100',
    'vs whole, nDCG@10',
    'nDCG@10, title + chunk',
    'recall@100, title + chunk',
    'vs whole, nDCG@10, title + chunk',
  ],
  rows,
  ['r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
);

const defaults = DEFAULT_CHUNK_OPTIONS;
const section = `## Chunking: chunk size and overlap against retrieval quality (\`bench/chunking\`)

Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${environmentLine()}.
Command: \`${commandLine('bench:chunking', 'bench/chunking/run.ts')}\`; took ${formatNumber((performance.now() - started) / 1000)} s.

BEIR SciFact, test split: ${formatNumber(dataset.documents.length)} abstracts, ${dataset.queries.length} queries with judgements.
Title + text: mean ${formatNumber(meanWords)} words, median ${percentile(0.5)}, 90th percentile ${percentile(0.9)}, longest ${sortedWords.at(-1)}.

Each abstract is parsed by the service's plain-text reader and split by its chunker
(\`src/indexing/chunk.ts\`) with the target, maximum (1.25 × target) and overlap of each row.
Chunks are ranked by an in-memory BM25 (k1 ${ANSERINI_BM25.k1}, b ${ANSERINI_BM25.b}, Lucene IDF; lower-cased
letter-and-digit tokens, Harman's S-stemmer for plurals, no stop words: \`bench/chunking/bm25.ts\`),
and a document scores as its best chunk. \`nDCG@10\` and \`recall@100\` chunk the title and abstract
as one document and index each chunk alone; the \`title + chunk\` columns chunk the abstract and
index each chunk with the title in front (\`contextualText\`), as the service indexes and embeds
chunks. \`whole document\` indexes each abstract unchunked (published BM25 on this split: 0.665
to 0.687 nDCG@10).

${table}

\`vs whole\` is the mean per-query difference from the whole-abstract index, ± the half-width
of its 95 % confidence interval (paired over the ${dataset.queries.length} queries).

Indexed with their document's title in front, as the service indexes them, chunks of any size
here retrieve about as well as whole abstracts: no row differs from them by more than its
confidence interval. Without the title, 64-word chunks lose beyond theirs: a claim matches words
spread over several sentences of an abstract, which a short chunk cuts apart. From 384 words up
nearly every abstract is a single chunk, so larger targets cannot be told apart on this corpus.
Overlap changed nothing measurable: it repeats whole sentences only, a sentence of a scientific
abstract rarely fits a small target's budget, and larger targets make few cuts.

SciFact cannot show what happens past an abstract's length, where real documents (handbooks,
reports, wiki pages) live; there the ceiling is the embedding model, which reads about 512
tokens: some 390 English words at 1.3 tokens a word, fewer for technical text, with the title
and heading path included. The defaults (\`DEFAULT_CHUNK_OPTIONS\`) are
\`targetWords ${defaults.targetWords}\`, \`maxWords ${defaults.maxWords}\`, \`overlapWords ${defaults.overlapWords}\`: the largest target whose maximum,
with its context line, stays within 512 tokens, at no measurable cost here, and an overlap of
about one sentence (12 %) for sections long enough to be cut.`;

if (values['no-write'] === true) {
  process.stdout.write(`${section}\n`);
} else {
  writeSection('chunking', section);
  process.stdout.write(`${table}\n\nWrote the chunking section of docs/benchmarks.md.\n`);
}
