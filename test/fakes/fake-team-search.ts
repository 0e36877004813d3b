import type {
  SearchHit,
  SearchRequest,
  TeamSearch,
  TermStatistics,
} from '../../src/retrieval/search-types.js';

/** A document held by the fake, as a team's indexed chunk. */
export interface FakeDocument {
  readonly teamId: number;
  readonly title: string;
  readonly text: string;
  /** The name its file was uploaded under (none by default). */
  readonly fileName?: string | null;
  readonly url?: string | null;
  readonly externalId?: string;
  readonly source?: string;
  readonly mimeType?: string | null;
  readonly pageLabels?: readonly string[];
  /** The headings the chunk sits under (none by default). */
  readonly headingPath?: readonly string[];
  readonly documentId?: number;
  readonly createdAt?: Date;
  readonly modifiedAt?: Date | null;
}

// A few of PostgreSQL's English stop words: enough for the sentences tests write.
const STOP_WORDS = new Set(
  'a an and are as at be but by do does for from has have how i in is it its me of on or so that the their them they this to was we what when where which who why will with you your'.split(
    ' ',
  ),
);

/**
 * An in-memory `TeamSearch` for unit tests: one chunk per document, ranked by shared terms.
 * `analyze` lower-cases, drops common stop words and a plural `s`: close enough to PostgreSQL's
 * English analysis for sentence scoring tests. Every request is recorded.
 */
export class FakeTeamSearch implements TeamSearch {
  readonly requests: SearchRequest[] = [];
  private readonly documents: FakeDocument[] = [];

  add(...documents: FakeDocument[]): this {
    this.documents.push(...documents);
    return this;
  }

  async search(request: SearchRequest): Promise<readonly SearchHit[]> {
    this.requests.push(request);
    const query = lexemes(request.query);
    return this.documents
      .map((document, index) => ({
        document,
        index,
        score: overlap(query, lexemes(`${document.title} ${document.text}`)),
      }))
      .filter((item) => item.document.teamId === request.reader.teamId && item.score > 0)
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, request.topK)
      .map(({ document, index, score }) => hitOf(document, index, score));
  }

  async analyze(texts: readonly string[]): Promise<ReadonlyArray<ReadonlyMap<string, number>>> {
    return texts.map(lexemes);
  }

  async termStatistics(teamId: number, terms: readonly string[]): Promise<TermStatistics> {
    const chunks = this.documents
      .filter((document) => document.teamId === teamId)
      .map((document) => lexemes(`${document.title} ${document.text}`));
    return {
      chunks: chunks.length,
      documentFrequencies: new Map(
        terms.map((term) => [term, chunks.filter((chunk) => chunk.has(term)).length]),
      ),
    };
  }
}

/** A search hit for a document, with defaults for what a test does not care about. */
export function hitOf(document: Omit<FakeDocument, 'teamId'>, index: number, score = 1): SearchHit {
  return {
    chunkId: 1000 + index,
    documentId: document.documentId ?? index + 1,
    externalId: document.externalId ?? `doc-${index + 1}`,
    title: document.title,
    fileName: document.fileName ?? null,
    url: document.url === undefined ? null : document.url,
    source: document.source ?? 'upload',
    connectorId: null,
    mimeType: document.mimeType === undefined ? 'text/plain' : document.mimeType,
    text: document.text,
    headingPath: document.headingPath ?? [],
    pageLabels: document.pageLabels ?? [],
    score,
    documentCreatedAt: document.createdAt ?? new Date('2024-05-01T10:00:00Z'),
    sourceModifiedAt: document.modifiedAt ?? null,
  };
}

function lexemes(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (STOP_WORDS.has(word)) continue;
    const stem = word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
    counts.set(stem, (counts.get(stem) ?? 0) + 1);
  }
  return counts;
}

function overlap(query: ReadonlyMap<string, number>, document: ReadonlyMap<string, number>): number {
  let shared = 0;
  for (const term of query.keys()) if (document.has(term)) shared += 1;
  return shared;
}
