import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixtureFiles } from '../fixtures/documents.js';
import { DOCX, docxOfParagraphs, proseParagraph } from '../fixtures/generated-docx.js';
import {
  memoryOf,
  startUploadService,
  type UploadService,
  uploadFilesOverHttp,
} from '../helpers/upload-over-http.js';

const MIB = 1024 * 1024;

// Beside archive-bomb.test.ts: the bombs must fail, and a document as large but honest must still
// be indexed whole, by the same caps. Apart, the two run side by side.
describe('a large honest DOCX uploaded to the service', () => {
  let running: UploadService;

  beforeAll(async () => {
    running = await startUploadService('large-docx');
  });
  afterAll(async () => {
    await running?.stop();
  });

  it('indexes 5 MB of DOCX (19 MiB of XML) whole, then goes on indexing', async () => {
    const { service, token } = running;
    const pid = service.child.pid;
    if (pid === undefined) throw new Error('the service has no pid');
    const book = docxOfParagraphs(19, proseParagraph());
    const idle = memoryOf(pid, 'VmRSS');
    // The peak restarts from here (Linux: writing 5 to clear_refs resets VmHWM).
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const large = await uploadFilesOverHttp(service, token, [
      { name: 'book.docx', type: DOCX, content: book },
    ]);
    const peak = memoryOf(pid, 'VmHWM');
    expect(large.files[0], JSON.stringify(large.files[0])).toMatchObject({ status: 'indexed' });
    console.info(
      `book.docx (${book.length} bytes) indexed; the process grew by ${Math.round((peak - idle) / MIB)} MiB`,
    );

    const handbook = (await loadFixtureFiles()).find((file) => file.mimeType === DOCX);
    if (handbook === undefined) throw new Error('no DOCX fixture');
    const again = await uploadFilesOverHttp(service, token, [
      { name: 'handbook.docx', type: DOCX, content: handbook.bytes },
    ]);
    expect(again.files[0]).toMatchObject({ status: 'indexed' });
  }, 900_000);
});
