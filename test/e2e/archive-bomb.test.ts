import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDocxBomb, generatePdfBomb, loadFixtureFiles } from '../fixtures/documents.js';
import { DOCX, docxOfParagraphs, shortParagraph } from '../fixtures/generated-docx.js';
import type { ServiceProcess } from '../helpers/service-process.js';
import {
  memoryOf,
  startUploadService,
  type UploadService,
  uploadFilesOverHttp,
} from '../helpers/upload-over-http.js';

const MIB = 1024 * 1024;
/** The bound: a bomb may grow the whole process (every thread, on and off heap) by less. */
const MAX_GROWTH_BYTES = 512 * MIB;

describe('archive and stream bombs uploaded to the service', () => {
  let running: UploadService;
  let service: ServiceProcess;
  let token: string;

  beforeAll(async () => {
    running = await startUploadService('bomb');
    ({ service, token } = running);
  });
  afterAll(async () => {
    await running?.stop();
  });

  it('fails each bomb with its reason while the process grows by less than 512 MiB', async () => {
    const pid = service.child.pid;
    if (pid === undefined) throw new Error('the service has no pid');
    const handbook = (await loadFixtureFiles()).find((file) => file.mimeType === DOCX);
    if (handbook === undefined) throw new Error('no DOCX fixture');
    // A first upload starts the parse thread and warms the database: idle means ready to parse.
    const warmUp = await uploadFilesOverHttp(service, token, [
      { name: 'handbook.docx', type: DOCX, content: handbook.bytes },
    ]);
    expect(warmUp.files[0]).toMatchObject({ status: 'indexed' });

    // The 4 MB DOCX inflating to 4 GiB; one hiding its size; a PDF content stream that
    // pdf.js would inflate into one buffer. (Past the limits, a bomb's size changes only what
    // receiving and storing its upload costs: on PGlite, some 70 times its bytes, briefly.)
    const bombs = [
      {
        name: 'declared.docx',
        type: DOCX,
        content: generateDocxBomb({ inflatedMiB: 4096, declare: 'actual' }),
        expected: { status: 'skipped', reason: 'too_large' },
      },
      {
        name: 'hidden.docx',
        type: DOCX,
        content: generateDocxBomb({ inflatedMiB: 1024, declare: 'small' }),
        expected: { status: 'failed', reason: 'unsafe_archive' },
      },
      // The audit's DOCX files: 40 and 95 MiB of ordinary XML, 10-fold (4 and 9.3 MB), past the
      // 32 MiB an archive may inflate to. Both once exhausted the parse thread's 512 MiB heap.
      {
        name: 'paragraphs-40.docx',
        type: DOCX,
        content: docxOfParagraphs(40, shortParagraph),
        expected: { status: 'skipped', reason: 'too_large' },
      },
      {
        name: 'paragraphs-95.docx',
        type: DOCX,
        content: docxOfParagraphs(95, shortParagraph),
        expected: { status: 'skipped', reason: 'too_large' },
      },
      // Under that cap, but one paragraph of 31 MiB: it cannot be read in slices, and reading it
      // whole needs more heap than the parse thread's share of the parse memory budget.
      {
        name: 'one-paragraph.docx',
        type: DOCX,
        content: docxOfParagraphs(
          31,
          (index) => `${index === 0 ? '<w:p>' : ''}<w:r><w:t>Run ${index}. </w:t></w:r>`,
          '</w:p>',
        ),
        expected: { status: 'skipped', reason: 'too_large' },
      },
      {
        name: 'stream.pdf',
        type: 'application/pdf',
        content: generatePdfBomb({ inflatedMiB: 1024 }),
        expected: { status: 'skipped', reason: 'too_large' },
      },
    ];
    for (const { expected, ...bomb } of bombs) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const idle = memoryOf(pid, 'VmRSS');
      // The peak restarts from here (Linux: writing 5 to clear_refs resets VmHWM).
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      const job = await uploadFilesOverHttp(service, token, [bomb]);
      const peak = memoryOf(pid, 'VmHWM');
      console.info(
        `${bomb.name} (${bomb.content.length} bytes): the process grew by ${Math.round((peak - idle) / MIB)} MiB`,
      );
      expect(job.status).toBe('completed');
      expect(job.files[0], bomb.name).toMatchObject(expected);
      expect(peak - idle, `${bomb.name}: idle ${idle} bytes, peak ${peak} bytes`).toBeLessThan(
        MAX_GROWTH_BYTES,
      );
    }

    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
  }, 900_000);
});
