// Documents named by a title taken from their text keep the name of the file they came as: the
// listing, a document's page, search results and an answer's sources carry `file_name` beside it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  registerUser,
  startTestApp,
  type TestApp,
  uploadDocuments,
  uploadFiles,
} from '../../../../test/helpers/test-app.js';

interface ListedDocument {
  id: number;
  external_id: string;
  title: string;
  file_name: string | null;
}

interface CitedSource {
  file_name: string;
  file_path: string;
  title: string;
  document_id: number;
}

const MONDAY_MENU = '# Café menu\n\nOn Monday the café serves lentil soup with rye bread.';
const FRIDAY_MENU = '# Café menu\n\nOn Friday the café serves grilled halloumi with couscous.';
const PINO_API =
  '# API\n\nThe pino logger writes every log line as newline-delimited JSON to standard output.';

describe('file names beside titles', () => {
  let testApp: TestApp;
  let token: string;
  let listed: Map<string, ListedDocument>;

  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    ({ token } = await registerUser(testApp.app));
    const job = await uploadFiles(testApp.app, token, [
      { fileName: 'cafe-menu-monday.md', type: 'text/markdown', content: MONDAY_MENU },
      { fileName: 'cafe-menu-friday.md', type: 'text/markdown', content: FRIDAY_MENU },
      { fileName: 'pino-api.md', type: 'text/markdown', content: PINO_API },
    ]);
    expect(job.files.map((file) => file.status)).toEqual(['indexed', 'indexed', 'indexed']);
    const json = await uploadDocuments(testApp.app, token, [
      { external_id: 'canteen-hours', title: '', text: '# Canteen hours\n\nThe canteen opens at noon.' },
    ]);
    expect(json.files[0]?.status).toBe('indexed');

    const listing = await testApp.app.inject({ url: '/v1/documents', headers: bearer(token) });
    expect(listing.statusCode).toBe(200);
    const { documents } = listing.json() as { documents: ListedDocument[] };
    listed = new Map(documents.map((document) => [document.external_id, document]));
  });
  afterAll(async () => {
    await testApp?.close();
  });

  it('lists two files headed alike under the same title, told apart by their file names', () => {
    expect(listed.get('cafe-menu-monday.md')).toMatchObject({
      title: 'Café menu',
      file_name: 'cafe-menu-monday.md',
    });
    expect(listed.get('cafe-menu-friday.md')).toMatchObject({
      title: 'Café menu',
      file_name: 'cafe-menu-friday.md',
    });
    expect(listed.get('pino-api.md')).toMatchObject({ title: 'API', file_name: 'pino-api.md' });
  });

  it('has no file name for a document posted as JSON, only its title', () => {
    expect(listed.get('canteen-hours')).toMatchObject({ title: 'Canteen hours', file_name: null });
  });

  it("shows the file name on the document's page", async () => {
    const id = listed.get('cafe-menu-friday.md')?.id;
    const response = await testApp.app.inject({ url: `/v1/documents/${id}`, headers: bearer(token) });
    expect(response.statusCode).toBe(200);
    expect(response.json().document).toMatchObject({
      id,
      title: 'Café menu',
      file_name: 'cafe-menu-friday.md',
    });
  });

  it('gives each search result its file name beside its title', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: bearer(token),
      payload: { query: 'café menu' },
    });
    expect(response.statusCode).toBe(200);
    const results = (response.json() as { results: { title: string; file_name: string | null }[] }).results;
    expect(results.map((result) => [result.title, result.file_name]).sort()).toEqual([
      ['Café menu', 'cafe-menu-friday.md'],
      ['Café menu', 'cafe-menu-monday.md'],
    ]);
  });

  it('cites a file by its file name, with the title it gives itself beside it', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/chat/',
      headers: bearer(token),
      payload: { content: 'How does the pino logger write log lines?' },
    });
    expect(response.statusCode).toBe(200);
    const lines = response.body
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { sources?: CitedSource[] });
    const sources = lines.find((line) => line.sources !== undefined)?.sources ?? [];
    expect(sources).toEqual([
      expect.objectContaining({
        file_name: 'pino-api.md',
        title: 'API',
        file_path: 'upload/pino-api.md',
        document_id: listed.get('pino-api.md')?.id,
      }),
    ]);
  });
});
