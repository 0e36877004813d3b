import type { Reader } from '../access.js';
/** How a search ranks: lexical (BM25) only, vectors only, or both fused (the default). */
export type SearchMode = 'hybrid' | 'lexical' | 'dense';

export type DocumentSource = 'googledrive' | 'wiki' | 'upload';

export interface SearchRequest {
  /**
   * Who reads the results: only their team's chunks are searched, and of those only documents
   * they may open (filtered inside the rankings, before the top k is taken).
   */
  readonly reader: Reader;
  readonly query: string;
  readonly topK: number;
  /** Only chunks of these connectors (any of them); undefined or empty: all. */
  readonly connectorIds?: readonly number[] | undefined;
  /** Only chunks of these sources; undefined or empty: all. */
  readonly sources?: readonly DocumentSource[] | undefined;
  /** Defaults to hybrid; hybrid is lexical alone when embeddings are off. */
  readonly mode?: SearchMode | undefined;
  readonly signal?: AbortSignal | undefined;
  /** What `TeamSearch.prepare` began as this request arrived, if it did; no other request's. */
  readonly prepared?: PreparedSearch | undefined;
}

/**
 * A search's sync begun as its request arrived, before its text was read (PostgreSQL, a team held
 * in memory): the round trip runs while the request is parsed, checked and its query analysed. It
 * saw what was committed before the request began, so only that request may use it.
 */
export interface PreparedSearch {
  /** The reader's access lists as of the sync; undefined when it failed (the search syncs again). */
  readonly accessListIds: Promise<readonly number[] | undefined>;
}

/** One ranked chunk, with what answers need to cite its document. */
export interface SearchHit {
  readonly chunkId: number;
  readonly documentId: number;
  readonly externalId: string;
  readonly title: string;
  /** The name its file was uploaded under (`pino-api.md`); null when it came otherwise. */
  readonly fileName: string | null;
  readonly url: string | null;
  readonly source: string;
  readonly connectorId: number | null;
  readonly mimeType: string | null;
  readonly text: string;
  readonly headingPath: readonly string[];
  readonly pageLabels: readonly string[];
  /** Higher is better; comparable only within one result list. */
  readonly score: number;
  readonly documentCreatedAt: Date;
  readonly sourceModifiedAt: Date | null;
}

/** The search port use cases depend on (a team's chunks, ranked). */
export interface TeamSearch {
  search(request: SearchRequest): Promise<readonly SearchHit[]>;
  /**
   * Begins what a search by this reader will need first, as their request arrives, to be passed
   * with that request (`SearchRequest.prepared`); undefined when nothing is worth beginning.
   */
  prepare?(reader: Reader): PreparedSearch | undefined;
  /**
   * PostgreSQL's English analysis of each text (the same stemming and stop words as search):
   * its lexemes with their counts. Lets answerers score sentences as search scores chunks.
   */
  analyze(texts: readonly string[]): Promise<ReadonlyArray<ReadonlyMap<string, number>>>;
  /**
   * How the team's collection weighs terms (lexemes, as `analyze` gives them): how many of its
   * chunks hold each, and how many chunks it has. An answer's evidence is judged by it: a term few
   * chunks hold says what a question is about.
   */
  termStatistics(teamId: number, terms: readonly string[]): Promise<TermStatistics>;
}

/** A team's chunks, and how many of them hold each term asked about (0 for a term none holds). */
export interface TermStatistics {
  readonly chunks: number;
  readonly documentFrequencies: ReadonlyMap<string, number>;
}
