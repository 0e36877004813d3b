import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { FastifyBaseLogger } from 'fastify';
import * as z from 'zod/v4';
import type { Caller } from '../../../caller.js';
import { ServiceError } from '../../../errors.js';
import type { ServiceDependencies } from '../../../services/dependencies.js';
import { mcpAsk } from '../../../services/mcp-ask.js';
import { mcpFetch } from '../../../services/mcp-fetch.js';
import { mcpSearch } from '../../../services/mcp-search.js';
import { MAX_QUESTION_CHARS } from '../chat/chat.schema.js';
import { SEARCH_MAX_TOP_K } from '../search/search.route.js';
import { canonicalSource, SOURCE_ALIASES } from '../source-filter.js';

const SOURCE_NAMES = Object.keys(SOURCE_ALIASES) as [string, ...string[]];

const SEARCH_DESCRIPTION = [
  "Searches the team's knowledge base (uploaded files, Google Drive, the wiki) for passages relevant to a query,",
  'returning only documents the signed-in person may open. Results come best first as JSON',
  '{"results": [{"id", "title", "url", "text"}]}: `text` is the matching passage, `url` a link to cite.',
  'Use specific words and names from the question; "quoted phrases" must appear as written.',
  "Pass a result's `id` to `fetch` to read the whole document.",
].join(' ');

const FETCH_DESCRIPTION = [
  'Reads one whole document of the knowledge base by the `id` a `search` result gave (or a document id).',
  'Returns JSON {"id", "title", "text", "url", "metadata"}: the full text, a link to cite, and details such',
  'as its source and dates. Use it when a passage from `search` is not enough to answer.',
].join(' ');

const ASK_DESCRIPTION = [
  "Answers a question from the team's knowledge base, as the team's knowledge assistant does: the answer",
  'cites its sources as [n], followed by the numbered list of sources with links. The question and answer',
  "are saved to the person's chat history. For a follow-up, pass the `chat_id` the previous answer ended",
  'with, so the earlier questions count as context. Prefer `search` and `fetch` to read the documents',
  'yourself; use `ask` for a ready, cited answer.',
].join(' ');

/** A tool's result as one text a model reads. */
function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/**
 * Runs a tool: a ServiceError (written for clients, as the HTTP API's `detail`) is the tool's
 * error in its words; anything else is logged and reported without its internals.
 */
async function runTool(
  log: FastifyBaseLogger,
  tool: string,
  run: () => Promise<string>,
): Promise<CallToolResult> {
  try {
    return textResult(await run());
  } catch (error) {
    if (error instanceof ServiceError) {
      return { ...textResult(error.message), isError: true };
    }
    log.error({ tool, failure: error instanceof Error ? error.message : String(error) }, 'MCP tool failed');
    return { ...textResult(`The ${tool} tool failed; try again in a moment.`), isError: true };
  }
}

/**
 * The SDK's JSON-schema validator (for output schemas, which these tools have none of), made once:
 * by default every server builds its own Ajv, the largest part of a stateless call's overhead.
 */
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** The tools' input schemas: immutable, so built once per configuration, not once per request. */
function inputSchemasFor(maxQuestionChars: number) {
  return {
    search: {
      query: z.string().min(1).max(4000).describe('What to look for: keywords, names or a question'),
      top_k: z
        .number()
        .int()
        .min(1)
        .max(SEARCH_MAX_TOP_K)
        .optional()
        .describe('How many passages to return (default 10)'),
      sources: z
        .array(z.enum(SOURCE_NAMES))
        .max(10)
        .optional()
        .describe('Only these kinds of source: googledrive, wiki, upload (all when absent)'),
    },
    fetch: {
      id: z.string().min(1).max(64).describe('The `id` of a `search` result, or a document id'),
    },
    ask: {
      question: z
        .string()
        .min(1)
        .max(Math.min(MAX_QUESTION_CHARS, maxQuestionChars))
        .describe('The question, in full sentences'),
      chat_id: z
        .string()
        .min(1)
        .max(256)
        .optional()
        .describe('The chat to continue (from a previous answer); a new chat when absent'),
    },
  };
}

const inputSchemasByConfig = new WeakMap<ServiceDependencies['config'], ReturnType<typeof inputSchemasFor>>();

function inputSchemasOf(config: ServiceDependencies['config']): ReturnType<typeof inputSchemasFor> {
  let schemas = inputSchemasByConfig.get(config);
  if (schemas === undefined) {
    schemas = inputSchemasFor(config.chats.maxMessageChars);
    inputSchemasByConfig.set(config, schemas);
  }
  return schemas;
}

/** The MCP server of one request: its tools act as `caller` and answer only from what they may open. */
export function mcpServerFor(deps: ServiceDependencies, caller: Caller, log: FastifyBaseLogger): McpServer {
  const server = new McpServer(
    { name: 'knowledge-answers', version: '1.0.0' },
    { jsonSchemaValidator: JSON_SCHEMA_VALIDATOR },
  );
  const inputSchemas = inputSchemasOf(deps.config);

  server.registerTool(
    'search',
    {
      title: 'Search the knowledge base',
      description: SEARCH_DESCRIPTION,
      inputSchema: inputSchemas.search,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, top_k, sources }, extra) =>
      runTool(log, 'search', async () => {
        const found = await mcpSearch(
          deps,
          caller,
          {
            query,
            topK: top_k ?? 10,
            sources: sources === undefined ? undefined : [...new Set(sources.map(canonicalSource))],
          },
          extra.signal,
        );
        return JSON.stringify(found);
      }),
  );

  server.registerTool(
    'fetch',
    {
      title: 'Read a document',
      description: FETCH_DESCRIPTION,
      inputSchema: inputSchemas.fetch,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ id }) => runTool(log, 'fetch', async () => JSON.stringify(await mcpFetch(deps, caller, id))),
  );

  server.registerTool(
    'ask',
    {
      title: 'Ask the knowledge assistant',
      description: ASK_DESCRIPTION,
      inputSchema: inputSchemas.ask,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ question, chat_id }, extra) =>
      runTool(log, 'ask', async () => {
        const answer = await mcpAsk(deps, caller, { question, chatId: chat_id }, extra.signal);
        return answer.text;
      }),
  );

  return server;
}
