// `npx tsx bench/answer-quality/replay.ts DUMP [--show N]`: for trying answerer changes in seconds.
// Replays the passages a `bench/answer-quality --dump` run retrieved through the extractive answerer
// in this process (PostgreSQL's analysis from an in-memory PGlite, as the service's), and prints the
// figures of questions asked alone and of the claims. Not a benchmark: the figures that count are the
// service's, through the API (run.ts).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import type { Passage } from '../../src/answering/answerer.js';
import { numberPassages } from '../../src/answering/citations.js';
import { ExtractiveAnswerer } from '../../src/answering/extractive-answerer.js';
import { analyzeTexts } from '../../src/db/repositories/search.js';
import { sqlConnection } from '../../src/db/sql-connection.js';
import type { SearchHit } from '../../src/retrieval/search-types.js';
import type { SearchResult } from '../lib/search-client.js';
import type { ChatAnswer } from './chat-client.js';
import { baselineSentence, firstSentence, isNotFound, plain } from './measures.js';
import { holdsAnswer, words } from './squad.js';

interface DumpRecord {
  readonly kind: 'squad' | 'claim';
  readonly question?: { question: string; answers: string[] };
  readonly claim?: { text: string };
  readonly judged?: string[];
  readonly leftOut?: boolean;
  readonly retrieved: SearchResult[];
}

function hitOf(result: SearchResult): SearchHit {
  return {
    chunkId: result.chunk_id,
    documentId: result.document_id,
    externalId: result.external_id,
    title: result.title,
    fileName: null,
    url: result.url,
    source: result.source,
    connectorId: null,
    mimeType: null,
    text: result.text,
    headingPath: [],
    pageLabels: [],
    score: result.score,
    documentCreatedAt: new Date(0),
    sourceModifiedAt: null,
  };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { show: { type: 'string' }, only: { type: 'string' } },
  });
  const file = positionals[0];
  if (file === undefined)
    throw new Error('usage: replay.ts DUMP [--show N] [--only squad|claim|missed|first]');
  const records = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as DumpRecord);
  const database = new PGlite();
  const sql = sqlConnection(database);
  // The dump holds the passages, not the team's collection: each term weighs alike (one chunk each).
  const answerer = new ExtractiveAnswerer({
    analyze: (texts) => analyzeTexts(sql, texts),
    termStatistics: async (_teamId, terms) => ({
      chunks: 1,
      documentFrequencies: new Map(terms.map((term) => [term, 1])),
    }),
  });
  const show = Number(values.show ?? 0);
  const only = values.only ?? '';
  const tally = { asked: 0, first: 0, anywhere: 0, words: 0, notFound: 0, baseline: 0 };
  const left = { asked: 0, refused: 0 };
  const claims = { asked: 0, cited: 0, notFound: 0 };
  let shown = 0;
  for (const record of records) {
    const passages: Passage[] = numberPassages(record.retrieved.map(hitOf));
    const question = record.kind === 'squad' ? (record.question?.question ?? '') : (record.claim?.text ?? '');
    let text = '';
    for await (const piece of answerer.answer({
      teamId: 0,
      question,
      history: [],
      topic: [],
      passages,
      signal: new AbortController().signal,
    }))
      text += piece;
    const cited = new Set([...text.matchAll(/\[(\d{1,3})\]/g)].map((match) => Number(match[1])));
    const sources = passages.filter((passage) => cited.has(passage.number));
    const answer: ChatAnswer = {
      text,
      sources: sources.map((passage) => ({
        file_path: `upload/${passage.hit.externalId}`,
        citation: passage.number,
      })),
      chatId: '',
    };
    if (record.kind === 'claim') {
      const judged = record.judged ?? [];
      if (!record.retrieved.some((result) => judged.includes(result.external_id))) continue;
      claims.asked += 1;
      const hit = sources.some((passage) => judged.includes(passage.hit.externalId));
      if (hit) claims.cited += 1;
      if (isNotFound(answer)) claims.notFound += 1;
      if (shown < show && only === 'claim' && !hit) {
        shown += 1;
        process.stdout.write(`\nCLAIM ${question}\n  judged ${judged.join(',')}\n  -> ${text}\n`);
      }
      continue;
    }
    const answers = record.question?.answers ?? [];
    if (record.leftOut === true) {
      left.asked += 1;
      if (isNotFound(answer)) left.refused += 1;
      else if (shown < show && only === 'left') {
        shown += 1;
        process.stdout.write(`\nLEFT-OUT Q ${question}\n  -> ${text}\n`);
      }
      continue;
    }
    tally.asked += 1;
    const read = plain(answer);
    const first = holdsAnswer(firstSentence(read), answers);
    const anywhere = holdsAnswer(read, answers);
    if (first) tally.first += 1;
    if (anywhere) tally.anywhere += 1;
    tally.words += words(read);
    if (isNotFound(answer)) tally.notFound += 1;
    if (holdsAnswer(baselineSentence(question, record.retrieved[0]?.text), answers)) tally.baseline += 1;
    const wanted = (only === 'missed' && !anywhere) || (only === 'first' && anywhere && !first);
    if (shown < show && wanted) {
      shown += 1;
      process.stdout.write(`\nQ ${question}\n  gold ${answers[0]}\n  -> ${text}\n`);
    }
  }
  const percent = (count: number, total: number) => `${((100 * count) / Math.max(1, total)).toFixed(1)} %`;
  process.stdout.write(
    [
      `\nSQuAD (${tally.asked}): first ${percent(tally.first, tally.asked)}, anywhere ${percent(tally.anywhere, tally.asked)}, ` +
        `mean ${(tally.words / Math.max(1, tally.asked)).toFixed(1)} words, not found ${percent(tally.notFound, tally.asked)}, baseline ${percent(tally.baseline, tally.asked)}`,
      `left out (${left.asked}): refused ${percent(left.refused, left.asked)}`,
      `claims (${claims.asked}): cited ${percent(claims.cited, claims.asked)}, not found ${percent(claims.notFound, claims.asked)}`,
      '',
    ].join('\n'),
  );
  await database.close();
}

await main();
