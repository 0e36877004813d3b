import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  type DocumentSource,
  type PreparedSearch,
  prepareSearchDocuments,
  searchDocuments,
} from '../../../services/search-documents.js';
import type { AppOptions } from '../../app-options.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, SAFE_INTEGER_RANGE, withErrors } from '../../schema-types.js';
import { canonicalSource, SourceName, SourceNames } from '../source-filter.js';

/** Most results one search returns. */
export const SEARCH_MAX_TOP_K = 100;

const ConnectorIds = Type.Array(Type.Integer(SAFE_INTEGER_RANGE), { maxItems: 100 });

/**
 * The filters, under the names clients use for them: each list narrows the search to those
 * connectors or kinds of source; singular names take one value or a list.
 */
const filterFields = {
  connector_ids: Type.Optional({ ...ConnectorIds, description: 'only these connectors' }),
  connector_id: Type.Optional(Type.Union([Type.Integer(SAFE_INTEGER_RANGE), ConnectorIds])),
  sources: Type.Optional({ ...SourceNames, description: 'only these kinds of source' }),
  source_types: Type.Optional(SourceNames),
  source_type: Type.Optional(Type.Union([SourceName, SourceNames])),
  source: Type.Optional(Type.Union([SourceName, SourceNames])),
};
type FilterFields = Partial<Record<keyof typeof filterFields, unknown>>;

const SearchBody = Type.Object({
  query: Type.String({
    minLength: 1,
    maxLength: 4000,
    description: 'Free text; "quoted phrases" must appear in a result as written',
  }),
  top_k: Type.Integer({ minimum: 1, maximum: SEARCH_MAX_TOP_K, default: 10 }),
  mode: Type.Optional(
    Type.Union([Type.Literal('hybrid'), Type.Literal('lexical'), Type.Literal('dense')], {
      description: 'hybrid (default: BM25 fused with vectors when embeddings are on), lexical or dense',
    }),
  ),
  ...filterFields,
  filters: Type.Optional(Type.Object(filterFields, { description: 'the same filters, nested' })),
});

/** Every connector and source the body names, under any of its names; undefined when none. */
function requestedFilters(body: FilterFields & { filters?: FilterFields | undefined }): {
  connectorIds: number[] | undefined;
  sources: DocumentSource[] | undefined;
} {
  const groups = [body, body.filters ?? {}];
  const values = (keys: readonly (keyof FilterFields)[]) =>
    groups.flatMap((group) => keys.flatMap((key) => [group[key] ?? []].flat()));
  const connectorIds = values(['connector_ids', 'connector_id']) as number[];
  const sources = (values(['sources', 'source_types', 'source_type', 'source']) as string[]).map(
    canonicalSource,
  );
  return {
    connectorIds: connectorIds.length === 0 ? undefined : [...new Set(connectorIds)],
    sources: sources.length === 0 ? undefined : [...new Set(sources)],
  };
}

const SearchResult = Type.Object({
  document_id: Type.Integer(),
  external_id: Type.String(),
  title: Type.String({ description: "the document's title", examples: ['API'] }),
  file_name: Type.Union([Type.String(), Type.Null()], {
    description:
      'the name its file was uploaded under, shown beside the title; null for JSON documents, Drive files and wiki pages',
    examples: ['pino-api.md'],
  }),
  url: Type.Union([Type.String(), Type.Null()]),
  source: Type.String(),
  chunk_id: Type.Integer(),
  /** The headings the passage sits under, outermost first: what its section is about. */
  heading_path: Type.Array(Type.String(), {
    description: 'the headings the passage sits under in its document, outermost first',
  }),
  text: Type.String(),
  score: Type.Number(),
});

export const searchRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  /** What each search request began as it arrived (after the caller was known), for its handler. */
  const prepared = new WeakMap<object, PreparedSearch>();
  app.post(
    '/v1/search',
    {
      schema: {
        tags: ['question_and_answering'],
        summary: "Ranked passages of the caller's team's documents",
        security: bearerSecurity,
        body: SearchBody,
        response: withErrors({ 200: Type.Object({ results: Type.Array(SearchResult) }), 400: ErrorDetail }),
      },
      // After the authentication hook: the search's first statement is sent while the body is read
      // and checked, rather than after (on PostgreSQL, a round trip every search waits for).
      onRequest: async (request) => {
        const preparing = prepareSearchDocuments(deps, callerOf(request));
        if (preparing !== undefined) prepared.set(request, preparing);
      },
    },
    async (request, reply) => {
      const { query, top_k, mode } = request.body;
      // The response closing before it was written means the client left: stop the search.
      const aborted = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableEnded) aborted.abort();
      });
      const found = await searchDocuments(
        deps,
        callerOf(request),
        { query, topK: top_k, mode, ...requestedFilters(request.body) },
        aborted.signal,
        prepared.get(request),
      );
      // The schema's serializer escapes strings in JavaScript, a character at a time where a
      // passage has a newline or a quote (most do); V8's JSON.stringify writes the same text several
      // times faster. The view is built field by field as the schema has it (`searchDocuments`), so
      // there is nothing the schema's serializer would have dropped. Errors keep the schema's. A
      // serializer of one's own gets no content type from fastify: it is set here.
      reply.type('application/json; charset=utf-8').serializer(JSON.stringify);
      return found;
    },
  );
};
