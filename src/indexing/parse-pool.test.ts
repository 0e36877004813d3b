import { getPriority } from 'node:os';
import { threadId } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { craftZip, deflatedEntry } from '../../test/fixtures/crafted-zip.js';
import {
  corruptPdf,
  generateDocxBomb,
  generatePdf,
  generatePdfBomb,
  loadFixtureFiles,
} from '../../test/fixtures/documents.js';
import { chunkDocument } from './chunk.js';
import { contentHash } from './content-hash.js';
import { FileFailure } from './document.js';
import { parseDocument } from './parse/parse-document.js';
import { DEFAULT_MAX_UNCOMPRESSED_BYTES } from './parse/zip-guard.js';
import {
  archiveCapBytes,
  CHUNKS_PER_MESSAGE,
  MIN_THREAD_MEMORY_MB,
  PARSE_POOL_TEST_MIME_TYPE,
  ParsePool,
} from './parse-pool.js';

const MIB = 1024 * 1024;
const encode = (text: string) => new TextEncoder().encode(text);
const command = (text: string) => ({
  mimeType: PARSE_POOL_TEST_MIME_TYPE,
  bytes: encode(text),
  title: 'test',
});

const pools: ParsePool[] = [];
function createPool(options: ConstructorParameters<typeof ParsePool>[0]): ParsePool {
  const pool = new ParsePool(options);
  pools.push(pool);
  return pool;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

/** A Markdown handbook of `sections` sections of ten paragraphs: a few MB, a second or more of parsing. */
function largeMarkdown(sections: number): Uint8Array {
  const parts: string[] = [];
  for (let section = 0; section < sections; section += 1) {
    parts.push(`## Section ${section}`);
    for (let paragraph = 0; paragraph < 10; paragraph += 1) {
      parts.push(
        Array.from(
          { length: 8 },
          (_, sentence) =>
            `Paragraph ${paragraph} of section ${section} explains rule ${sentence} with *emphasis* and [a link](https://example.com/${sentence}).`,
        ).join(' '),
      );
    }
  }
  return encode(parts.join('\n\n'));
}

describe('ParsePool', () => {
  it('parses, chunks and hashes in a worker thread, as the same code does in-process', async () => {
    const pool = createPool({ threads: 1, enableTestRequests: true });
    const [thread] = await Promise.all([pool.parse(command('thread-id'))]);
    expect(Number(thread?.title)).not.toBe(threadId);

    const fixture = (await loadFixtureFiles()).find((file) => file.mimeType === 'application/pdf');
    if (fixture === undefined) throw new Error('no PDF fixture');
    const parsed = await parseDocument(fixture);
    const chunks = chunkDocument(parsed);
    const result = await pool.parse({ ...fixture, title: 'Report' });
    // The bytes were moved to the worker, not copied.
    expect(fixture.bytes.byteLength).toBe(0);
    expect(result).toEqual({ title: parsed.title, chunks, contentHash: contentHash('Report', chunks) });
    expect(result.chunks.map((chunk) => chunk.pageLabels)).toEqual([['1'], ['1'], ['2']]);
  });

  it('keeps the main event loop turning while a large document parses', async () => {
    const pool = createPool({ threads: 1 });
    const bytes = largeMarkdown(2_000);
    // Warm the worker up first: its start (and, in tests, TypeScript compilation) is not the point.
    await pool.parse({ mimeType: 'text/plain', bytes: encode('warm up'), title: 'w' });
    let longestGap = 0;
    let ticks = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks += 1;
    }, 5);
    const started = performance.now();
    const result = await pool.parse({ mimeType: 'text/markdown', bytes, title: 'Large' });
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(result.chunks.length).toBeGreaterThan(2_000);
    // Parsing on this thread would have frozen the timer for the whole `elapsed`.
    expect(elapsed).toBeGreaterThan(300);
    expect(ticks).toBeGreaterThan(elapsed / 50);
    expect(longestGap).toBeLessThan(Math.max(150, elapsed / 4));
  });

  it("hands back a big document's chunks in order and whole, though they come in several messages", async () => {
    const pool = createPool({ threads: 1 });
    const bytes = largeMarkdown(600);
    const expected = chunkDocument(await parseDocument({ mimeType: 'text/markdown', bytes: bytes.slice() }));
    expect(expected.length).toBeGreaterThan(CHUNKS_PER_MESSAGE * 2);
    const result = await pool.parse({ mimeType: 'text/markdown', bytes, title: 'Big' });
    expect(result.chunks).toEqual(expected);
    expect(result.contentHash).toBe(contentHash('Big', expected));
    // The next file on the same thread starts from nothing.
    const small = await pool.parse({ mimeType: 'text/plain', bytes: encode('one line'), title: 'Small' });
    expect(small.chunks.map((chunk) => chunk.text)).toEqual(['one line']);
  });

  it.runIf(process.platform === 'linux')(
    "parses at a lower CPU priority than the service's own thread, so requests go first on busy cores",
    async () => {
      const pool = createPool({ threads: 1, enableTestRequests: true });
      const nice = Number((await pool.parse(command('priority'))).title);
      expect(nice).toBeGreaterThan(getPriority());
    },
  );

  it('replaces a thread once it has parsed a big file, and keeps it after small ones', async () => {
    const pool = createPool({ threads: 1, enableTestRequests: true });
    const first = (await pool.parse(command('thread-id'))).title;
    await pool.parse({ mimeType: 'text/plain', bytes: encode('a small file'), title: 'Small' });
    expect((await pool.parse(command('thread-id'))).title).toBe(first);
    const bytes = largeMarkdown(600);
    expect(bytes.byteLength).toBeGreaterThan(4 * 1024 * 1024);
    await pool.parse({ mimeType: 'text/markdown', bytes, title: 'Big' });
    // Its heap held the big parse: a new thread serves the next file.
    expect((await pool.parse(command('thread-id'))).title).not.toBe(first);
  });

  it('re-creates FileFailure with its reason and message, and other errors with their message', async () => {
    const pool = createPool({ threads: 2, enableTestRequests: true });
    const corrupt = pool.parse({ mimeType: 'application/pdf', bytes: corruptPdf(), title: 'broken' });
    await expect(corrupt).rejects.toBeInstanceOf(FileFailure);
    await expect(corrupt).rejects.toMatchObject({ reason: 'parse_error', message: /could not be read/ });
    await expect(
      pool.parse({ mimeType: 'image/png', bytes: encode('PNG'), title: 'logo' }),
    ).rejects.toMatchObject({
      name: 'FileFailure',
      reason: 'unsupported_type',
      message: 'image/png is not a supported document type',
    });
    await expect(
      pool.parse({ mimeType: 'application/json', bytes: encode('{"unclosed": '), title: 'bad' }),
    ).rejects.toMatchObject({ reason: 'parse_error', message: /^invalid JSON/ });
    const thrown = pool.parse(command('throw'));
    await expect(thrown).rejects.not.toBeInstanceOf(FileFailure);
    await expect(thrown).rejects.toMatchObject({
      name: 'TypeError',
      message: 'test request: thrown in the worker',
    });
  });

  it('fails only the request whose worker dies, and replaces the worker: out of heap as too_large, else parse_error', async () => {
    const pool = createPool({ threads: 1, enableTestRequests: true, maxMemoryMb: 64 });
    const before = await pool.parse(command('thread-id'));
    // Queued behind the crashing requests: they must still be served, by new workers.
    const crashes = ['out-of-memory', 'exit', 'uncaught'].map((name) => pool.parse(command(name)));
    const after = pool.parse(command('thread-id'));
    const outcomes = await Promise.allSettled(crashes);
    for (const [index, outcome] of outcomes.entries()) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(FileFailure);
      // A file that needs more heap than its thread's share is too large, as one that inflates too far.
      expect(reason).toMatchObject({ reason: index === 0 ? 'too_large' : 'parse_error' });
    }
    expect((outcomes[0] as PromiseRejectedResult).reason.message).toMatch(
      /more than the 64 MiB of JavaScript heap a parse thread may hold/,
    );
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toMatch(/exited with code 3/);
    expect((outcomes[2] as PromiseRejectedResult).reason.message).toMatch(/uncaught in the worker/);
    const replaced = await after;
    expect(replaced.title).not.toBe(before.title);
  });

  it('queues requests beyond its threads and runs them side by side up to that number', async () => {
    const pool = createPool({ threads: 2, enableTestRequests: true });
    // Start both workers first, so the timing below measures parsing, not start-up.
    await Promise.all([pool.parse(command('spin 50')), pool.parse(command('spin 50'))]);
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 4 }, () => pool.parse(command('spin 300'))));
    const elapsed = performance.now() - started;
    // Two at a time: about 600 ms, well under the 1200 ms of one at a time.
    expect(elapsed).toBeGreaterThanOrEqual(550);
    expect(elapsed).toBeLessThan(1_150);
    expect(new Set(results.map((result) => result.title)).size).toBe(2);
  });

  it('rejects an aborted request, queued or running, and goes on serving others', async () => {
    const pool = createPool({ threads: 1, enableTestRequests: true });
    const controller = new AbortController();
    const running = pool.parse(command('spin 60000'), controller.signal);
    const queuedController = new AbortController();
    const queued = pool.parse(command('thread-id'), queuedController.signal);
    const next = pool.parse(command('thread-id'));
    queuedController.abort(new Error('not needed any more'));
    await expect(queued).rejects.toThrow('not needed any more');
    const aborted = performance.now();
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    // The stuck worker was stopped rather than waited for: the next request does not wait a minute.
    await expect(next).resolves.toMatchObject({ contentHash: '' });
    expect(performance.now() - aborted).toBeLessThan(10_000);
    const alreadyAborted = AbortSignal.abort(new Error('too late'));
    await expect(pool.parse(command('thread-id'), alreadyAborted)).rejects.toThrow('too late');
  });

  it('transfers whole buffers to the worker and copies views into larger ones', async () => {
    const pool = createPool({ threads: 1 });
    const whole = encode('A short note.');
    await pool.parse({ mimeType: 'text/plain', bytes: whole, title: 'note' });
    expect(whole.byteLength).toBe(0);
    const larger = encode('Before. A short note. After.');
    const view = larger.subarray(8, 21);
    const result = await pool.parse({ mimeType: 'text/plain', bytes: view, title: 'note' });
    expect(result.chunks.map((chunk) => chunk.text)).toEqual(['A short note.']);
    expect(larger.byteLength).toBe(28);
    // A small Buffer lives in Node's shared pool, which must be copied, not moved (Node 22+ refuses).
    const pooled = Buffer.from('A pooled note.');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.byteLength);
    const fromPool = await pool.parse({ mimeType: 'text/plain', bytes: pooled, title: 'note' });
    expect(fromPool.chunks.map((chunk) => chunk.text)).toEqual(['A pooled note.']);
    expect(pooled.toString()).toBe('A pooled note.');
  });

  it('rejects what is queued or running when closed, and every request after', async () => {
    const pool = createPool({ threads: 1, enableTestRequests: true });
    const running = expect(pool.parse(command('spin 60000'))).rejects.toThrow('closed');
    const queued = expect(pool.parse(command('thread-id'))).rejects.toThrow('closed');
    await pool.close();
    await Promise.all([running, queued]);
    await expect(pool.parse(command('thread-id'))).rejects.toThrow('closed');
  });

  it('parses real PDFs of many pages off the main thread', async () => {
    const pool = createPool({ threads: 2 });
    const pages = Array.from({ length: 12 }, (_, page) => [
      { heading: `Chapter ${page + 1}`, level: 1 as const },
      `Chapter ${page + 1} describes the maintenance schedule of pump ${page + 1} in plain words.`,
    ]);
    const bytes = await generatePdf({ pages, title: 'Maintenance' });
    const result = await pool.parse({ mimeType: 'application/pdf', bytes, title: 'Maintenance' });
    expect(result.title).toBe('Maintenance');
    expect(result.chunks).toHaveLength(12);
    expect(result.chunks[11]).toMatchObject({ headingPath: ['Chapter 12'], pageLabels: ['12'] });
  });
});

describe('ParsePool limits', () => {
  const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

  it('stops a parse past its deadline as parse_timeout; a new thread serves the next', async () => {
    const pool = createPool({ threads: 1, enableTestRequests: true, parseTimeoutMs: 300 });
    const before = await pool.parse(command('thread-id'));
    const started = performance.now();
    const stuck = pool.parse(command('spin 60000'));
    const next = pool.parse(command('thread-id'));
    await expect(stuck).rejects.toBeInstanceOf(FileFailure);
    await expect(stuck).rejects.toMatchObject({
      reason: 'parse_timeout',
      status: 'failed',
      message: 'parsing took longer than 300 ms; the parser was stopped',
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    const replaced = await next;
    expect(replaced.title).not.toBe(before.title);
  });

  it('starts the clock when a thread takes the request up, not while it waits in line', async () => {
    const pool = createPool({ threads: 1, enableTestRequests: true, parseTimeoutMs: 3_000 });
    await pool.parse(command('thread-id'));
    // The second waits 2 s behind the first, then parses for 1.5 s: 3.5 s after it was asked for,
    // but 1.5 s of its own. Each is a second or more inside the deadline: a busy machine's
    // message delays fit.
    const first = pool.parse(command('spin 2000'));
    const second = pool.parse(command('spin 1500'));
    await expect(Promise.all([first, second])).resolves.toHaveLength(2);
  });

  it('does not count a new thread starting against the file', async () => {
    // A thread's first start loads (in tests, compiles) the parsers: longer than this deadline.
    const pool = createPool({ threads: 1, enableTestRequests: true, parseTimeoutMs: 150 });
    await expect(pool.parse(command('spin 10'))).resolves.toMatchObject({ contentHash: '' });
  });

  it('stops a PDF whose stream takes too long to inflate, as parse_timeout', async () => {
    const pool = createPool({ threads: 1, parseTimeoutMs: 500, maxOffHeapMb: 4096 });
    await pool.parse({ mimeType: 'text/plain', bytes: encode('warm up'), title: 'w' });
    const bomb = generatePdfBomb({ inflatedMiB: 2048 });
    await expect(
      pool.parse({ mimeType: 'application/pdf', bytes: bomb, title: 'bomb' }),
    ).rejects.toMatchObject({
      reason: 'parse_timeout',
    });
  });

  it('stops a parse holding more memory outside the heap than allowed, as too_large', async () => {
    const pool = createPool({ threads: 1, enableTestRequests: true, maxOffHeapMb: 64 });
    const before = await pool.parse(command('thread-id'));
    const next = pool.parse(command('thread-id'));
    await expect(pool.parse(command('off-heap 32'))).resolves.toMatchObject({ title: '4' });
    await expect(pool.parse(command('off-heap 1024'))).rejects.toMatchObject({
      reason: 'too_large',
      status: 'skipped',
      message: /outside the JavaScript heap, more than the 64 MiB allowed/,
    });
    expect((await next).title).toBe(before.title);
    expect((await pool.parse(command('thread-id'))).title).not.toBe(before.title);
  });

  it('stops pdf.js inflating a stream past the memory allowed outside the heap, as too_large', async () => {
    // 1 GiB inflated from 1 MB: pdf.js grows one buffer for it, by doubling.
    const pool = createPool({ threads: 1, maxOffHeapMb: 128 });
    const bomb = generatePdfBomb({ inflatedMiB: 1024 });
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    // CPU time (this process's, the parse thread's included), not the wall clock: stopped at the
    // limit, not after inflating the whole GiB, however busy the machine is.
    const started = process.cpuUsage();
    await expect(
      pool.parse({ mimeType: 'application/pdf', bytes: bomb, title: 'bomb' }),
    ).rejects.toMatchObject({
      reason: 'too_large',
    });
    const cpu = process.cpuUsage(started);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(10_000);
  });

  it('fails a DOCX zip bomb as too_large or unsafe_archive, within the cap it was given', async () => {
    const pool = createPool({ threads: 1, maxUncompressedBytes: 10 * 1024 * 1024 });
    const declared = generateDocxBomb({ inflatedMiB: 1024, declare: 'actual' });
    const hidden = generateDocxBomb({ inflatedMiB: 1024, declare: 'small' });
    await expect(pool.parse({ mimeType: DOCX, bytes: declared, title: 'bomb' })).rejects.toMatchObject({
      reason: 'too_large',
      message: /more than the 10485760 allowed/,
    });
    await expect(pool.parse({ mimeType: DOCX, bytes: hidden, title: 'bomb' })).rejects.toMatchObject({
      reason: 'unsafe_archive',
    });
    const fixture = (await loadFixtureFiles()).find((file) => file.mimeType === DOCX);
    if (fixture === undefined) throw new Error('no DOCX fixture');
    const result = await pool.parse({ ...fixture, title: 'Handbook' });
    expect(result.chunks.map((chunk) => chunk.text).join(' ')).toContain(fixture.phrase);
  });
  it('shares its memory budget between its threads, and caps what an archive may inflate to by it', async () => {
    // With 384 MiB, one thread may let a DOCX inflate to the 32 MiB cap, each of four to 10 MiB.
    expect(archiveCapBytes(DEFAULT_MAX_UNCOMPRESSED_BYTES, 128)).toBe(32 * MIB);
    expect(archiveCapBytes(DEFAULT_MAX_UNCOMPRESSED_BYTES, 32)).toBe(Math.floor((32 * MIB) / 3));
    const words = Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ');
    const docx = craftZip([
      deflatedEntry('[Content_Types].xml', '<Types/>'),
      deflatedEntry(
        'word/document.xml',
        `<w:document><w:body>${`<w:p>${words}</w:p>`.repeat(50_000)}</w:body></w:document>`,
      ),
    ]);
    const four = createPool({ threads: 4, memoryBudgetMb: 384 });
    await expect(four.parse({ mimeType: DOCX, bytes: docx, title: 'x' })).rejects.toMatchObject({
      reason: 'too_large',
      message: /word\/document.xml inflates to \d+ bytes, more than the 11184810 allowed/,
    });
    // A budget that does not fit a thread's parsers runs fewer threads.
    const squeezed = createPool({ threads: 8, enableTestRequests: true, memoryBudgetMb: 100 });
    const spins = await Promise.all(Array.from({ length: 4 }, () => squeezed.parse(command('spin 200'))));
    expect(new Set(spins.map((result) => result.title)).size).toBe(Math.floor(100 / MIN_THREAD_MEMORY_MB));
  });
});
