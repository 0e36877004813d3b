// The MCP server's `search` tool as a stateless Streamable HTTP client calls it: one plain JSON-RPC
// POST to /mcp per call, with no session (an SDK client's `initialize` is once per session).
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

/** A `search` tool result as the tool's JSON text holds it. */
export interface McpSearchResult {
  readonly id: string;
  readonly title: string;
  readonly url: string;
  readonly text: string;
}

/** The protocol version the SDK in node_modules speaks, sent as `mcp-protocol-version`. */
export const MCP_PROTOCOL_VERSION = LATEST_PROTOCOL_VERSION;

export class McpCallFailed extends Error {}

let nextRequestId = 1;

function mcpHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return {
    ...headers,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MCP_PROTOCOL_VERSION,
  };
}

/** One JSON-RPC request to /mcp; `ms` runs from sending it to having read the whole answer. */
async function postJsonRpc(
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
  method: string,
  params: Record<string, unknown>,
  timeoutMs: number,
): Promise<{ result: Record<string, unknown>; ms: number; bytes: number }> {
  const id = nextRequestId++;
  const started = performance.now();
  const response = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: mcpHeaders(headers),
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) {
    throw new McpCallFailed(`POST /mcp ${method} answered ${response.status}: ${text.slice(0, 300)}`);
  }
  const message = JSON.parse(text) as { id?: unknown; result?: Record<string, unknown>; error?: unknown };
  if (message.error !== undefined || message.result === undefined || message.id !== id) {
    throw new McpCallFailed(`POST /mcp ${method}: not a result for request ${id}: ${text.slice(0, 300)}`);
  }
  return { result: message.result, ms, bytes: Buffer.byteLength(text) };
}

/** One `tools/call` of `search`; throws when the call or the tool fails. */
export async function mcpSearchOnce(
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
  args: { readonly query: string; readonly top_k?: number },
  timeoutMs = 30_000,
): Promise<{ results: McpSearchResult[]; ms: number; bytes: number }> {
  const { result, ms, bytes } = await postJsonRpc(
    baseUrl,
    headers,
    'tools/call',
    { name: 'search', arguments: args },
    timeoutMs,
  );
  const content = result.content as { type?: string; text?: string }[] | undefined;
  const text = content?.[0]?.type === 'text' ? content[0].text : undefined;
  if (result.isError === true || text === undefined) {
    throw new McpCallFailed(`the search tool failed: ${JSON.stringify(result).slice(0, 300)}`);
  }
  const parsed = JSON.parse(text) as { results?: McpSearchResult[] };
  return { results: parsed.results ?? [], ms, bytes };
}

/** One `initialize`, as an SDK client opens a session: what it costs once per session. */
export async function mcpInitializeOnce(
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs = 30_000,
): Promise<number> {
  const { result, ms } = await postJsonRpc(
    baseUrl,
    headers,
    'initialize',
    {
      protocolVersion: MCP_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'bench-mcp', version: '1' },
    },
    timeoutMs,
  );
  if (typeof result.protocolVersion !== 'string') {
    throw new McpCallFailed(
      `initialize answered no protocolVersion: ${JSON.stringify(result).slice(0, 300)}`,
    );
  }
  return ms;
}
