import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { searchDocuments } from '../../../services/search-documents.js';
import type { AppOptions } from '../../app.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, SAFE_INTEGER_RANGE, withErrors } from '../../schema-types.js';

/** Most results one search returns. */
export const SEARCH_MAX_TOP_K = 100;

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
  connector_ids: Type.Optional(
    Type.Array(Type.Integer(SAFE_INTEGER_RANGE), { maxItems: 100, description: 'only these connectors' }),
  ),
  sources: Type.Optional(
    Type.Array(Type.Union([Type.Literal('googledrive'), Type.Literal('wiki'), Type.Literal('upload')]), {
      maxItems: 3,
      description: 'only these kinds of source',
    }),
  ),
});

const SearchResult = Type.Object({
  document_id: Type.Integer(),
  external_id: Type.String(),
  title: Type.String(),
  url: Type.Union([Type.String(), Type.Null()]),
  source: Type.String(),
  chunk_id: Type.Integer(),
  text: Type.String(),
  score: Type.Number(),
});

export const searchRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
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
    },
    async (request, reply) => {
      const { query, top_k, mode, connector_ids, sources } = request.body;
      // The response closing before it was written means the client left: stop the search.
      const aborted = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableEnded) aborted.abort();
      });
      return searchDocuments(
        deps,
        callerOf(request),
        { query, topK: top_k, mode, connectorIds: connector_ids, sources },
        aborted.signal,
      );
    },
  );
};
