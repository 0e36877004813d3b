import { DRIVE_FOLDER_MIME_TYPE, type DriveFile } from '../adapters/google-drive/google-drive.js';
import { SourceError } from '../adapters/source-error.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';

/** The root of the caller's own Drive, as Drive's API names it. */
export const MY_DRIVE_FOLDER_ID = 'root';

/** One entry of a Drive folder as the file chooser shows it (and `POST /v2/drive/files` takes it). */
export interface DriveEntryView {
  readonly id: string;
  readonly name: string;
  readonly mime_type: string;
  readonly is_folder: boolean;
  readonly modified_time: string | null;
  readonly size_bytes: number | null;
  readonly url: string | null;
}

export interface DriveFolderView {
  readonly folder_id: string;
  /** Folders first, then files, each by name (within this page: Drive pages in its own order). */
  readonly files: DriveEntryView[];
  readonly next_page_token: string | null;
}

/**
 * One page of a folder of the caller's Drive, read with the caller's own Google access token: the
 * web app's chooser browses through the service, so the browser talks to no other origin. The
 * token is used for this one request and kept nowhere.
 */
export async function browseDriveFolder(
  deps: ServiceDependencies,
  input: { accessToken: string; folderId: string; pageToken: string | undefined },
  signal?: AbortSignal,
): Promise<DriveFolderView> {
  try {
    const page = await deps.drive.listFolder(input.accessToken, input.folderId, input.pageToken, signal);
    return {
      folder_id: input.folderId,
      files: page.files.map(entryView).sort(foldersFirstByName),
      next_page_token: page.nextPageToken ?? null,
    };
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    throw browseError(error, input.folderId);
  }
}

function entryView(file: DriveFile): DriveEntryView {
  return {
    id: file.id,
    name: file.name,
    mime_type: file.mimeType,
    is_folder: file.mimeType === DRIVE_FOLDER_MIME_TYPE,
    modified_time: file.modifiedTime ?? null,
    size_bytes: file.size ?? null,
    url: file.webViewLink ?? null,
  };
}

const byName = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

function foldersFirstByName(a: DriveEntryView, b: DriveEntryView): number {
  if (a.is_folder !== b.is_folder) return a.is_folder ? -1 : 1;
  return byName.compare(a.name, b.name);
}

/** Drive's refusal in words; a rejected token is not a 401 of ours (the caller's session is fine). */
function browseError(error: SourceError, folderId: string): ServiceError {
  switch (error.failure) {
    case 'unauthorized':
      return new ServiceError(
        'bad_request',
        'Google Drive did not accept the access token in x-drive-authorization (expired or revoked): connect Google Drive again',
      );
    case 'permission_denied':
      return new ServiceError('forbidden', `Google Drive refused access to folder ${folderId}`);
    case 'not_found':
      return new ServiceError('not_found', `Google Drive has no folder ${folderId} that this token can see`);
    case 'rate_limited':
      return new ServiceError('too_many_requests', 'Google Drive asked to slow down; try again shortly', {
        retryable: true,
        retryAfterSeconds: error.retryAfterSeconds ?? 5,
      });
    case 'timeout':
      return new ServiceError('gateway_timeout', 'Google Drive did not answer in time', { retryable: true });
    default:
      return new ServiceError('bad_gateway', `Google Drive could not list the folder: ${error.message}`, {
        retryable: error.retryable,
      });
  }
}
