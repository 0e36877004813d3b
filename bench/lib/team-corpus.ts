// Large teams for the speed benchmarks (bench/search, bench/answer): SciFact's abstracts repeated
// with variations (sentences shuffled, a numbered reference appended, several abstracts to a
// document as its sections), chunked by the service's chunker and stored by the service's own
// storage function (`replaceDocument`: chunks, lexical postings and vectors, as indexing writes
// them), straight into the database the service then opens. Far faster than the upload API for
// hundreds of thousands of chunks, and the rows are the same. Each document gets the access list
// its team's `TeamAccess` gives it (team-wide when none does).
import { accessFingerprint, type DocumentAccess, TEAM_ACCESS } from '../../src/access.js';
import { HashingEmbeddingModel } from '../../src/adapters/embeddings/hashing-embedding-model.js';
import { ensureVectorIndex } from '../../src/db/repositories/chunk-embeddings.js';
import {
  type ChunkToStore,
  type DocumentFields,
  replaceDocument,
} from '../../src/db/repositories/documents.js';
import type { SqlConnection, SqlExecutor } from '../../src/db/sql-connection.js';
import { chunkDocument } from '../../src/indexing/chunk.js';
import { contentHash } from '../../src/indexing/content-hash.js';
import { contextualText } from '../../src/indexing/document.js';
import { parseDocument } from '../../src/indexing/parse/parse-document.js';
import { seededRandom } from '../../test/helpers/seeded-random.js';
import type { ScifactDocument } from './scifact.js';

/** Who may open a team's documents, and who indexed them. */
export interface TeamAccess {
  /** The user recorded as having indexed every document (`documents.indexed_by`). */
  readonly indexedBy: number | null;
  /** The access list of the team's document number `index` (0, 1, … in the order stored). */
  readonly listOf: (index: number) => DocumentAccess;
}

/** One team to fill: `chunks` chunks, varied by `seed` (teams with different seeds differ). */
export interface TeamSpec {
  readonly teamId: number;
  readonly chunks: number;
  readonly seed: number;
  /** Default: every document team-wide, indexed by no one in particular. */
  readonly access?: TeamAccess;
}

export interface StoreOptions {
  /** Abstracts a document holds, each a section (`## title`) of it. */
  readonly abstractsPerDocument: number;
  /** Vectors to store with the chunks (hashing vectors, as the fake embedding server answers). */
  readonly embedding: { readonly model: string; readonly dimensions: number } | undefined;
  /** Transactions in flight at once (1 on PGlite). */
  readonly concurrency: number;
  /** Documents stored per transaction. */
  readonly documentsPerTransaction: number;
  /** `maintenance_work_mem` for building the indexes once loaded (e.g. `1GB`). */
  readonly maintenanceWorkMem: string;
  readonly progress: (message: string) => void;
}

/** The documents and chunks stored with one access list. */
export interface StoredList {
  readonly access: DocumentAccess;
  readonly documents: number;
  readonly chunks: number;
}

export interface StoredTeam {
  readonly teamId: number;
  readonly documents: number;
  readonly chunks: number;
  /** By access list, in the order first stored. */
  readonly lists: readonly StoredList[];
}

function shuffle<T>(items: readonly T[], next: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(next() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

/** Sentences of an abstract (at a full stop, question or exclamation mark before a capital or digit). */
function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=[A-Z0-9])/).filter((sentence) => sentence.trim() !== '');
}

export interface VariantDocument {
  readonly fields: DocumentFields;
  readonly contentHash: string;
  readonly chunks: readonly ChunkToStore[];
}

/**
 * The documents of one team, generated lazily until `spec.chunks` chunks (the last document is cut
 * to fit): pass after pass over the corpus in a fresh order, `abstractsPerDocument` abstracts a
 * document, each with its sentences shuffled and a reference number appended.
 */
export async function* teamDocuments(
  corpus: readonly ScifactDocument[],
  spec: TeamSpec,
  abstractsPerDocument: number,
): AsyncGenerator<VariantDocument> {
  const next = seededRandom(spec.seed * 7_919 + 17);
  let remaining = spec.chunks;
  let stored = 0;
  for (let pass = 0; remaining > 0; pass += 1) {
    const order = shuffle(
      corpus.map((_, index) => index),
      next,
    );
    for (let start = 0; start < order.length && remaining > 0; start += abstractsPerDocument) {
      const part = start / abstractsPerDocument;
      const sections = order.slice(start, start + abstractsPerDocument).map((index) => {
        const abstract = corpus[index] as ScifactDocument;
        const body = shuffle(sentences(abstract.text), next).join(' ');
        const reference = `Reference ${spec.seed}-${pass}-${part}-${abstract.id}, cohort ${Math.floor(next() * 10_000)}.`;
        return `## ${abstract.title}\n\n${body} ${reference}`;
      });
      const title =
        abstractsPerDocument === 1
          ? (corpus[order[start] ?? 0]?.title ?? '')
          : `Research digest ${spec.seed}.${pass}.${part}`;
      const text =
        abstractsPerDocument === 1
          ? (sections[0] ?? '').replace(/^## [^\n]*\n\n/, '')
          : sections.join('\n\n');
      const parsed = await parseDocument({ mimeType: 'text/markdown', bytes: Buffer.from(text, 'utf8') });
      const chunks = chunkDocument(parsed).slice(0, remaining);
      if (chunks.length === 0) continue;
      remaining -= chunks.length;
      const index = stored;
      stored += 1;
      yield {
        fields: {
          teamId: spec.teamId,
          source: 'upload',
          externalId: `bench-${spec.seed}-${pass}-${part}`,
          connectorId: null,
          title,
          url: null,
          mimeType: 'text/markdown',
          sourceVersion: null,
          sourceModifiedAt: null,
          originId: null,
          metadata: {},
          access: spec.access?.listOf(index) ?? TEAM_ACCESS,
          indexedBy: spec.access?.indexedBy ?? null,
        },
        contentHash: contentHash(title, chunks),
        chunks: chunks.map((chunk) => ({
          position: chunk.position,
          text: chunk.text,
          headingPath: chunk.headingPath,
          pageLabels: chunk.pageLabels,
          tokenCount: chunk.tokenCount,
          contextualText: contextualText(title, chunk),
        })),
      };
    }
  }
}

/** The secondary indexes of the chunk tables, which are cheaper built once than kept up while loading. */
const LOADED_TABLES = ['chunks', 'chunk_terms', 'chunk_embeddings'];

/**
 * Drops the chunk tables' indexes that are not unique (unique ones keep constraints and the
 * lookups storing does, e.g. deleting a document's chunks) and answers a function that builds
 * them again from their own definitions (whatever the migrations made them).
 */
async function dropSecondaryIndexes(sql: SqlExecutor): Promise<(on: SqlExecutor) => Promise<void>> {
  const { rows } = await sql.executeSql(
    `SELECT i.indexname, i.indexdef FROM pg_indexes i
     WHERE i.schemaname = 'public' AND i.tablename = ANY($1::text[])
       AND NOT (SELECT x.indisunique FROM pg_index x WHERE x.indexrelid = to_regclass(quote_ident(i.indexname)))
     ORDER BY i.indexname`,
    [LOADED_TABLES],
  );
  const definitions = rows.map((row) => ({ name: String(row.indexname), definition: String(row.indexdef) }));
  for (const { name } of definitions) await sql.executeSql(`DROP INDEX ${quoteIdent(name)}`);
  return async (on) => {
    for (const { definition } of definitions) await on.executeSql(definition);
  };
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A connection whose transactions are one outer transaction's: several documents, one commit. */
function within(transaction: SqlExecutor): SqlConnection {
  return {
    runsOnMainThread: false,
    executeSql: (text, values) => transaction.executeSql(text, values),
    transaction: (work) => work(transaction),
  };
}

/**
 * Stores every team's documents with `replaceDocument`, then builds the indexes (the HNSW index
 * of the model's vectors too, as the worker would at start) and analyses the tables. `sql` must
 * be a connection that may run `concurrency` transactions at once (a pool on PostgreSQL).
 */
export async function storeTeams(
  sql: SqlConnection,
  corpus: readonly ScifactDocument[],
  teams: readonly TeamSpec[],
  options: StoreOptions,
): Promise<{ teams: StoredTeam[]; loadSeconds: number; indexSeconds: number }> {
  const embedder =
    options.embedding === undefined
      ? undefined
      : new HashingEmbeddingModel({ dimensions: options.embedding.dimensions });
  const restoreIndexes = await dropSecondaryIndexes(sql);
  const started = performance.now();
  const stored: StoredTeam[] = [];
  let total = 0;
  let lastReport = started;
  for (const team of teams) {
    let documents = 0;
    let chunks = 0;
    const generator = teamDocuments(corpus, team, options.abstractsPerDocument);
    const inFlight = new Set<Promise<void>>();
    let failure: unknown;
    let batch: VariantDocument[] = [];
    const lists = new Map<string, { access: DocumentAccess; documents: number; chunks: number }>();
    const flush = async (documentsToStore: VariantDocument[]) => {
      // Storing a document upserts its access list's row, which stays locked until the commit:
      // every transaction takes those locks in one order (by list), so none waits in a cycle.
      const ordered = documentsToStore
        .map((document) => ({ document, list: accessFingerprint(document.fields.access) }))
        .sort((a, b) => (a.list < b.list ? -1 : a.list > b.list ? 1 : 0))
        .map(({ document }) => document);
      const work = sql
        .transaction(async (transaction) => {
          for (const document of ordered) {
            await replaceDocument(
              within(transaction),
              document.fields,
              document.contentHash,
              document.chunks,
              embedder === undefined || options.embedding === undefined
                ? undefined
                : {
                    model: options.embedding.model,
                    vectors: document.chunks.map((chunk) => embedder.vectorFor(chunk.contextualText)),
                  },
            );
          }
        })
        .catch((error: unknown) => {
          failure ??= error;
        });
      const tracked = work.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      while (inFlight.size >= options.concurrency) await Promise.race(inFlight);
      if (failure !== undefined) throw failure;
    };
    for await (const document of generator) {
      batch.push(document);
      documents += 1;
      chunks += document.chunks.length;
      const fingerprint = accessFingerprint(document.fields.access);
      const list = lists.get(fingerprint) ?? { access: document.fields.access, documents: 0, chunks: 0 };
      list.documents += 1;
      list.chunks += document.chunks.length;
      lists.set(fingerprint, list);
      total += document.chunks.length;
      if (batch.length >= options.documentsPerTransaction) {
        await flush(batch);
        batch = [];
      }
      if (performance.now() - lastReport > 15_000) {
        lastReport = performance.now();
        const seconds = (lastReport - started) / 1000;
        options.progress(
          `  ${seconds.toFixed(0)} s: ${total.toLocaleString('en-US')} chunks stored (${Math.round(total / seconds)} a second)`,
        );
      }
    }
    if (batch.length > 0) await flush(batch);
    await Promise.all(inFlight);
    if (failure !== undefined) throw failure;
    stored.push({ teamId: team.teamId, documents, chunks, lists: [...lists.values()] });
  }
  const loaded = performance.now();
  options.progress(
    `stored ${total.toLocaleString('en-US')} chunks in ${((loaded - started) / 1000).toFixed(0)} s; building the indexes`,
  );
  // One transaction: the memory setting holds for every build, on the connection that runs them.
  await sql.transaction(async (transaction) => {
    await transaction.executeSql(`SET LOCAL maintenance_work_mem = '${options.maintenanceWorkMem}'`);
    await restoreIndexes(transaction);
    if (options.embedding !== undefined) {
      await ensureVectorIndex(transaction, options.embedding.model, options.embedding.dimensions);
    }
  });
  // As autovacuum would after so many inserts: statistics for the planner, and the visibility map,
  // without which every index-only scan (the lexical postings) visits the table too.
  for (const table of ['access_lists', 'documents', ...LOADED_TABLES])
    await sql.executeSql(`VACUUM (ANALYZE) ${table}`);
  const indexed = performance.now();
  return { teams: stored, loadSeconds: (loaded - started) / 1000, indexSeconds: (indexed - loaded) / 1000 };
}
