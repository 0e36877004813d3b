import { type DragEvent, useEffect, useId, useRef, useState } from 'react';
import { getUploadJob, uploadFile } from '../api/documents';
import { ApiError, describeError, isAbort } from '../api/http';
import type { IndexJob, UploadVisibility } from '../api/types';
import { outcomeWords, type StatusWord, statusWord } from '../format/status-words';
import { createLimiter } from '../lib/limiter';
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

interface Upload {
  id: string;
  fileName: string;
  phase: 'waiting' | 'uploading' | 'indexing' | 'settled';
  sentBytes: number;
  totalBytes: number;
  /** Once settled: the status word and the outcome in words. */
  word?: StatusWord;
  outcome?: string;
  documentId?: number | null;
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

/** Polls an upload's job until it is done, riding out a moment without the service. */
async function settledJob(resultId: string, signal: AbortSignal): Promise<IndexJob> {
  while (true) {
    try {
      const job = await getUploadJob(resultId, signal);
      if (job.result_ready) return job;
      await sleep(POLL_INTERVAL_MS, signal);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 503 && error.status !== 0)) throw error;
      await sleep(POLL_RETRY_MS, signal);
    }
  }
}

/**
 * Choose who may open them (the whole team, or only the uploader), then pick or drop files: each
 * uploads on its own request (so each has its own progress bar, named by the file), then shows its indexing status, polled from its job until indexed, skipped or failed.
 */
export function UploadPanel({ onSettled }: { onSettled: () => void }) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  /** Who may open the files picked or dropped from now on. */
  const [visibility, setVisibility] = useState<UploadVisibility>('team');
  const lifetime = useRef(new AbortController());
  const limiter = useRef(createLimiter(3));
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

  function update(id: string, change: Partial<Upload>) {
    setUploads((current) => current.map((upload) => (upload.id === id ? { ...upload, ...change } : upload)));
  }

  async function run(id: string, file: File, chosen: UploadVisibility) {
    const signal = lifetime.current.signal;
    try {
      const job = await limiter.current(() => {
        update(id, { phase: 'uploading' });
        return uploadFile(
          file,
          chosen,
          (sentBytes, totalBytes) => update(id, { sentBytes, totalBytes }),
          signal,
        );
      });
      update(id, { phase: 'indexing', sentBytes: file.size, totalBytes: file.size });
      const settled = await settledJob(job.result_id, signal);
      const outcome = settled.files.find((entry) => entry.name === file.name) ?? settled.files[0];
      if (outcome === undefined) {
        const word = statusWord(settled.status === 'failed' ? 'failed' : 'indexed');
        update(id, {
          phase: 'settled',
          word,
          outcome: settled.error === null ? word : `${word}: ${settled.error}`,
        });
      } else {
        const word = statusWord(outcome.status);
        const words = outcomeWords(outcome.status, outcome.reason, outcome.message ?? settled.error);
        const chunks =
          word === 'indexed' ? ` (${outcome.chunks} ${outcome.chunks === 1 ? 'passage' : 'passages'})` : '';
        update(id, { phase: 'settled', word, outcome: words + chunks, documentId: outcome.document_id });
      }
      onSettled();
    } catch (error) {
      if (isAbort(error)) return;
      update(id, { phase: 'settled', word: 'failed', outcome: `failed: ${describeError(error)}` });
    }
  }

  function addFiles(files: FileList | null) {
    if (files === null || files.length === 0) return;
    const added = Array.from(files, (file) => {
      counter.current += 1;
      return { file, id: `${idPrefix}-${counter.current}` };
    });
    setUploads((current) => [
      ...added.map(({ file, id }) => ({
        id,
        fileName: file.name,
        phase: 'waiting' as const,
        sentBytes: 0,
        totalBytes: file.size,
      })),
      ...current,
    ]);
    for (const { file, id } of added) void run(id, file, visibility);
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
      {uploads.length === 0 ? null : (
        <ul className="uploads" aria-label="Uploads">
          {uploads.map((upload) => (
            <UploadRow key={upload.id} upload={upload} />
          ))}
        </ul>
      )}
    </div>
  );
}

function UploadRow({ upload }: { upload: Upload }) {
  const nameId = useId();
  const status =
    upload.phase === 'waiting'
      ? 'waiting to upload'
      : upload.phase === 'uploading'
        ? 'uploading'
        : upload.phase === 'indexing'
          ? 'pending'
          : (upload.outcome ?? upload.word ?? 'pending');
  return (
    <li className="upload">
      <span id={nameId} className="upload-name">
        {upload.fileName}
      </span>
      <progress
        aria-labelledby={nameId}
        max={Math.max(upload.totalBytes, 1)}
        value={upload.phase === 'waiting' ? 0 : upload.sentBytes}
      />
      <span role="status" className={`upload-status status-${upload.word ?? 'pending'}`}>
        {status}
      </span>
      {upload.documentId === undefined || upload.documentId === null || upload.word !== 'indexed' ? null : (
        <Link to={documentPath(upload.documentId)} className="upload-open">
          Open<span className="visually-hidden"> {upload.fileName}</span>
        </Link>
      )}
    </li>
  );
}
