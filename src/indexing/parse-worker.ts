// A worker thread of ParsePool (parse-pool.ts): parses, chunks and hashes one file per message.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import path from 'node:path';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { chunkDocument } from './chunk.js';
import { contentHash } from './content-hash.js';
import { FileFailure } from './document.js';
import { parseDocument } from './parse/parse-document.js';
import {
  CHUNKS_PER_MESSAGE,
  PARSE_POOL_TEST_MIME_TYPE,
  type ParseRequest,
  type ParseResult,
  type SerializedError,
  type WorkerData,
  type WorkerMessage,
  type WorkerReply,
  type WorkerRequest,
} from './parse-pool.js';

if (parentPort === null) throw new Error('parse-worker runs as a worker thread of ParsePool');
const port = parentPort;

/**
 * The nice value of a parse thread: parsing is background work, and a request's thread (and the
 * database's processes) get the CPU first when the cores are busy. Raising one's own nice value
 * needs no privilege.
 */
const PARSE_THREAD_NICE = 10;

/** This thread's kernel id (Linux, `/proc/thread-self` -> `<pid>/task/<tid>`), if it can be known. */
function kernelThreadId(): number | undefined {
  try {
    const id = Number(path.basename(readlinkSync('/proc/thread-self')));
    return Number.isInteger(id) && id > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}

const kernelThread = kernelThreadId();
if (kernelThread !== undefined) {
  try {
    // Only ever lowered: a worker process may already run nicer (WORKER_NICENESS).
    if (getPriority(kernelThread) < PARSE_THREAD_NICE) setPriority(kernelThread, PARSE_THREAD_NICE);
  } catch {
    // Not allowed here (a sandbox): parsing runs at the process's priority.
  }
}
const { enableTestRequests, maxUncompressedBytes, maxOffHeapBytes } = workerData as WorkerData;

/**
 * How often a parse's memory outside the heap is measured. Parsers that inflate (pdf.js) return
 * to the event loop every few tens of milliseconds, so a sample lands between their allocations.
 */
const OFF_HEAP_SAMPLE_MS = 20;

// One file at a time: the pool sends the next request only after this one's reply.
let pending: Promise<void> = Promise.resolve();
/** Resolves when the pool has read the part of chunks sent last. */
let partRead: (() => void) | undefined;
port.on('message', (message: WorkerMessage) => {
  if (message.type === 'chunks-read') {
    partRead?.();
    return;
  }
  pending = pending.then(() => handle(message));
});
port.postMessage({ type: 'ready' } satisfies WorkerReply);

async function handle({ id, request }: WorkerRequest): Promise<void> {
  const watch = watchOffHeapMemory(id);
  let reply: WorkerReply;
  try {
    const result =
      enableTestRequests && request.mimeType === PARSE_POOL_TEST_MIME_TYPE
        ? await runTestRequest(new TextDecoder().decode(request.bytes))
        : await parseAndChunk(request);
    // All but the last part of the chunks go ahead in messages of their own, one at a time, each
    // let go of once sent (see CHUNKS_PER_MESSAGE).
    const { chunks } = result;
    while (chunks.length > CHUNKS_PER_MESSAGE) {
      const read = new Promise<void>((resolve) => {
        partRead = resolve;
      });
      port.postMessage({
        type: 'chunks',
        id,
        chunks: chunks.splice(0, CHUNKS_PER_MESSAGE),
      } satisfies WorkerReply);
      await read;
    }
    reply = { type: 'result', id, result };
  } catch (error) {
    reply = { type: 'failure', id, error: serializeError(error) };
  } finally {
    clearInterval(watch);
  }
  port.postMessage(reply);
}

/**
 * Tells the pool when this thread's buffers and typed arrays (which the heap limit does not cover)
 * pass the budget while it parses request `id`; the pool then stops the thread. In a worker,
 * `memoryUsage().external` counts this thread's isolate only.
 */
function watchOffHeapMemory(id: number): NodeJS.Timeout {
  const watch = setInterval(() => {
    const { external } = process.memoryUsage();
    if (external <= maxOffHeapBytes) return;
    clearInterval(watch);
    port.postMessage({ type: 'off-heap-exceeded', id, bytes: external } satisfies WorkerReply);
  }, OFF_HEAP_SAMPLE_MS);
  return watch;
}

async function parseAndChunk(request: ParseRequest): Promise<ParseResult> {
  const parsed = await parseDocument({ ...request, maxUncompressedBytes });
  const chunks = chunkDocument(parsed, request.chunkOptions);
  return {
    title: parsed.title,
    mimeType: parsed.mimeType,
    chunks,
    contentHash: contentHash(request.title, chunks),
  };
}

function serializeError(error: unknown): SerializedError {
  if (error instanceof FileFailure)
    return { kind: 'file_failure', reason: error.reason, message: error.message };
  if (error instanceof Error) {
    return error.stack === undefined
      ? { kind: 'error', name: error.name, message: error.message }
      : { kind: 'error', name: error.name, message: error.message, stack: error.stack };
  }
  return { kind: 'error', name: 'Error', message: String(error) };
}

/** Misbehaviour on demand, for the pool's tests (see PARSE_POOL_TEST_MIME_TYPE). */
async function runTestRequest(command: string): Promise<ParseResult> {
  const [name, argument] = command.trim().split(/\s+/);
  switch (name) {
    case 'off-heap': {
      // Buffers of `argument` MiB in all, 8 MiB at a time, as an inflating parser allocates them.
      const hoard: Uint8Array[] = [];
      for (let total = 0; total < Number(argument ?? '0'); total += 8) {
        hoard.push(new Uint8Array(8 * 1024 * 1024).fill(1));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { title: String(hoard.length), chunks: [], contentHash: '' };
    }
    case 'spin': {
      const until = Date.now() + Number(argument ?? '0');
      while (Date.now() < until) {
        // Busy on purpose: a parser stuck in a loop.
      }
      break;
    }
    case 'priority':
      return {
        title: String(kernelThread === undefined ? 'unknown' : getPriority(kernelThread)),
        chunks: [],
        contentHash: '',
      };
    case 'throw':
      throw new TypeError('test request: thrown in the worker');
    case 'exit':
      return process.exit(3);
    case 'uncaught':
      setImmediate(() => {
        throw new Error('test request: uncaught in the worker');
      });
      return new Promise<never>(() => {});
    case 'out-of-memory': {
      const hoard: number[][] = [];
      for (;;) hoard.push(Array.from({ length: 1_000_000 }, (_, index) => index));
    }
  }
  return { title: String(threadId), chunks: [], contentHash: '' };
}
