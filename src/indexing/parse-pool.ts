import type { Worker } from 'node:worker_threads';
import { startWorkerThread } from '../worker-thread.js';
import type { ChunkOptions } from './chunk.js';
import { type Chunk, FileFailure, type FileReason } from './document.js';
import { DEFAULT_MAX_UNCOMPRESSED_BYTES } from './parse/zip-guard.js';

export interface ParseRequest {
  readonly mimeType: string;
  /** Handed over to the worker: when they span their whole buffer, that buffer is transferred (detached here). */
  readonly bytes: Uint8Array;
  readonly fileName?: string;
  /** The title the chunks are indexed under; part of the content hash. */
  readonly title: string;
  readonly chunkOptions?: ChunkOptions;
}

export interface ParseResult {
  /** A title found inside the document (PDF metadata, a leading heading). */
  readonly title: string | undefined;
  /** The type a file labelled with one that says nothing was read as (`ParsedDocument.mimeType`). */
  readonly mimeType?: string | undefined;
  readonly chunks: Chunk[];
  /** `contentHash(request.title, chunks)`: unchanged files can be skipped. */
  readonly contentHash: string;
}

export interface ParsePoolOptions {
  /** Worker threads, each parsing one file at a time; further requests wait in line. */
  readonly threads: number;
  /**
   * Most memory all the threads together may hold for parsing, in and outside the JavaScript
   * heap: each thread gets an equal share (this / `threads`), two thirds as its heap limit and a
   * third outside the heap. A file that needs more than its thread's share fails `too_large`, so
   * hostile files cost the process this much at most however many threads parse them.
   */
  readonly memoryBudgetMb?: number;
  /**
   * Each worker's JavaScript heap limit (default: two thirds of its share of `memoryBudgetMb`): a
   * hostile file exhausts its worker, not the process, and fails `too_large`.
   */
  readonly maxMemoryMb?: number;
  /**
   * How long one file may parse, counted from when a thread takes it up (not while it waits in
   * line); past it the thread is stopped and replaced, and the file fails `parse_timeout`.
   */
  readonly parseTimeoutMs?: number;
  /**
   * Most bytes an archive-based file (DOCX) may inflate to, all entries together (`zip-guard.ts`).
   * A thread applies at most a third of its budget outside the heap: a DOCX holds its own bytes,
   * its inflated parts and the slice being read there (see `archiveCapBytes`).
   */
  readonly maxUncompressedBytes?: number;
  /**
   * Most memory outside the JavaScript heap (buffers, typed arrays) a worker may hold while it
   * parses a file; past it the worker is stopped and the file fails `too_large`. The heap limit
   * does not cover this memory, and a parser inflating a stream (pdf.js) allocates it. By default
   * the third of the thread's share of `memoryBudgetMb` that is not its heap.
   */
  readonly maxOffHeapMb?: number;
  /** Tests only: honour requests of `PARSE_POOL_TEST_MIME_TYPE` (crash, spin, report the thread). */
  readonly enableTestRequests?: boolean;
}

/**
 * Requests of this type are test instructions, honoured only by a pool built with
 * `enableTestRequests`; the bytes are the command: `thread-id`, `priority` (the thread's nice
 * value), `spin <ms>`, `throw`, `exit`, `uncaught`, `out-of-memory`, `off-heap <MiB>` (buffers
 * outside the heap, then a 200 ms pause).
 * Anywhere else it is an unsupported type like any other.
 */
export const PARSE_POOL_TEST_MIME_TYPE = 'application/x.parse-pool-test';

/**
 * What the parse threads may hold together by default: with the main thread's own work (receiving
 * an upload, storing chunks), a hostile file keeps the process within 512 MiB of its idle size.
 */
export const DEFAULT_PARSE_MEMORY_BUDGET_MB = 576;
/** Below this share a thread cannot even load its parsers; more threads than fit are not started. */
export const MIN_THREAD_MEMORY_MB = 48;
export const DEFAULT_PARSE_TIMEOUT_MS = 60_000;

const MIB = 1024 * 1024;

/**
 * A parse thread's young generation (V8 makes it tens of MiB for a big heap). Parsing makes
 * short-lived strings by the million; a smaller nursery collects them more often, a little slower,
 * and keeps the thread's peak lower while a big file is parsed (bench/indexing, memory over idle).
 */
const WORKER_YOUNG_GENERATION_MB = 16;

/** What the worker receives: `workerData`, then one `WorkerRequest` per file. */
export interface WorkerData {
  readonly enableTestRequests: boolean;
  readonly maxUncompressedBytes: number;
  /** The worker reports when its memory outside the heap passes this while it parses. */
  readonly maxOffHeapBytes: number;
}

export interface WorkerRequest {
  readonly type: 'parse';
  readonly id: number;
  readonly request: ParseRequest;
}

/** What the worker receives after `workerData`: files to parse, and word that a part of chunks was read. */
export type WorkerMessage = WorkerRequest | { readonly type: 'chunks-read'; readonly id: number };

export type SerializedError =
  | { readonly kind: 'file_failure'; readonly reason: FileReason; readonly message: string }
  | { readonly kind: 'error'; readonly name: string; readonly message: string; readonly stack?: string };

/**
 * Chunks per `chunks` message: a big file's chunks come in parts, each read (deserialised) on the
 * main thread in a turn of its own, instead of one message that held it for most of a second. The
 * worker sends the next part once the pool says it read this one (`chunks-read`), and lets go of
 * what it sent: a serialised copy of all of a big file's chunks never waits in the port.
 */
export const CHUNKS_PER_MESSAGE = 500;

/**
 * A file at least this big leaves its thread's heap hundreds of MiB large (30 MiB of Markdown:
 * about 400 MiB): the thread is replaced once it is parsed, so that memory goes back at once
 * instead of staying beside the main thread's while the file is stored.
 */
const RECYCLE_AFTER_BYTES = 4 * 1024 * 1024;

export type WorkerReply =
  | { readonly type: 'ready' }
  /** Chunks of the request's result, in order, before its `result` (whose `chunks` come last). */
  | { readonly type: 'chunks'; readonly id: number; readonly chunks: Chunk[] }
  | { readonly type: 'result'; readonly id: number; readonly result: ParseResult }
  | { readonly type: 'failure'; readonly id: number; readonly error: SerializedError }
  /** The request's parse holds more memory outside the heap than allowed: stop it. */
  | { readonly type: 'off-heap-exceeded'; readonly id: number; readonly bytes: number };

interface Job {
  readonly id: number;
  readonly request: ParseRequest;
  readonly resolve: (result: ParseResult) => void;
  readonly reject: (error: unknown) => void;
}

interface Slot {
  readonly worker: Worker;
  job: Job | undefined;
  /** The worker has loaded its modules: a failure from now on is about the file, not the setup. */
  ready: boolean;
  /** The worker's own error (uncaught exception, out of memory), reported before it exits. */
  error: Error | undefined;
  /** Fails the running job once its parse time is up. */
  deadline: NodeJS.Timeout | undefined;
  /** The running job's chunks received so far (`chunks` messages). */
  received: Chunk[];
  /** The running job's file is big: its thread is replaced once done (see RECYCLE_AFTER_BYTES). */
  recycle: boolean;
}

/**
 * Parsing and chunking off the main thread, so the HTTP server keeps answering while a large
 * file is read: a few `worker_threads`, one file each at a time, requests queued in order.
 * A worker that dies fails only its own file and is replaced for the next request: out of heap as
 * `too_large` (the file needs more than the thread's share of the memory budget), a crash in a
 * parser as `parse_error`. So is one that runs past its deadline (`parse_timeout`) or holds too
 * much memory outside the heap (`too_large`): it is stopped.
 */
export class ParsePool {
  readonly #threads: number;
  readonly #maxMemoryMb: number;
  readonly #parseTimeoutMs: number;
  readonly #maxUncompressedBytes: number;
  readonly #maxOffHeapMb: number;
  readonly #enableTestRequests: boolean;
  readonly #queue: Job[] = [];
  readonly #slots = new Set<Slot>();
  #nextId = 1;
  #closed = false;

  constructor(options: ParsePoolOptions) {
    if (!Number.isInteger(options.threads) || options.threads < 1) {
      throw new RangeError('threads must be a positive integer');
    }
    const budgetMb = options.memoryBudgetMb ?? DEFAULT_PARSE_MEMORY_BUDGET_MB;
    // A budget too small for every thread to load its parsers runs fewer threads, not thinner ones.
    this.#threads = Math.max(1, Math.min(options.threads, Math.floor(budgetMb / MIN_THREAD_MEMORY_MB)));
    const share = Math.floor(budgetMb / this.#threads);
    const heapShare = Math.floor((share * 2) / 3);
    this.#maxMemoryMb = options.maxMemoryMb ?? heapShare;
    this.#maxOffHeapMb = options.maxOffHeapMb ?? share - heapShare;
    this.#parseTimeoutMs = options.parseTimeoutMs ?? DEFAULT_PARSE_TIMEOUT_MS;
    this.#maxUncompressedBytes = archiveCapBytes(
      options.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES,
      this.#maxOffHeapMb,
    );
    this.#enableTestRequests = options.enableTestRequests ?? false;
  }

  /**
   * Parses, chunks and hashes one file in a worker. Rejects with the worker's `FileFailure`
   * (same reason and message) or `Error`, with `parse_timeout` or `too_large` when the pool stops
   * the parse, or with the signal's reason once it aborts: a request still waiting leaves the
   * queue, a running one has its worker stopped and replaced.
   */
  parse(request: ParseRequest, signal?: AbortSignal): Promise<ParseResult> {
    if (this.#closed) return Promise.reject(new Error('the parse pool is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<ParseResult>((resolve, reject) => {
      const onAbort = () => this.#abort(job, signal?.reason);
      const settle = () => signal?.removeEventListener('abort', onAbort);
      const job: Job = {
        id: this.#nextId++,
        request,
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  /** Rejects what is queued or running and stops the workers. */
  async close(): Promise<void> {
    this.#closed = true;
    const closed = new Error('the parse pool is closed');
    for (const job of this.#queue.splice(0)) job.reject(closed);
    const slots = [...this.#slots];
    this.#slots.clear();
    for (const slot of slots) {
      clearTimeout(slot.deadline);
      slot.job?.reject(closed);
      slot.job = undefined;
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  #dispatch(): void {
    while (!this.#closed && this.#queue.length > 0) {
      let slot = [...this.#slots].find((candidate) => candidate.job === undefined);
      if (slot === undefined && this.#slots.size >= this.#threads) return;
      const job = this.#queue.shift();
      if (job === undefined) return;
      try {
        slot ??= this.#startWorker();
      } catch (error) {
        // The worker could not even be created (tsx missing, a bad build): no file's fault.
        job.reject(error);
        continue;
      }
      this.#run(slot, job);
    }
  }

  #run(slot: Slot, job: Job): void {
    slot.job = job;
    slot.received = [];
    slot.worker.ref();
    const { bytes } = job.request;
    // Transferring moves the buffer instead of copying it; a view into a larger (or shared)
    // buffer is copied first, so nothing else the caller holds is detached. `new Uint8Array`
    // copies even a Buffer, whose own `slice` is a view: Node 22+ refuses to transfer the pool
    // that small Buffers share ("Cannot transfer object of unsupported type").
    const owned =
      bytes.buffer instanceof ArrayBuffer &&
      bytes.byteOffset === 0 &&
      bytes.byteLength === bytes.buffer.byteLength
        ? bytes
        : new Uint8Array(bytes);
    slot.recycle = owned.byteLength >= RECYCLE_AFTER_BYTES;
    const message: WorkerRequest = { type: 'parse', id: job.id, request: { ...job.request, bytes: owned } };
    try {
      slot.worker.postMessage(message, [owned.buffer as ArrayBuffer]);
    } catch (error) {
      slot.job = undefined;
      slot.worker.unref();
      job.reject(error);
      return;
    }
    // A new worker's start (loading its modules) is not the file's time: its clock starts at `ready`.
    if (slot.ready) this.#startClock(slot);
  }

  #startClock(slot: Slot): void {
    const job = slot.job;
    if (job === undefined) return;
    slot.deadline = setTimeout(() => {
      if (slot.job !== job) return;
      const failure = new FileFailure(
        'parse_timeout',
        `parsing took longer than ${this.#parseTimeoutMs} ms; the parser was stopped`,
      );
      this.#stop(slot, failure);
    }, this.#parseTimeoutMs);
    // The worker keeps the process alive while it parses; the timer need not.
    slot.deadline.unref();
  }

  #abort(job: Job, reason: unknown): void {
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      job.reject(reason);
      return;
    }
    const slot = [...this.#slots].find((candidate) => candidate.job === job);
    if (slot !== undefined) this.#stop(slot, reason);
  }

  /**
   * Fails the slot's running job and stops its worker. A parser cannot be interrupted from
   * outside; stopping its thread is the only way to get the CPU and memory back from a file
   * nobody waits for, or that has had its share. The next request gets a new worker.
   */
  #stop(slot: Slot, reason: unknown): void {
    const job = slot.job;
    if (job === undefined) return;
    slot.job = undefined;
    clearTimeout(slot.deadline);
    this.#slots.delete(slot);
    void slot.worker.terminate();
    job.reject(reason);
    this.#dispatch();
  }

  #startWorker(): Slot {
    const workerData: WorkerData = {
      enableTestRequests: this.#enableTestRequests,
      maxUncompressedBytes: this.#maxUncompressedBytes,
      maxOffHeapBytes: this.#maxOffHeapMb * MIB,
    };
    const options = {
      workerData,
      resourceLimits: {
        maxOldGenerationSizeMb: this.#maxMemoryMb,
        maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
      },
    };
    const worker = startWorkerThread(import.meta.url, 'parse-worker', options);
    worker.unref();
    const slot: Slot = {
      worker,
      job: undefined,
      ready: false,
      error: undefined,
      deadline: undefined,
      received: [],
      recycle: false,
    };
    this.#slots.add(slot);
    worker.on('message', (reply: WorkerReply) => this.#onReply(slot, reply));
    // A reply that cannot be read may leave the worker waiting for a `chunks-read`: it is replaced.
    worker.on('messageerror', (error) => this.#stop(slot, error));
    worker.on('error', (error) => {
      slot.error = error;
    });
    worker.on('exit', (code) => this.#onExit(slot, code));
    return slot;
  }

  #onReply(slot: Slot, reply: WorkerReply): void {
    if (reply.type === 'ready') {
      slot.ready = true;
      this.#startClock(slot);
      return;
    }
    if (slot.job?.id !== reply.id) return;
    if (reply.type === 'chunks') {
      for (const chunk of reply.chunks) slot.received.push(chunk);
      slot.worker.postMessage({ type: 'chunks-read', id: reply.id } satisfies WorkerMessage);
      return;
    }
    if (reply.type === 'result') {
      const chunks =
        slot.received.length === 0 ? reply.result.chunks : slot.received.concat(reply.result.chunks);
      this.#finish(slot, { ...reply.result, chunks }, undefined);
    } else if (reply.type === 'failure') this.#finish(slot, undefined, deserializeError(reply.error));
    else {
      const held = Math.round(reply.bytes / MIB);
      const failure = new FileFailure(
        'too_large',
        `parsing took ${held} MiB of memory outside the JavaScript heap, more than the ` +
          `${this.#maxOffHeapMb} MiB allowed; the parser was stopped`,
      );
      this.#stop(slot, failure);
    }
  }

  #finish(slot: Slot, result: ParseResult | undefined, error: unknown): void {
    const job = slot.job;
    if (job === undefined) return;
    slot.job = undefined;
    slot.received = [];
    clearTimeout(slot.deadline);
    slot.worker.unref();
    if (slot.recycle) {
      // The thread's heap grew to hold a big file's parse; an idle thread may never collect it.
      this.#slots.delete(slot);
      void slot.worker.terminate();
    }
    if (result !== undefined) job.resolve(result);
    else job.reject(error);
    this.#dispatch();
  }

  #onExit(slot: Slot, code: number): void {
    const known = this.#slots.delete(slot);
    const job = slot.job;
    slot.job = undefined;
    clearTimeout(slot.deadline);
    if (job !== undefined) {
      const cause = slot.error ?? new Error(`the parse worker exited with code ${code}`);
      if (!slot.ready) job.reject(new Error(`the parse worker could not start: ${cause.message}`, { cause }));
      else if ((cause as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        // The file needed more than its thread's share: the heap limit is a size limit, not a bug.
        job.reject(
          new FileFailure(
            'too_large',
            `parsing needed more than the ${this.#maxMemoryMb} MiB of JavaScript heap a parse ` +
              'thread may hold; the parser was stopped',
            { cause },
          ),
        );
      } else {
        job.reject(
          new FileFailure('parse_error', `the parser stopped on this file: ${cause.message}`, { cause }),
        );
      }
    }
    if (known) this.#dispatch();
  }
}

/**
 * The inflated size a thread allows an archive: the configured cap, but no more than a third of
 * the thread's budget outside the heap, which also holds the archive's own bytes and the slice of
 * its main part being read. Past it a DOCX is refused `too_large` before anything is inflated.
 */
export function archiveCapBytes(maxUncompressedBytes: number, maxOffHeapMb: number): number {
  return Math.min(maxUncompressedBytes, Math.floor((maxOffHeapMb * MIB) / 3));
}

function deserializeError(error: SerializedError): Error {
  if (error.kind === 'file_failure') return new FileFailure(error.reason, error.message);
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  if (error.stack !== undefined) rebuilt.stack = error.stack;
  return rebuilt;
}
