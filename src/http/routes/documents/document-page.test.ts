import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  registerUser,
  startTestApp,
  type TestApp,
  uploadDocuments,
} from '../../../../test/helpers/test-app.js';

type Registered = Awaited<ReturnType<typeof registerUser>>;

interface DocumentPage {
  document: Record<string, unknown> & { id: number; chunks: number };
  chunks: { chunk_id: number; position: number; text: string; heading_path: string[] }[];
}

/** Long enough for several chunks (~256 words each), under headings. */
const MANUAL = [
  '# Boiler manual',
  '## Start-up',
  Array.from({ length: 300 }, (_, index) => `Open valve ${index} slowly.`).join(' '),
  '## Shut-down',
  Array.from({ length: 300 }, (_, index) => `Close gauge ${index} firmly.`).join(' '),
].join('\n\n');

describe('GET /v1/documents/{document_id}', () => {
  let testApp: TestApp;
  let user: Registered;
  let other: Registered;
  let documentId: number;

  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    [user, other] = [await registerUser(testApp.app), await registerUser(testApp.app)];
    await uploadDocuments(testApp.app, user.token, [
      { external_id: 'manual', title: 'Boiler manual', text: MANUAL },
    ]);
    const listed = await testApp.app.inject({ url: '/v1/documents', headers: bearer(user.token) });
    documentId = (listed.json() as { documents: { id: number }[] }).documents[0]?.id ?? 0;
  });
  afterAll(() => testApp.close());

  const page = (id: string | number, as: Registered = user) =>
    testApp.app.inject({ url: `/v1/documents/${id}`, headers: bearer(as.token) });

  it('answers the document as the listing shows it and its chunks in order, with heading paths', async () => {
    const response = await page(documentId);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as DocumentPage;
    const listed = await testApp.app.inject({ url: '/v1/documents', headers: bearer(user.token) });
    expect(body.document).toEqual((listed.json() as { documents: unknown[] }).documents[0]);
    expect(body.chunks.length).toBeGreaterThan(2);
    expect(body.chunks).toHaveLength(body.document.chunks);
    expect(body.chunks.map((chunk) => chunk.position)).toEqual(body.chunks.map((_, index) => index));
    expect(Object.keys(body.chunks[0] ?? {}).sort()).toEqual([
      'chunk_id',
      'heading_path',
      'position',
      'text',
    ]);
    expect(body.chunks[0]?.heading_path).toEqual(['Boiler manual', 'Start-up']);
    expect(body.chunks.at(-1)?.heading_path).toEqual(['Boiler manual', 'Shut-down']);
    expect(body.chunks.at(-1)?.text).toContain('Close gauge 299 firmly.');
  });

  it('names chunks by the ids search results give, so a cited passage can be found on the page', async () => {
    const search = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: bearer(user.token),
      payload: { query: 'close gauge firmly', top_k: 1 },
    });
    const [hit] = (search.json() as { results: { chunk_id: number; document_id: number }[] }).results;
    const body = (await page(documentId)).json() as DocumentPage;
    expect(hit?.document_id).toBe(documentId);
    expect(body.chunks.map((chunk) => chunk.chunk_id)).toContain(hit?.chunk_id);
  });

  it("is a 404 for another team's document, an unknown id and an id that is no id", async () => {
    for (const [id, as] of [
      [documentId, other],
      [documentId + 1000, user],
      ['abc', user],
      ['0', user],
      ['99999999999', user],
    ] as const) {
      const response = await page(id, as);
      expect(response.statusCode, String(id)).toBe(404);
      expect(response.json()).toEqual({ detail: 'Document not found' });
    }
  });

  it('needs a caller and is in the OpenAPI document', async () => {
    expect((await testApp.app.inject({ url: `/v1/documents/${documentId}` })).statusCode).toBe(401);
    const spec = (await testApp.app.inject({ url: '/openapi.json' })).json();
    const operation = spec.paths['/v1/documents/{document_id}'].get;
    expect(operation.tags).toEqual(['documents']);
    expect(operation.description).toContain('2,000');
  });
});
