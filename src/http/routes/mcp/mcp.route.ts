import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../../caller.js';
import { MCP_SCOPE, mcpResource } from '../../../services/oauth-policy.js';
import type { AppOptions } from '../../app-options.js';
import { bearerTokenOf } from '../../auth.js';
import { describeForLog } from '../../errors.js';
import { mcpServerFor } from './mcp-tools.js';

const MCP_DESCRIPTION = [
  'The Model Context Protocol server (Streamable HTTP, stateless): tools `search`, `fetch` and `ask` over',
  'the documents the caller may open. Send `Authorization: Bearer <token>` (a session or personal access',
  'token, or an OAuth access token from /oauth/token); without a valid one the answer is 401 with `WWW-Authenticate` naming',
  '/.well-known/oauth-protected-resource.',
].join(' ');

/** A JSON-RPC error answered outside the MCP server (no request id is known). */
function jsonRpcError(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * `/mcp` for MCP clients, and the protected-resource metadata (RFC 9728) its 401 points them to.
 * Stateless: each POST gets its own server and transport, so any API process answers any request.
 */
export const mcpRoutes: FastifyPluginAsync<AppOptions> = async (app, { deps }) => {
  const { publicUrl } = deps.config;
  const resourceMetadataUrl = `${publicUrl}/.well-known/oauth-protected-resource`;

  const protectedResource = {
    resource: mcpResource(publicUrl),
    authorization_servers: [publicUrl],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Knowledge answers',
  };
  // RFC 9728 3.1: at the root, and with the resource's path appended (where MCP clients look first).
  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
    app.get(
      path,
      {
        config: { public: true },
        schema: { tags: ['mcp'], summary: 'OAuth protected-resource metadata of /mcp (RFC 9728)' },
      },
      async (_request, reply) => {
        reply.header('access-control-allow-origin', '*');
        return protectedResource;
      },
    );
  }

  /**
   * The caller of an MCP request, by its bearer token only (MCP clients send no cookies); undefined
   * after answering 401. Looked up on every request, so a revoked token or a removed member is
   * refused on the next call.
   */
  async function mcpCaller(request: FastifyRequest, reply: FastifyReply): Promise<Caller | undefined> {
    allowAnyOrigin(reply);
    const token = bearerTokenOf(request);
    const caller = token === undefined ? undefined : await deps.callers.find(token);
    if (caller === undefined) {
      await reply
        .code(401)
        .header('www-authenticate', `Bearer resource_metadata="${resourceMetadataUrl}"`)
        .send({ detail: 'Not authenticated' });
    }
    return caller;
  }

  // Browser-based MCP clients (an inspector, a web assistant) call from their own origin. /mcp
  // reads no cookie, only the bearer header, so any origin may: it proves nothing a token does not.
  const allowAnyOrigin = (reply: FastifyReply) =>
    reply.headers({
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'www-authenticate, mcp-session-id',
    });
  app.options('/mcp', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    allowAnyOrigin(reply)
      .headers({
        'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS',
        'access-control-allow-headers':
          'authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id',
        'access-control-max-age': '86400',
      })
      .code(204)
      .send(),
  );

  // The route checks its own bearer token (the session hook would also take a cookie).
  const routeOptions = {
    config: { public: true },
    schema: { tags: ['mcp'], summary: 'MCP server (Streamable HTTP)', description: MCP_DESCRIPTION },
  };

  app.post('/mcp', routeOptions, async (request, reply) => {
    const caller = await mcpCaller(request, reply);
    if (caller === undefined) return reply;
    const server = mcpServerFor(deps, caller, request.log);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      // Plain JSON answers: no notifications are streamed, and proxies pass JSON as it is.
      enableJsonResponse: true,
    });
    // The SDK writes the response itself (with the headers set so far).
    reply.hijack();
    const response = reply.raw;
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) response.setHeader(name, value);
    }
    // Closing the server aborts its tools' signals: a client that left stops the search and the LLM.
    response.once('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, response, request.body);
    } catch (error) {
      request.log.error({ failure: describeForLog(error) }, 'MCP request failed');
      if (!response.headersSent) {
        response
          .writeHead(500, { 'content-type': 'application/json' })
          .end(jsonRpcError(-32603, 'Internal server error'));
      }
    }
  });

  // Stateless: no stream to open (GET) and no session to end (DELETE).
  const methodNotAllowed = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = await mcpCaller(request, reply);
    if (caller === undefined) return reply;
    return reply
      .code(405)
      .header('allow', 'POST')
      .type('application/json')
      .send(jsonRpcError(-32000, 'Method not allowed.'));
  };
  app.get('/mcp', routeOptions, methodNotAllowed);
  app.delete('/mcp', routeOptions, methodNotAllowed);
};
