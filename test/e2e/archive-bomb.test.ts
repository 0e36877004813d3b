import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { craftZip, deflatedEntry } from '../fixtures/crafted-zip.js';
import { generateDocxBomb, generatePdfBomb, loadFixtureFiles } from '../fixtures/documents.js';
import { registerOverHttp, type ServiceProcess, startServiceProcess } from '../helpers/service-process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const MIB = 1024 * 1024;
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** The bound: a bomb may grow the whole process (every thread, on and off heap) by less. */
const MAX_GROWTH_BYTES = 512 * MIB;

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const PACKAGE_RELATIONSHIPS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/**
 * A DOCX whose document.xml is `xmlMiB` MiB of what `paragraph(index)` makes, then `end`: no bomb,
 * an honest ratio, so only the caps on what is inflated and on a parse's memory stop it.
 */
function docxOfParagraphs(xmlMiB: number, paragraph: (index: number) => string, end = ''): Uint8Array {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>',
  ];
  let size = 0;
  for (let index = 0; size < xmlMiB * MIB; index += 1) {
    const next = paragraph(index);
    parts.push(next);
    size += next.length;
  }
  parts.push(`${end}</w:body></w:document>`);
  return craftZip([
    deflatedEntry('[Content_Types].xml', CONTENT_TYPES),
    deflatedEntry('_rels/.rels', PACKAGE_RELATIONSHIPS),
    deflatedEntry('word/document.xml', Buffer.from(parts.join(''))),
  ]);
}

/** The audit's file: short numbered paragraphs, deflating about 10-fold. */
const shortParagraph = (index: number) =>
  `<w:p><w:r><w:t>Paragraph ${index} says ${(index * 2654435761) % 1000003} things.</w:t></w:r></w:p>`;

/** Prose as Word writes it (revision ids, paragraph properties), ~70 words a paragraph, a heading every 25. */
function proseParagraph(): (index: number) => string {
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const syllables = [
    'ka',
    'to',
    'ri',
    'men',
    'sal',
    'vor',
    'ne',
    'lis',
    'tra',
    'pe',
    'dun',
    'ma',
    'ro',
    'el',
  ];
  const vocabulary = Array.from({ length: 20_000 }, () =>
    Array.from({ length: 1 + Math.floor(random() * 4) }, () => syllables[Math.floor(random() * 14)]).join(''),
  );
  const word = () => vocabulary[Math.floor(random() ** 2.5 * vocabulary.length)];
  const revision = () =>
    Math.floor(random() * 0xffffffff)
      .toString(16)
      .toUpperCase()
      .padStart(8, '0');
  return (index) => {
    if (index % 25 === 0) {
      return `<w:p w:rsidR="${revision()}"><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Chapter ${index / 25 + 1} ${word()}</w:t></w:r></w:p>`;
    }
    const words = Array.from({ length: 40 + Math.floor(random() * 60) }, word).join(' ');
    return (
      `<w:p w:rsidR="${revision()}" w:rsidRDefault="${revision()}"><w:pPr><w:spacing w:after="120"/></w:pPr>` +
      `<w:r w:rsidRPr="${revision()}"><w:rPr><w:lang w:val="en-GB"/></w:rPr><w:t xml:space="preserve">${words}.</w:t></w:r></w:p>`
    );
  };
}

/** A field of `/proc/<pid>/status` (VmRSS, VmHWM), in bytes. */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (match === null) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** A multipart/form-data body of `file` parts, as a browser sends it. */
function multipart(files: { name: string; type: string; content: Uint8Array }[]) {
  const boundary = `----bomb${Math.random().toString(16).slice(2)}`;
  const pieces: Buffer[] = [];
  for (const file of files) {
    pieces.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
          `Content-Type: ${file.type}\r\n\r\n`,
      ),
      Buffer.from(file.content),
      Buffer.from('\r\n'),
    );
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(pieces), contentType: `multipart/form-data; boundary=${boundary}` };
}

interface JobView {
  readonly result_ready: boolean;
  readonly status: string;
  readonly files: readonly { id: string; status: string; reason: string | null; message: string | null }[];
}

async function upload(service: ServiceProcess, token: string, files: Parameters<typeof multipart>[0]) {
  const { body, contentType } = multipart(files);
  const response = await fetch(`${service.url}/v1/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
  });
  expect(response.status, await response.clone().text()).toBe(202);
  const { result_id: id } = (await response.json()) as { result_id: string };
  // Until the job says it is done, however busy the machine: the test's own timeout guards a hang.
  for (;;) {
    const view = (await (
      await fetch(`${service.url}/v1/documents/jobs/${id}`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as JobView;
    if (view.result_ready) return view;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('archive and stream bombs uploaded to the service', () => {
  let dataDir: string;
  let database: TestDatabase;
  let service: ServiceProcess;
  let token: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'archive-bomb-'));
    database = await createTestDatabase();
    // Bombs are stopped by what they take (memory, size), never by the clock: parsing the honest
    // 19 MiB book takes minutes on a busy machine, past the default minute.
    const common = { LOG_LEVEL: 'warn', PARSE_THREADS: '1', INDEX_PARSE_TIMEOUT_MS: '900000' };
    service = await startServiceProcess(
      database.location.kind === 'postgres'
        ? { ...common, DATABASE_URL: database.location.url, ENCRYPTION_KEY: 'ef'.repeat(32) }
        : { ...common, DATA_DIR: dataDir },
    );
    token = await registerOverHttp(service.url, 'bomb');
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('fails each bomb with its reason while the process grows by less than 512 MiB', async () => {
    const pid = service.child.pid;
    if (pid === undefined) throw new Error('the service has no pid');
    const handbook = (await loadFixtureFiles()).find((file) => file.mimeType === DOCX);
    if (handbook === undefined) throw new Error('no DOCX fixture');
    // A first upload starts the parse thread and warms the database: idle means ready to parse.
    const warmUp = await upload(service, token, [
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
      const job = await upload(service, token, [bomb]);
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

    // Still serving, and still parsing, a large honest document too: 5 MB of DOCX, 19 MiB of XML.
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    const book = docxOfParagraphs(19, proseParagraph());
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = memoryOf(pid, 'VmRSS');
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const large = await upload(service, token, [{ name: 'book.docx', type: DOCX, content: book }]);
    const peak = memoryOf(pid, 'VmHWM');
    expect(large.files[0], JSON.stringify(large.files[0])).toMatchObject({ status: 'indexed' });
    console.info(
      `book.docx (${book.length} bytes) indexed; the process grew by ${Math.round((peak - idle) / MIB)} MiB`,
    );
    const again = await upload(service, token, [{ name: 'again.docx', type: DOCX, content: handbook.bytes }]);
    expect(again.files[0]).toMatchObject({ status: 'indexed' });
  }, 900_000);
});
