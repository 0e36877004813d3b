// The BEIR SciFact copy the benchmarks read: its corpus, its test queries and their judgements.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Where the SciFact copy is unless BENCH_SCIFACT_DIR or a --dataset flag says otherwise. */
export const DEFAULT_SCIFACT_DIR = '/work/shared/datasets/scifact';

export interface ScifactDocument {
  /** The corpus `_id`. */
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly metadata: Record<string, unknown>;
}

export interface ScifactQuery {
  readonly id: string;
  readonly text: string;
}

/** Query id → (document id → graded relevance). */
export type Judgements = ReadonlyMap<string, ReadonlyMap<string, number>>;

export interface Scifact {
  readonly documents: readonly ScifactDocument[];
  /** Test queries that have judgements, in file order. */
  readonly queries: readonly ScifactQuery[];
  readonly judgements: Judgements;
}

function readJsonLines<T>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** The corpus alone (`corpus.jsonl`), in file order. */
export function loadScifactCorpus(directory: string): ScifactDocument[] {
  return readJsonLines<{ _id: string; title: string; text: string; metadata?: Record<string, unknown> }>(
    path.join(directory, 'corpus.jsonl'),
  ).map((row) => ({ id: row._id, title: row.title, text: row.text, metadata: row.metadata ?? {} }));
}

/** The corpus, the test queries (`qrels/test.tsv`) and their judgements. */
export function loadScifact(directory: string): Scifact {
  const documents = loadScifactCorpus(directory);
  const judgements = new Map<string, Map<string, number>>();
  const [, ...rows] = readFileSync(path.join(directory, 'qrels/test.tsv'), 'utf8').trim().split('\n');
  for (const row of rows) {
    const [queryId = '', documentId = '', score = '0'] = row.split('\t');
    const forQuery = judgements.get(queryId) ?? new Map<string, number>();
    forQuery.set(documentId, Number(score));
    judgements.set(queryId, forQuery);
  }
  const queries = readJsonLines<{ _id: string; text: string }>(path.join(directory, 'queries.jsonl'))
    .filter((row) => judgements.has(row._id))
    .map((row) => ({ id: row._id, text: row.text }));
  return { documents, queries, judgements };
}
