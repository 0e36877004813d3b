import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** One document as `POST /v1/documents` takes it. */
export interface UploadDocument {
  readonly external_id: string;
  readonly title: string;
  readonly text: string;
  readonly url?: string | null;
  readonly metadata?: Record<string, unknown> | null;
}

export type JsonlRecord =
  | { readonly kind: 'document'; readonly line: number; readonly document: UploadDocument }
  | { readonly kind: 'invalid'; readonly line: number; readonly id: string | null; readonly message: string };

// The server's limits (documents.route.ts): checked here so one bad line fails alone instead of
// making the server refuse its whole batch.
const MAX_EXTERNAL_ID_CHARS = 512;
const MAX_TITLE_CHARS = 2048;
const MAX_URL_CHARS = 4096;

const BLANK = /^\s*$/;

/**
 * Streams a JSONL file's documents, one line at a time. Takes the upload shape (`external_id`,
 * `title`, `text`, `url`, `metadata`) and BEIR's corpus shape (`_id` for `external_id`). Blank
 * lines are ignored; a bad line, or an id already seen on an earlier line, comes out as `invalid`.
 */
export async function* readJsonlDocuments(
  path: string,
  options: { readonly externalIdPrefix: string },
): AsyncGenerator<JsonlRecord> {
  const firstLineOf = new Map<string, number>();
  const input = createReadStream(path);
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of lines) {
      line += 1;
      if (BLANK.test(text)) continue;
      const parsed = documentFromLine(
        line === 1 ? text.replace(/^\uFEFF/, '') : text,
        options.externalIdPrefix,
      );
      if (typeof parsed === 'string') {
        yield { kind: 'invalid', line, id: null, message: parsed };
        continue;
      }
      const earlier = firstLineOf.get(parsed.external_id);
      if (earlier !== undefined) {
        yield {
          kind: 'invalid',
          line,
          id: parsed.external_id,
          message: `external_id "${parsed.external_id}" is also on line ${earlier}`,
        };
        continue;
      }
      firstLineOf.set(parsed.external_id, line);
      yield { kind: 'document', line, document: parsed };
    }
  } finally {
    // Also when the consumer stops early: the file is not left open.
    lines.close();
    input.destroy();
  }
}

/** One line as a document, or what is wrong with it. */
export function documentFromLine(text: string, externalIdPrefix: string): UploadDocument | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const record = value as Record<string, unknown>;
  const rawId = record.external_id ?? record._id;
  if (typeof rawId !== 'string' && typeof rawId !== 'number') {
    return 'no "external_id" (or BEIR "_id") string';
  }
  const id = String(rawId);
  if (id === '') return '"external_id" is empty';
  const externalId = `${externalIdPrefix}${id}`;
  if (externalId.length > MAX_EXTERNAL_ID_CHARS) {
    return `"external_id" is longer than ${MAX_EXTERNAL_ID_CHARS} characters`;
  }
  const { title, text: body, url, metadata } = record;
  if (title !== undefined && title !== null && typeof title !== 'string') return '"title" is not a string';
  if (typeof body !== 'string') return '"text" is missing or not a string';
  if (body === '') return '"text" is empty';
  if (url !== undefined && url !== null && (typeof url !== 'string' || url.length > MAX_URL_CHARS)) {
    return `"url" is not a string of at most ${MAX_URL_CHARS} characters`;
  }
  if (
    metadata !== undefined &&
    metadata !== null &&
    (typeof metadata !== 'object' || Array.isArray(metadata))
  ) {
    return '"metadata" is not an object';
  }
  const named = typeof title === 'string' && title.trim() !== '' ? title : id;
  return {
    external_id: externalId,
    // A long title is still a title: shortened rather than refused.
    title: named.length > MAX_TITLE_CHARS ? `${named.slice(0, MAX_TITLE_CHARS - 1)}…` : named,
    text: body,
    ...(typeof url === 'string' ? { url } : {}),
    ...(metadata === undefined || metadata === null ? {} : { metadata: metadata as Record<string, unknown> }),
  };
}

/** How many non-blank lines a file has (what `readJsonlDocuments` yields), read in large chunks. */
export async function countJsonlRecords(path: string): Promise<number> {
  let records = 0;
  let lineHasContent = false;
  const chunks = createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>;
  for await (const chunk of chunks) {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      // A line's first bytes settle it almost always (`{`): the cost is per line, not per byte.
      if (!lineHasContent) lineHasContent = hasContent(chunk, start, end);
      if (newline === -1) break;
      if (lineHasContent) records += 1;
      lineHasContent = false;
      start = newline + 1;
    }
  }
  return lineHasContent ? records + 1 : records;
}

function hasContent(bytes: Buffer, start: number, end: number): boolean {
  for (let index = start; index < end; index += 1) {
    const byte = bytes[index];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return true;
  }
  return false;
}
