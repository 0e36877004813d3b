// POST /v1/documents as a real collection is posted: JSON batches with records missing a title or
// a text, and files sent as curl sends them (`application/octet-stream`, or no type at all).
import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePdf } from '../../../../test/fixtures/documents.js';
import { multipart } from '../../../../test/helpers/multipart-body.js';
import {
  bearer,
  registerUser,
  startTestApp,
  storedChunkTexts,
  type TestApp,
  waitForJob,
} from '../../../../test/helpers/test-app.js';

type Registered = Awaited<ReturnType<typeof registerUser>>;

interface ListedDocument {
  external_id: string;
  title: string;
  status: string;
  reason: string | null;
  chunks: number;
  url: string | null;
  mime_type: string | null;
}

describe('POST /v1/documents: titles, empty texts and untyped files', () => {
  let testApp: TestApp;
  let user: Registered;

  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    user = await registerUser(testApp.app);
  });
  afterAll(async () => {
    await testApp.close();
  });

  async function postJson(payload: unknown) {
    return testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: bearer(user.token),
      payload: payload as object,
    });
  }

  async function uploadJson(documents: unknown[]) {
    const response = await postJson({ documents });
    expect(response.statusCode, response.body).toBe(202);
    return waitForJob(testApp.app, user.token, `/v1/documents/jobs/${response.json().result_id}`);
  }

  async function uploadFiles(parts: Parameters<typeof multipart>[0]) {
    const { body, contentType } = multipart(parts);
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: { ...bearer(user.token), 'content-type': contentType },
      payload: body,
    });
    expect(response.statusCode, response.body).toBe(202);
    return waitForJob(testApp.app, user.token, `/v1/documents/jobs/${response.json().result_id}`);
  }

  async function documents(): Promise<Record<string, ListedDocument>> {
    const response = await testApp.app.inject({
      url: '/v1/documents?limit=500',
      headers: bearer(user.token),
    });
    expect(response.statusCode).toBe(200);
    const listed = response.json().documents as ListedDocument[];
    return Object.fromEntries(listed.map((document) => [document.external_id, document]));
  }

  const chunkTexts = (externalId: string) => storedChunkTexts(testApp, user.teamId, externalId);

  it('indexes a batch whose records lack titles or texts: the rest indexed, blank texts skipped as empty', async () => {
    const job = await uploadJson([
      // Cranfield-like: no title, a hard-wrapped first paragraph.
      {
        external_id: 'cran-1',
        title: '',
        text: 'experimental investigation of the aerodynamics of a\nwing in a slipstream .\n\nan experimental study of a wing in a propeller slipstream was made.',
      },
      // No title field: the text's own level-1 heading wins over its first line.
      { external_id: 'cran-2', text: 'Preface line.\n\n# Boundary Layers\n\nThe layer thickens downstream.' },
      // The client's title wins over the text's heading.
      {
        external_id: 'cran-3',
        title: 'Given Title',
        text: '# Heading In Text\n\nShock waves form near Mach one.',
      },
      // A null title and a first line of only markup: the first line that says something.
      { external_id: 'cran-4', title: null, text: '<a id="x"></a>\n\n## **Heat** transfer\n\nHeat moves.' },
      { external_id: 'cran-5', title: 'Empty record', text: '' },
      { external_id: 'cran-6', title: '   ', text: '  \n\t ' },
    ]);
    expect(job.status).toBe('completed');
    const byId = Object.fromEntries(job.files.map((file) => [file.id as string, file]));
    for (const id of ['cran-1', 'cran-2', 'cran-3', 'cran-4'])
      expect(byId[id], id).toMatchObject({ status: 'indexed' });
    for (const id of ['cran-5', 'cran-6']) {
      expect(byId[id], id).toMatchObject({ status: 'skipped', reason: 'empty', chunks: 0 });
    }
    expect(byId['cran-1']?.name).toBe(
      'experimental investigation of the aerodynamics of a wing in a slipstream .',
    );
    expect(byId['cran-2']?.name).toBe('Boundary Layers');

    const listed = await documents();
    expect(listed['cran-1']?.title).toBe(
      'experimental investigation of the aerodynamics of a wing in a slipstream .',
    );
    expect(listed['cran-2']?.title).toBe('Boundary Layers');
    expect(listed['cran-3']?.title).toBe('Given Title');
    expect(listed['cran-4']?.title).toBe('Heat transfer');
    expect(listed['cran-5']).toMatchObject({
      title: 'Empty record',
      status: 'skipped',
      reason: 'empty',
      chunks: 0,
    });
    // Nothing to name it by but its id.
    expect(listed['cran-6']).toMatchObject({ title: 'cran-6', status: 'skipped', reason: 'empty' });
    // The markup of the text is not in what is searched.
    expect((await chunkTexts('cran-4')).join(' ')).not.toMatch(/<a|\*\*/);
  });

  it('drops the chunks of a stored document posted again with a blank text', async () => {
    await uploadJson([
      { external_id: 'emptied', title: 'Emptied', text: 'Turbulence appears at high Reynolds numbers.' },
    ]);
    expect((await chunkTexts('emptied')).join(' ')).toContain('Turbulence');
    const job = await uploadJson([{ external_id: 'emptied', title: 'Emptied', text: ' ' }]);
    expect(job.files[0]).toMatchObject({ status: 'skipped', reason: 'empty', chunks: 0 });
    expect(await chunkTexts('emptied')).toEqual([]);
    expect((await documents()).emptied).toMatchObject({ status: 'skipped', reason: 'empty', chunks: 0 });
  });

  it('still answers structural errors with 422 and queues nothing', async () => {
    const cases: [unknown, (string | number)[]][] = [
      [{ documents: [{ external_id: 'a', title: 5, text: 'x' }] }, ['body', 'documents', 0, 'title']],
      [{ documents: [{ external_id: 'a', title: 'A', text: null }] }, ['body', 'documents', 0, 'text']],
      [{ documents: [{ external_id: 'a', title: 'A' }] }, ['body', 'documents', 0, 'text']],
      [{ documents: [{ external_id: '', text: 'x' }] }, ['body', 'documents', 0, 'external_id']],
      [{ documents: { external_id: 'a', text: 'x' } }, ['body', 'documents']],
      [{ records: [] }, ['body', 'documents']],
    ];
    const before = Object.keys(await documents()).length;
    for (const [payload, loc] of cases) {
      const response = await postJson(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      expect(response.json().detail.map((issue: { loc: unknown }) => issue.loc)).toContainEqual(loc);
    }
    const notJson = await testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: { ...bearer(user.token), 'content-type': 'application/json' },
      payload: '{"documents": [',
    });
    expect(notJson.statusCode).toBe(422);
    expect(Object.keys(await documents()).length).toBe(before);
  });

  it('stores files sent as application/octet-stream (or untyped) under the type they are, titled by themselves', async () => {
    const pdf = await generatePdf({ title: 'Field Report', pages: [['Gliders climb in thermals.']] });
    const docx = new Uint8Array(
      await Packer.toBuffer(
        new Document({
          title: 'Wind Tunnel Handbook',
          sections: [
            {
              children: [
                new Paragraph({ text: 'Chapter One', heading: HeadingLevel.HEADING_1 }),
                new Paragraph('Calibrate the balance daily.'),
              ],
            },
          ],
        }),
      ),
    );
    const octet = 'application/octet-stream';
    const job = await uploadFiles([
      {
        name: 'file',
        fileName: 'guide.md',
        type: octet,
        content: '# Glider Guide\n\nKeep the <b>nose</b> down.<br>\n',
      },
      { name: 'file', fileName: 'scan-0042.pdf', type: octet, content: pdf },
      { name: 'file', fileName: 'handbook.docx', type: octet, content: docx },
      {
        name: 'file',
        fileName: 'page.html',
        content: '<html><body><h1>Landing Page</h1><p>Flaps out.</p></body></html>',
      },
      { name: 'file', fileName: 'NOTES', type: octet, content: 'Untyped notes without an extension.\n' },
      { name: 'file', fileName: 'blank.txt', type: octet, content: '  \n' },
    ]);
    const byId = Object.fromEntries(job.files.map((file) => [file.id as string, file]));
    for (const id of ['guide.md', 'scan-0042.pdf', 'handbook.docx', 'page.html', 'NOTES']) {
      expect(byId[id], id).toMatchObject({ status: 'indexed' });
    }
    expect(byId['blank.txt']).toMatchObject({ status: 'skipped', reason: 'empty' });

    const listed = await documents();
    expect(listed['guide.md']).toMatchObject({ title: 'Glider Guide', mime_type: 'text/markdown' });
    expect(listed['scan-0042.pdf']).toMatchObject({ title: 'Field Report', mime_type: 'application/pdf' });
    expect(listed['handbook.docx']).toMatchObject({
      title: 'Wind Tunnel Handbook',
      mime_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    });
    expect(listed['page.html']).toMatchObject({ title: 'Landing Page', mime_type: 'text/html' });
    // Plain text names itself nowhere: the file name; its content said it is text.
    expect(listed.NOTES).toMatchObject({ title: 'NOTES', mime_type: 'text/plain' });
    expect(Object.values(listed).map((document) => document.mime_type)).not.toContain(octet);
    expect((await chunkTexts('guide.md')).join(' ')).toBe('Keep the nose down.');
  });

  it('still refuses with 415 an untyped file whose extension no parser reads', async () => {
    const { body, contentType } = multipart([
      { name: 'file', fileName: 'setup.exe', type: 'application/octet-stream', content: 'MZ\u0000\u0001' },
    ]);
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: { ...bearer(user.token), 'content-type': contentType },
      payload: body,
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().detail).toMatch(
      /^setup\.exe \(application\/octet-stream\) is not a document type/,
    );
  });
});
