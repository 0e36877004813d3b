import type { DocumentAccess } from '../../access.js';
import { DRIVE_FOLDER_MIME_TYPE, type DriveFile } from '../../adapters/google-drive/google-drive.js';
import { SourceError } from '../../adapters/source-error.js';
import type { DocumentFields, StoredDocumentState } from '../../db/repositories/documents.js';
import {
  deleteItem,
  extendItemPayload,
  type IndexJobItemRow,
  type IndexJobRow,
  listItems,
  setItemOutcome,
} from '../../db/repositories/index-jobs.js';
import { FileFailure } from '../document.js';
import { outcomeOfError } from '../file-outcome.js';
import type { IndexingDependencies } from '../indexing-dependencies.js';
import { isSupportedMimeType } from '../parse/parse-document.js';
import { driveAccess } from './drive-access.js';
import type { FetchedItem, IndexSource } from './index-source.js';
import { documentFieldsOf, recordListing } from './source-items.js';

/** Google exports each native format as the text we index best ("markdown where available"). */
const EXPORT_AS: Readonly<Record<string, string>> = {
  'application/vnd.google-apps.document': 'text/markdown',
  'application/vnd.google-apps.spreadsheet': 'text/csv',
  'application/vnd.google-apps.presentation': 'text/plain',
};

/** Google refuses exports over 10 MB (`exportSizeLimitExceeded`). */
const GOOGLE_EXPORT_LIMIT_BYTES = 10 * 1024 * 1024;

/** Most files one requested folder may expand to; past it the folder fails rather than flood the queue. */
export const MAX_FILES_PER_FOLDER = 50_000;

/** What a Drive item's payload holds once expanded. */
interface DrivePayload {
  /** The entry as the request named it (spec 2.4). */
  readonly requested?: { readonly type?: string; readonly url?: string };
  readonly meta?: DriveFile;
  /** The requested folder this file was found in. */
  readonly origin?: string;
}

/** Files and folders picked in Google Drive, fetched with the caller's token. */
export class DriveSource implements IndexSource {
  constructor(private readonly deps: Pick<IndexingDependencies, 'sql' | 'secrets' | 'drive' | 'limits'>) {}

  private token(job: IndexJobRow): string {
    if (job.secretsSealed === null) {
      throw new FileFailure('permission_denied', 'The Drive access token of this job is no longer stored');
    }
    return this.deps.secrets.open(job.secretsSealed);
  }

  async expand(job: IndexJobRow, signal: AbortSignal): Promise<void> {
    const { sql, drive } = this.deps;
    const token = this.token(job);
    const requested = (await listItems(sql, job.id, ['queued', 'indexing'])).filter(
      (item) => (item.payload as DrivePayload).origin === undefined,
    );
    for (const item of requested) {
      let meta: DriveFile;
      try {
        meta = await drive.getFile(token, item.externalId, signal);
      } catch (error) {
        // A file we cannot read fails in the fetch stage, which asks again; only folders matter here.
        if (error instanceof SourceError && !error.retryable) continue;
        throw error;
      }
      if (meta.mimeType !== DRIVE_FOLDER_MIME_TYPE) {
        await extendItemPayload(sql, job.id, item.externalId, { meta }, meta.name);
        continue;
      }
      let files: DriveFile[];
      try {
        files = await this.listRecursively(token, meta.id, signal);
      } catch (error) {
        const outcome = outcomeOfError(error);
        if (outcome.kind === 'retry' || outcome.reason === 'internal_error') throw error;
        await setItemOutcome(sql, job.id, item.externalId, {
          status: outcome.status,
          reason: outcome.reason,
          message: `The folder could not be listed: ${outcome.message}`,
        });
        continue;
      }
      await recordListing(
        sql,
        job,
        'googledrive',
        files.map((file) => ({
          externalId: file.id,
          name: file.name,
          payload: { meta: file, origin: meta.id } satisfies DrivePayload,
        })),
        meta.id,
      );
      // The folder itself is not a document: its files stand in for it.
      await deleteItem(sql, job.id, item.externalId);
    }
  }

  /** Every file under a folder, subfolders included, each page of each listing followed. */
  private async listRecursively(token: string, folderId: string, signal: AbortSignal): Promise<DriveFile[]> {
    const files = new Map<string, DriveFile>();
    const visited = new Set<string>([folderId]);
    const pending = [folderId];
    while (pending.length > 0) {
      const folder = pending.shift() as string;
      let pageToken: string | undefined;
      do {
        const page = await this.deps.drive.listFolder(token, folder, pageToken, signal);
        for (const file of page.files) {
          if (file.trashed) continue;
          if (file.mimeType === DRIVE_FOLDER_MIME_TYPE) {
            // A folder can sit in several parents: list it once.
            if (!visited.has(file.id)) {
              visited.add(file.id);
              pending.push(file.id);
            }
          } else {
            files.set(file.id, file);
          }
        }
        if (files.size > MAX_FILES_PER_FOLDER) {
          throw new FileFailure('too_large', `The folder holds more than ${MAX_FILES_PER_FOLDER} files`);
        }
        pageToken = page.nextPageToken;
      } while (pageToken !== undefined);
    }
    return [...files.values()];
  }

  /**
   * Who may open it is what the listing (or `files.get`) said of its permissions; without them (a
   * shared drive, a file the user may not share) only the indexing user, until `fetch` asks Drive.
   */
  fields(job: IndexJobRow, item: IndexJobItemRow): DocumentFields {
    const payload = item.payload as DrivePayload;
    return this.fieldsWithAccess(
      job,
      item,
      driveAccess(payload.meta?.permissions, job.requestedByEmail, job.requestedBy),
    );
  }

  private fieldsWithAccess(job: IndexJobRow, item: IndexJobItemRow, access: DocumentAccess): DocumentFields {
    const payload = item.payload as DrivePayload;
    const meta = payload.meta;
    return documentFieldsOf(job, item, 'googledrive', {
      title: meta?.name ?? item.name,
      url: meta?.webViewLink ?? payload.requested?.url ?? null,
      mimeType: meta?.mimeType ?? null,
      sourceVersion: meta === undefined ? null : driveVersion(meta),
      sourceModifiedAt: meta?.modifiedTime === undefined ? null : new Date(meta.modifiedTime),
      originId: payload.origin ?? null,
      metadata: meta?.driveId === undefined ? {} : { drive_id: meta.driveId },
      access,
      // Whose token read it.
      indexedBy: job.requestedBy,
    });
  }

  /**
   * Who may open the file now: its permissions as the listing or `files.get` gave them, else (a
   * shared drive, a file the user may not share) as `permissions.list` gives them. Permissions
   * Drive will not show (403, 404) leave the indexing user alone; other failures are thrown, to
   * be retried or recorded as any other call's.
   */
  private async accessOf(
    token: string,
    job: IndexJobRow,
    meta: DriveFile,
    signal: AbortSignal,
  ): Promise<DocumentAccess> {
    if (meta.permissions !== undefined)
      return driveAccess(meta.permissions, job.requestedByEmail, job.requestedBy);
    try {
      return driveAccess(
        await this.deps.drive.listPermissions(token, meta.id, signal),
        job.requestedByEmail,
        job.requestedBy,
      );
    } catch (error) {
      if (
        error instanceof SourceError &&
        (error.failure === 'permission_denied' || error.failure === 'not_found')
      ) {
        return driveAccess(undefined, job.requestedByEmail, job.requestedBy);
      }
      throw error;
    }
  }

  async fetch(
    job: IndexJobRow,
    item: IndexJobItemRow,
    stored: StoredDocumentState | undefined,
    signal: AbortSignal,
  ): Promise<FetchedItem> {
    const { drive, limits } = this.deps;
    const token = this.token(job);
    const payload = item.payload as DrivePayload;
    const meta = payload.meta ?? (await drive.getFile(token, item.externalId, signal));
    if (meta.mimeType === DRIVE_FOLDER_MIME_TYPE) {
      throw new FileFailure('unsupported_type', 'A folder inside the selection was listed on its own');
    }
    const exportAs = EXPORT_AS[meta.mimeType];
    if (exportAs === undefined && !isSupportedMimeType(meta.mimeType, meta.name)) {
      throw new FileFailure('unsupported_type', `Files of type ${meta.mimeType} are not indexed`);
    }
    // Read for unchanged files too: sharing changes leave modifiedTime as it was.
    const access = await this.accessOf(token, job, meta, signal);
    const fields = this.fieldsWithAccess(job, { ...item, payload: { ...payload, meta } }, access);
    // Unchanged modification time and checksum: the content is what we already have.
    if (stored?.contentHash != null && stored.sourceVersion === fields.sourceVersion) {
      return { kind: 'unchanged', fields };
    }
    if (exportAs !== undefined) {
      const bytes = await drive.exportFile(
        token,
        meta.id,
        exportAs,
        Math.min(GOOGLE_EXPORT_LIMIT_BYTES, limits.maxFileBytes),
        signal,
      );
      return { kind: 'content', fields, mimeType: exportAs, bytes, fileName: meta.name };
    }
    if (meta.size !== undefined && meta.size > limits.maxFileBytes) {
      throw new FileFailure(
        'too_large',
        `The file has ${meta.size} bytes; the limit is ${limits.maxFileBytes} (INDEX_MAX_FILE_BYTES)`,
      );
    }
    const bytes = await drive.downloadFile(token, meta.id, limits.maxFileBytes, signal);
    return { kind: 'content', fields, mimeType: meta.mimeType, bytes, fileName: meta.name };
  }
}

/** Drive's change marker: a new modification time or checksum means new content. */
function driveVersion(meta: DriveFile): string {
  return `${meta.modifiedTime ?? ''}|${meta.md5Checksum ?? ''}`;
}
