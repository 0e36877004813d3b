import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_DOCUMENT, SHARED_DOCUMENT } from '../../../../test/helpers/mcp-documents.js';
import {
  bearer,
  joinedMember,
  registerUser,
  startTestApp,
  type TestApp,
  uploadDocuments,
} from '../../../../test/helpers/test-app.js';

const PUBLIC_URL = 'https://knowledge.example.test';

interface SearchResult {
  id: string;
  title: string;
  url: string;
  text: string;
}

const LINKED_DOCUMENT = {
  external_id: 'travel-policy',
  title: 'Travel policy',
  url: 'https://wiki.example.test/travel',
  text: 'Book trains rather than flights for journeys under six hours. The travel policy favours rail.',
};

/** The one text content a tool answers with. */
function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const { content } = result as CallToolResult;
  expect(content).toHaveLength(1);
  const [item] = content;
  if (item?.type !== 'text') throw new Error(`expected text content, got ${JSON.stringify(content)}`);
  return item.text;
}

describe('/mcp: the MCP server', () => {
  let testApp: TestApp;
  let baseUrl: string;
  let owner: Awaited<ReturnType<typeof registerUser>>;
  let teammate: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    testApp = await startTestApp({ worker: true, env: { PUBLIC_URL } });
    owner = await registerUser(testApp.app);
    teammate = await joinedMember(testApp.app, owner.token);
    const job = await uploadDocuments(testApp.app, owner.token, [
      SHARED_DOCUMENT,
      PRIVATE_DOCUMENT,
      LINKED_DOCUMENT,
    ]);
    expect(job.files.map((file) => file.status)).toEqual(['indexed', 'indexed', 'indexed']);
    await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(testApp.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await testApp.close();
  });

  /** An official SDK client connected over Streamable HTTP with `token`. */
  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'knowledge-answers-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: bearer(token) },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function search(client: Client, query: string): Promise<SearchResult[]> {
    const result = await client.callTool({ name: 'search', arguments: { query } });
    expect(result.isError).toBeFalsy();
    return (JSON.parse(textOf(result)) as { results: SearchResult[] }).results;
  }

  const idOf = async (externalId: string): Promise<number> => {
    const response = await testApp.app.inject({ url: '/v1/documents', headers: bearer(owner.token) });
    const documents = response.json().documents as { id: number; external_id: string }[];
    const document = documents.find((listed) => listed.external_id === externalId);
    if (document === undefined) throw new Error(`no document ${externalId}`);
    return document.id;
  };

  it('lists search, fetch and ask with their input schemas and descriptions', async () => {
    const client = await connect(owner.token);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(['ask', 'fetch', 'search']);
    const search = byName.get('search');
    expect(search?.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        query: { type: 'string' },
        top_k: { type: 'integer', minimum: 1, maximum: 100 },
        sources: {
          type: 'array',
          items: { enum: expect.arrayContaining(['googledrive', 'wiki', 'upload']) },
        },
      },
      required: ['query'],
    });
    expect(byName.get('fetch')?.inputSchema).toMatchObject({
      properties: { id: { type: 'string' } },
      required: ['id'],
    });
    expect(byName.get('ask')?.inputSchema).toMatchObject({
      properties: { question: { type: 'string' }, chat_id: { type: 'string' } },
      required: ['question'],
    });
    for (const tool of tools) expect(tool.description?.length).toBeGreaterThan(100);
  });

  it('finds an uploaded passage with search, and fetch opens its document by the result id', async () => {
    const client = await connect(owner.token);
    const results = await search(client, 'descale espresso machine');
    const espressoId = await idOf('espresso-care');
    expect(results[0]).toEqual({
      id: expect.stringMatching(new RegExp(`^${espressoId}:\\d+$`)),
      title: 'Espresso machine care',
      url: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/documents/${espressoId}\\?passage=\\d+$`)),
      text: expect.stringContaining('citric acid'),
    });
    const [first] = results;
    if (first === undefined) throw new Error('no result');

    const fetched = await client.callTool({ name: 'fetch', arguments: { id: first.id } });
    expect(fetched.isError).toBeFalsy();
    expect(JSON.parse(textOf(fetched))).toEqual({
      id: first.id,
      title: 'Espresso machine care',
      text: SHARED_DOCUMENT.text,
      url: first.url,
      metadata: expect.objectContaining({
        document_id: espressoId,
        external_id: 'espresso-care',
        source: 'upload',
      }),
    });
    // A bare document id works too, linking to the document's page.
    const byDocument = JSON.parse(
      textOf(await client.callTool({ name: 'fetch', arguments: { id: String(espressoId) } })),
    );
    expect(byDocument.url).toBe(`${PUBLIC_URL}/documents/${espressoId}`);

    // A source with its own link is cited by it.
    const [travel] = await search(client, 'trains or flights travel policy');
    expect(travel).toMatchObject({ title: 'Travel policy', url: 'https://wiki.example.test/travel' });
  });

  it('narrows search to the sources named, and refuses unknown arguments as invalid', async () => {
    const client = await connect(owner.token);
    const uploads = await client.callTool({
      name: 'search',
      arguments: { query: 'espresso', sources: ['upload'], top_k: 1 },
    });
    expect(JSON.parse(textOf(uploads)).results).toHaveLength(1);
    const wiki = await client.callTool({
      name: 'search',
      arguments: { query: 'espresso', sources: ['wiki'] },
    });
    expect(JSON.parse(textOf(wiki))).toEqual({ results: [] });
    const invalid = await client.callTool({ name: 'search', arguments: { query: 'espresso', top_k: 0 } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('top_k');
  });

  it('answers with ask, citing its sources, and keeps the chat in the history; chat_id continues it', async () => {
    const client = await connect(owner.token);
    const asked = await client.callTool({
      name: 'ask',
      arguments: { question: 'How often should I descale the espresso machine?' },
    });
    expect(asked.isError).toBeFalsy();
    const text = textOf(asked);
    expect(text).toMatch(/\[1\]/);
    const espressoId = await idOf('espresso-care');
    expect(text).toMatch(
      new RegExp(
        `Sources:\\n\\[1\\] Espresso machine care: ${PUBLIC_URL}/documents/${espressoId}\\?passage=\\d+`,
      ),
    );
    const chatId = /chat_id: (\S+)/.exec(text)?.[1];
    expect(chatId).toMatch(/^[0-9a-f-]{36}$/);

    const followUp = await client.callTool({
      name: 'ask',
      arguments: { question: 'What do I rinse afterwards?', chat_id: chatId },
    });
    expect(textOf(followUp)).toContain(`chat_id: ${chatId}`);

    const chats = await testApp.app.inject({ url: '/v1/chats/', headers: bearer(owner.token) });
    expect(chats.statusCode).toBe(200);
    expect(chats.json()).toContainEqual(expect.objectContaining({ chat_id: chatId }));
    const chat = await testApp.app.inject({ url: `/v1/chats/${chatId}`, headers: bearer(owner.token) });
    const messages = chat.json().messages as { role: string; content: string }[];
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[0]?.content).toBe('How often should I descale the espresso machine?');
  });

  it("shows a teammate none of the owner's private uploads through search, fetch or ask", async () => {
    // The owner finds it: the teammate's empty results below are not for want of indexing.
    const ownerClient = await connect(owner.token);
    expect((await search(ownerClient, 'zanzibar bonus pool')).map((result) => result.title)).toContain(
      'Salary review notes',
    );
    const privateId = await idOf('salary-review');

    const client = await connect(teammate);
    const found = await search(client, 'zanzibar bonus pool salary review');
    expect(found.map((result) => result.title)).not.toContain('Salary review notes');
    expect(JSON.stringify(found)).not.toContain('zanzibar');
    // Shared documents stay visible to the teammate.
    expect((await search(client, 'descale espresso')).map((result) => result.title)).toContain(
      'Espresso machine care',
    );

    const privateFetch = await client.callTool({ name: 'fetch', arguments: { id: String(privateId) } });
    const unknownFetch = await client.callTool({ name: 'fetch', arguments: { id: '987654321' } });
    expect(privateFetch.isError).toBe(true);
    expect(privateFetch).toEqual(unknownFetch);
    expect(textOf(privateFetch)).toBe('Document not found');

    const asked = textOf(
      await client.callTool({ name: 'ask', arguments: { question: 'How big is the zanzibar bonus pool?' } }),
    );
    expect(asked).not.toMatch(/zanzibar bonus pool for|forty thousand|Salary review notes/);
    expect(asked).not.toContain(`/documents/${privateId}`);
  });

  it('answers 401 with WWW-Authenticate naming the protected-resource metadata, which is public', async () => {
    const header = `Bearer resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource"`;
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'plain', version: '1' },
      },
    };
    for (const authorization of [undefined, 'Bearer not-a-token']) {
      const response = await fetch(`${baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization === undefined ? {} : { authorization }),
        },
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(header);
      // A browser-based client may read it from another origin.
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-expose-headers')).toContain('www-authenticate');
      expect(await response.json()).toEqual({ detail: 'Not authenticated' });
    }
    const preflight = await fetch(`${baseUrl}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://inspector.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
    const opened = await fetch(`${baseUrl}/mcp`);
    expect(opened.status).toBe(401);
    expect(opened.headers.get('www-authenticate')).toBe(header);

    const metadata = await fetch(`${baseUrl}/.well-known/oauth-protected-resource`);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({
      resource: `${PUBLIC_URL}/mcp`,
      authorization_servers: [PUBLIC_URL],
      bearer_methods_supported: ['header'],
    });

    // Signed in, GET and DELETE have nothing to do in a stateless server.
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${baseUrl}/mcp`, { method, headers: bearer(owner.token) });
      expect(response.status).toBe(405);
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
  });

  it('refuses a personal access token on the next call once it is revoked', async () => {
    const made = await testApp.app.inject({
      method: 'POST',
      url: '/v1/users/me/tokens',
      headers: bearer(owner.token),
      payload: { name: 'MCP client' },
    });
    expect(made.statusCode).toBe(201);
    const { id, token } = made.json() as { id: string; token: string };
    const client = await connect(token);
    expect((await search(client, 'espresso')).length).toBeGreaterThan(0);

    const revoked = await testApp.app.inject({
      method: 'DELETE',
      url: `/v1/users/me/tokens/${id}`,
      headers: bearer(owner.token),
    });
    expect(revoked.statusCode).toBe(204);
    await expect(client.callTool({ name: 'search', arguments: { query: 'espresso' } })).rejects.toMatchObject(
      {
        code: 401,
      },
    );
  });

  it('refuses a removed member on the next call', async () => {
    const member = await joinedMember(testApp.app, owner.token);
    const client = await connect(member);
    expect((await search(client, 'espresso')).length).toBeGreaterThan(0);
    const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(member) });
    const removed = await testApp.app.inject({
      method: 'DELETE',
      url: `/v1/teams/members/${me.json().id}`,
      headers: bearer(owner.token),
    });
    expect(removed.statusCode).toBe(204);
    await expect(client.callTool({ name: 'search', arguments: { query: 'espresso' } })).rejects.toMatchObject(
      {
        code: 401,
      },
    );
  });
});
