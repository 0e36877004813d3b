import { type DragEvent, useEffect, useId, useRef, useState } from 'react';
import { getUploadJob, uploadFiles } from '../api/documents';
import { ApiError, describeError, isAbort } from '../api/http';
import type { IndexJob, JobFile, UploadVisibility } from '../api/types';
import { reasonWords, statusWord } from '../format/status-words';
import { batchDone, batchSummary, type FilePhase, phaseWords } from '../format/upload-words';
import { createLimiter } from '../lib/limiter';
import {
  DEFAULT_UPLOAD_LIMITS,
  jobEntriesFor,
  type RequestSender,
  sendInRequests,
} from '../lib/upload-requests';
import { Link } from '../router/Link';
import { documentPath } from '../router/routes';

/**
 * The file types the service reads, by extension (parse-document.ts); anything else is refused with
 * 415 before it is stored. A hint to the file picker only: the service has the last word.
 */
const ACCEPTED_TYPES = '.pdf,.docx,.html,.htm,.xhtml,.md,.markdown,.txt,.text,.csv,.tsv,.json';
const POLL_INTERVAL_MS = 1000;
/** A poll that met an outage or a lost connection tries again later instead of giving up. */
const POLL_RETRY_MS = 3000;

const VISIBILITY_CHOICES: readonly { value: UploadVisibility; label: string }[] = [
  { value: 'team', label: 'Everyone in the team' },
  { value: 'private', label: 'Only me' },
];

/** One file of a batch: where it is, and once settled, what became of it. */
interface BatchFile {
  readonly key: string;
  readonly file: File;
  readonly name: string;
  readonly size: number;
  phase: FilePhase;
  /** The share of its request sent (0 to 1): the batch's progress bar while it uploads. */
  sentShare: number;
  /** Why it was skipped or failed, in words ("its content could not be read"). */
  reason?: string;
  chunks?: number;
  documentId?: number | null;
}

/** Files chosen together: sent in as few requests (jobs) as the service takes, shown as one. */
interface Batch {
  readonly id: string;
  files: BatchFile[];
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = window.setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        window.clearTimeout(timer);
        reject(new DOMException('Stopped', 'AbortError'));
      },
      { once: true },
    );
  });

/** Polls an upload's job until it is done, each answer to `onJob`, riding out a moment without the service. */
async function followJob(
  resultId: string,
  signal: AbortSignal,
  onJob: (job: IndexJob) => void,
): Promise<void> {
  while (true) {
    try {
      const job = await getUploadJob(resultId, signal);
      onJob(job);
      if (job.result_ready) return;
      await sleep(POLL_INTERVAL_MS, signal);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 503 && error.status !== 0)) throw error;
      await sleep(POLL_RETRY_MS, signal);
    }
  }
}

/** A file's state from its entry in the job. */
function fromJobFile(entry: JobFile, jobError: string | null): Partial<BatchFile> {
  const phase = statusWord(entry.status);
  const reason =
    entry.reason !== null && entry.reason !== ''
      ? reasonWords(entry.reason)
      : phase === 'failed'
        ? (entry.message ?? jobError ?? undefined)
        : undefined;
  return { phase, reason, chunks: entry.chunks, documentId: entry.document_id };
}

/**
 * Choose who may open them (the whole team, or only the uploader), then pick or drop files. Files
 * chosen together are one batch: one request and one indexing job, split only where the service's
 * limits per request say so. A batch of several files shows as one line of counts (with its
 * progress while it is under way) and its failures; `Show details` lists every file.
 */
export function UploadPanel({ onSettled }: { onSettled: () => void }) {
  const [batches, setBatches] = useState<Batch[]>([]);
  const [dragging, setDragging] = useState(false);
  /** Who may open the files picked or dropped from now on. */
  const [visibility, setVisibility] = useState<UploadVisibility>('team');
  const lifetime = useRef(new AbortController());
  const limiter = useRef(createLimiter(2));
  // What a 413 teaches about the service's limits holds for the page's later batches too.
  const limits = useRef(DEFAULT_UPLOAD_LIMITS);
  const idPrefix = useId();
  const counter = useRef(0);

  // Leaving the page stops the uploads and polls (the files already received are indexed anyway).
  useEffect(() => {
    const controller = new AbortController();
    lifetime.current = controller;
    return () => controller.abort();
  }, []);

  // A file dropped beside the drop zone would make the browser leave the app to open it.
  useEffect(() => {
    const keepInApp = (event: globalThis.DragEvent) => {
      if (event.dataTransfer?.types.includes('Files')) event.preventDefault();
    };
    window.addEventListener('dragover', keepInApp);
    window.addEventListener('drop', keepInApp);
    return () => {
      window.removeEventListener('dragover', keepInApp);
      window.removeEventListener('drop', keepInApp);
    };
  }, []);

  function update(batchId: string, files: readonly BatchFile[], change: Partial<BatchFile>) {
    const keys = new Set(files.map((file) => file.key));
    setBatches((current) =>
      current.map((batch) =>
        batch.id !== batchId
          ? batch
          : {
              ...batch,
              files: batch.files.map((file) => (keys.has(file.key) ? { ...file, ...change } : file)),
            },
      ),
    );
  }

  /** Follows one request's job, each file's outcome shown as the job reports it. */
  async function follow(batchId: string, files: readonly BatchFile[], resultId: string, signal: AbortSignal) {
    try {
      await followJob(resultId, signal, (job) => {
        const entries = jobEntriesFor(
          files.map((file) => file.name),
          job.files,
        );
        for (const [index, file] of files.entries()) {
          const entry = entries[index];
          if (entry !== undefined) update(batchId, [file], fromJobFile(entry, job.error));
          else if (job.result_ready) {
            // The job ended without this file's outcome (it died as a whole).
            const failed = job.status === 'failed';
            update(batchId, [file], {
              phase: failed ? 'failed' : 'indexed',
              ...(failed ? { reason: job.error ?? 'the indexing job failed' } : {}),
            });
          }
        }
      });
      onSettled();
    } catch (error) {
      if (isAbort(error)) return;
      update(batchId, files, { phase: 'failed', reason: describeError(error) });
    }
  }

  async function send(batchId: string, files: readonly BatchFile[], chosen: UploadVisibility) {
    const signal = lifetime.current.signal;
    const sender: RequestSender<BatchFile> = {
      limits,
      turn: limiter.current,
      send: (group, onProgress) =>
        uploadFiles(
          group.map((file) => file.file),
          chosen,
          (sentBytes, totalBytes) => onProgress(totalBytes === 0 ? 1 : sentBytes / totalBytes),
          signal,
        ),
    };
    const follows: Promise<void>[] = [];
    const answered = new Set<string>();
    const settle = (group: readonly BatchFile[]) => {
      for (const file of group) answered.add(file.key);
    };
    try {
      await sendInRequests(files, sender, {
        sending: (group) => update(batchId, group, { phase: 'uploading' }),
        progress: (group, share) => update(batchId, group, { sentShare: share }),
        queued: (group, job) => {
          settle(group);
          update(batchId, group, { phase: 'pending', sentShare: 1 });
          follows.push(follow(batchId, group, job.result_id, signal));
        },
        refused: (group, words) => {
          settle(group);
          update(batchId, group, { phase: 'failed', reason: words, sentShare: 1 });
        },
      });
    } catch (error) {
      if (isAbort(error)) return;
      const unanswered = files.filter((file) => !answered.has(file.key));
      update(batchId, unanswered, { phase: 'failed', reason: describeError(error), sentShare: 1 });
    }
    await Promise.all(follows);
  }

  function addFiles(chosen: FileList | null) {
    if (chosen === null || chosen.length === 0) return;
    counter.current += 1;
    const batchId = `${idPrefix}-${counter.current}`;
    const files: BatchFile[] = Array.from(chosen, (file, index) => ({
      key: `${batchId}-${index}`,
      file,
      name: file.name,
      size: file.size,
      phase: 'waiting',
      sentShare: 0,
    }));
    setBatches((current) => [{ id: batchId, files }, ...current]);
    void send(batchId, files, visibility);
  }

  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setDragging(false);
    addFiles(event.dataTransfer.files);
  }

  return (
    <div className="upload-panel">
      <fieldset className="choice-group">
        <legend>Who can open the uploaded files</legend>
        {VISIBILITY_CHOICES.map((choice) => (
          <label key={choice.value} className="choice">
            <input
              type="radio"
              name={`${idPrefix}-visibility`}
              value={choice.value}
              checked={visibility === choice.value}
              onChange={() => setVisibility(choice.value)}
            />
            {choice.label}
          </label>
        ))}
      </fieldset>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: dropping is a pointer shortcut; the file input inside is the way for everyone */}
      <div
        className={dragging ? 'drop-zone drop-zone-active' : 'drop-zone'}
        onDragEnter={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragOver={(event) => event.preventDefault()}
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={onDrop}
      >
        <label htmlFor="upload-files" className="upload-label">
          Upload files
        </label>
        <input
          id="upload-files"
          type="file"
          multiple
          accept={ACCEPTED_TYPES}
          aria-describedby="upload-hint"
          onChange={(event) => {
            addFiles(event.target.files);
            // The same file can be picked again (a new version).
            event.target.value = '';
          }}
        />
        <p id="upload-hint" className="field-hint">
          Or drop files here. PDF, Word (DOCX), Markdown, text, HTML, CSV, TSV or JSON. A file with the name
          of one already uploaded replaces it.
        </p>
      </div>
      {batches.length === 0 ? null : (
        <ul className="uploads" aria-label="Uploads">
          {batches.map((batch) =>
            batch.files.length === 1 && batch.files[0] !== undefined ? (
              <SingleUpload key={batch.id} file={batch.files[0]} />
            ) : (
              <BatchUpload key={batch.id} files={batch.files} />
            ),
          )}
        </ul>
      )}
    </div>
  );
}

/** Sent and indexed so far, for the progress bar of files still on their way (none once all are settled). */
function progressOf(files: readonly BatchFile[], subject: string) {
  const phases = files.map((file) => file.phase);
  if (batchDone(phases)) return null;
  const sending = files.some((file) => file.phase === 'waiting' || file.phase === 'uploading');
  if (sending) {
    // Byte counts are the requests' (XHR reports a request's progress): each file is its request's share.
    const total = files.reduce((sum, file) => sum + file.size, 0);
    const sent = files.reduce((sum, file) => sum + file.size * file.sentShare, 0);
    return { label: `Uploading ${subject}`, max: Math.max(total, 1), value: total === 0 ? 0 : sent };
  }
  const settled = phases.filter((phase) => phase !== 'pending').length;
  return { label: `Indexing ${subject}`, max: files.length, value: settled };
}

function ProgressBar({ files, subject }: { files: readonly BatchFile[]; subject: string }) {
  const progress = progressOf(files, subject);
  if (progress === null) return null;
  return (
    <progress
      className="upload-progress"
      aria-label={progress.label}
      max={progress.max}
      value={progress.value}
    />
  );
}

/** A file's status in words: its phase, why it was skipped or failed, or how many passages it gave. */
function statusWords(file: BatchFile): string {
  const word = phaseWords(file.phase);
  if (file.reason !== undefined) return `${word}: ${file.reason}`;
  if (file.phase === 'indexed' && file.chunks !== undefined) {
    return `${word} (${file.chunks} ${file.chunks === 1 ? 'passage' : 'passages'})`;
  }
  return word;
}

function OpenLink({ file }: { file: BatchFile }) {
  if (file.documentId === undefined || file.documentId === null || file.phase !== 'indexed') return null;
  return (
    <Link to={documentPath(file.documentId)} className="upload-open">
      Open<span className="visually-hidden"> {file.name}</span>
    </Link>
  );
}

/** One file chosen alone: its own line, with the progress bar while it is on its way. */
function SingleUpload({ file }: { file: BatchFile }) {
  return (
    <li className={`upload upload-${file.phase}`}>
      <span className="upload-name">{file.name}</span>
      <ProgressBar files={[file]} subject={file.name} />
      <span role="status" className={`upload-status status-${statusClass(file.phase)}`}>
        {statusWords(file)}
      </span>
      <OpenLink file={file} />
    </li>
  );
}

/** The colour class of a phase: not settled yet reads as pending. */
function statusClass(phase: FilePhase): string {
  return phase === 'waiting' || phase === 'uploading' ? 'pending' : phase;
}

/**
 * Several files chosen together, in one line of counts ("31 files: 30 indexed, 1 failed") with the
 * progress bar while they are on their way; the failed files stay listed under it with why, and
 * `Show details` lists every file.
 */
function BatchUpload({ files }: { files: readonly BatchFile[] }) {
  const [expanded, setExpanded] = useState(false);
  const summaryId = useId();
  const listId = useId();
  const phases = files.map((file) => file.phase);
  const failed = files.filter((file) => file.phase === 'failed');
  const summary = batchSummary(phases);
  return (
    <li className="upload-batch">
      <div className="upload-batch-line">
        <span
          id={summaryId}
          role="status"
          className={`upload-summary${failed.length > 0 ? ' upload-summary-failures' : ''}`}
        >
          {summary}
        </span>
        <button
          type="button"
          className="button-quiet upload-toggle"
          aria-expanded={expanded}
          aria-controls={listId}
          aria-describedby={summaryId}
          onClick={() => setExpanded((current) => !current)}
        >
          Show details
        </button>
      </div>
      <ProgressBar files={files} subject={`${files.length} files`} />
      {expanded || failed.length === 0 ? null : (
        <ul className="upload-failures" aria-label="Failed files">
          {failed.map((file) => (
            <li key={file.key} className="upload-failure">
              <span className="upload-name">{file.name}</span>{' '}
              <span className="status-failed">failed: {file.reason ?? 'no reason given'}</span>
            </li>
          ))}
        </ul>
      )}
      <ul id={listId} className="upload-files" aria-label={`The ${files.length} files`} hidden={!expanded}>
        {files.map((file) => (
          <li key={file.key} className={`upload upload-${file.phase}`}>
            <span className="upload-name">{file.name}</span>
            <span className={`upload-status status-${statusClass(file.phase)}`}>{statusWords(file)}</span>
            <OpenLink file={file} />
          </li>
        ))}
      </ul>
    </li>
  );
}
