import { ApiError, describeError } from '../api/http';
import type { QueuedJob } from '../api/types';
import { tooLargeWords, UNREADABLE_TYPE_WORDS } from '../format/upload-words';

/** What one multipart request to POST /v1/documents may carry. */
export interface UploadLimits {
  /** Files per request. */
  readonly files: number;
  /** Bytes of all its files together. */
  readonly bytes: number;
  /** Whether `bytes` is the service's own word (a 413's) rather than its documented default. */
  readonly bytesStated: boolean;
}

/**
 * What the service takes per request until it says otherwise: its 100 files (UPLOAD_MAX_FILES) and
 * its default 32 MiB (UPLOAD_MAX_BYTES). No endpoint states the configured byte limit, so the number
 * in a 413's detail teaches it; until then the default only shapes the requests (a batch of big files
 * is not sent whole only to be refused) and refuses no file.
 */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  files: 100,
  bytes: 32 * 1024 * 1024,
  bytesStated: false,
};

export interface SizedFile {
  readonly name: string;
  readonly size: number;
}

const UNIT_BYTES: Readonly<Record<string, number>> = {
  byte: 1,
  bytes: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
};

/** The byte limit a 413's detail names ("… larger than the 32 MiB limit (UPLOAD_MAX_BYTES)"), if it names one. */
export function byteLimitOf(detail: string): number | undefined {
  const match = /larger than the (\d[\d,]*(?:\.\d+)?)\s*(bytes?|[kmg]i?b)\b/i.exec(detail);
  if (match === null) return undefined;
  const unit = UNIT_BYTES[(match[2] ?? '').toLowerCase()];
  const value = Number((match[1] ?? '').replaceAll(',', ''));
  if (unit === undefined || !Number.isFinite(value) || value <= 0) return undefined;
  return Math.floor(value * unit);
}

/** The limits after a 413: the byte or file count it names replaces the assumed one. */
export function limitsAfterRefusal(limits: UploadLimits, detail: string): UploadLimits {
  const bytes = byteLimitOf(detail);
  const files = /at most (\d+) files per request/i.exec(detail);
  const fileLimit = files === null ? undefined : Number(files[1]);
  return {
    files: fileLimit !== undefined && fileLimit >= 1 ? Math.min(fileLimit, limits.files) : limits.files,
    bytes: bytes ?? limits.bytes,
    bytesStated: bytes !== undefined || limits.bytesStated,
  };
}

/**
 * Files grouped into as few requests as the limits allow: first fit, largest first, each request's
 * files in the order they were chosen. Files over a stated byte limit go in no request (`tooLarge`);
 * a file over the assumed one goes alone, and the service decides.
 */
export function planRequests<T extends SizedFile>(
  files: readonly T[],
  limits: UploadLimits,
): { requests: T[][]; tooLarge: T[] } {
  const tooLarge: { file: T; index: number }[] = [];
  const bins: { entries: { file: T; index: number }[]; bytes: number }[] = [];
  const largestFirst = files
    .map((file, index) => ({ file, index }))
    .sort((a, b) => b.file.size - a.file.size || a.index - b.index);
  for (const entry of largestFirst) {
    const { size } = entry.file;
    if (limits.bytesStated && size > limits.bytes) {
      tooLarge.push(entry);
      continue;
    }
    const bin = bins.find(
      (candidate) => candidate.entries.length < limits.files && candidate.bytes + size <= limits.bytes,
    );
    if (bin === undefined) bins.push({ entries: [entry], bytes: size });
    else {
      bin.entries.push(entry);
      bin.bytes += size;
    }
  }
  const chosenOrder = (a: { index: number }, b: { index: number }) => a.index - b.index;
  const requests = bins
    .map((bin) => bin.entries.sort(chosenOrder))
    .sort((a, b) => (a[0]?.index ?? 0) - (b[0]?.index ?? 0))
    .map((entries) => entries.map((entry) => entry.file));
  return { requests, tooLarge: tooLarge.sort(chosenOrder).map((entry) => entry.file) };
}

/**
 * The file a 415 is about: its detail begins with the refused file's name ("notes.exe (…) is not a
 * document type this service reads…"). The longest name that fits, so a file named "notes" is not taken for "notes (2).exe".
 */
export function refusedFileOf<T extends SizedFile>(files: readonly T[], detail: string): T | undefined {
  let found: T | undefined;
  for (const file of files) {
    if (
      detail.startsWith(`${file.name} (`) &&
      (found === undefined || file.name.length > found.name.length)
    ) {
      found = file;
    }
  }
  return found;
}

export interface RequestSender<T extends SizedFile> {
  /** The limits so far, shared by every batch of the page: what one 413 teaches, later batches know. */
  readonly limits: { current: UploadLimits };
  /** Sends one request with `files`; `onProgress` gets the share of it sent (0 to 1). */
  send(files: readonly T[], onProgress: (share: number) => void): Promise<QueuedJob>;
  /** Runs a request when its turn comes (a few at a time across batches). */
  turn<R>(task: () => Promise<R>): Promise<R>;
}

export interface RequestEvents<T extends SizedFile> {
  /** A request with these files is on its way. */
  sending(files: readonly T[]): void;
  progress(files: readonly T[], share: number): void;
  /** The service took them: one job for all of them. */
  queued(files: readonly T[], job: QueuedJob): void;
  /** Files that were not taken, and why, in words for people. */
  refused(files: readonly T[], words: string): void;
}

function halves<T>(files: readonly T[]): T[][] {
  const middle = Math.ceil(files.length / 2);
  return [files.slice(0, middle), files.slice(middle)];
}

/**
 * Sends files chosen together in as few requests as the service takes. A 413 teaches its limits and
 * the request is planned again (in halves when it teaches nothing), down to the one file that is too
 * large; a 415 drops the file it names (or halves, when it names none) and the others go on. Any
 * other refusal is every file of its request's. An abort rejects, the rest of the batch unsent.
 */
export async function sendInRequests<T extends SizedFile>(
  files: readonly T[],
  sender: RequestSender<T>,
  events: RequestEvents<T>,
): Promise<void> {
  async function sendAll(group: readonly T[]): Promise<void> {
    const { requests, tooLarge } = planRequests(group, sender.limits.current);
    if (tooLarge.length > 0) events.refused(tooLarge, tooLargeWords(sender.limits.current.bytes));
    await Promise.all(requests.map(sendOne));
  }

  async function sendOne(group: readonly T[]): Promise<void> {
    let job: QueuedJob;
    try {
      job = await sender.turn(() => {
        events.sending(group);
        return sender.send(group, (share) => events.progress(group, share));
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      await afterRefusal(group, error);
      return;
    }
    events.queued(group, job);
  }

  async function afterRefusal(group: readonly T[], error: ApiError): Promise<void> {
    if (error.status === 413) {
      const before = sender.limits.current;
      sender.limits.current = limitsAfterRefusal(before, error.detail);
      const learned = sender.limits.current;
      if (group.length === 1) {
        events.refused(group, tooLargeWords(learned.bytesStated ? learned.bytes : undefined));
        return;
      }
      const taughtSomething = learned.bytes !== before.bytes || learned.files !== before.files;
      const again = planRequests(group, learned);
      if (taughtSomething && (again.requests.length > 1 || again.tooLarge.length > 0)) {
        await sendAll(group);
        return;
      }
      await Promise.all(halves(group).map(sendOne));
      return;
    }
    if (error.status === 415) {
      const refused = group.length === 1 ? group[0] : refusedFileOf(group, error.detail);
      if (refused === undefined) {
        await Promise.all(halves(group).map(sendOne));
        return;
      }
      events.refused([refused], UNREADABLE_TYPE_WORDS);
      const others = group.filter((file) => file !== refused);
      if (others.length > 0) await sendOne(others);
      return;
    }
    events.refused(group, describeError(error));
  }

  await sendAll(files);
}

/**
 * Each file's entry in its request's job: by name (the service names an uploaded file by its file
 * name), then the files it names otherwise (a name it stored differently) paired in order with the
 * entries left over.
 */
export function jobEntriesFor<E extends { readonly name: string }>(
  names: readonly string[],
  entries: readonly E[],
): (E | undefined)[] {
  const unclaimed = new Set(entries);
  const matched = names.map((name) => {
    const entry = entries.find((candidate) => candidate.name === name && unclaimed.has(candidate));
    if (entry !== undefined) unclaimed.delete(entry);
    return entry;
  });
  const leftOver = [...unclaimed];
  return matched.map((entry) => entry ?? leftOver.shift());
}
