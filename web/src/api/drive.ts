import { requestJson } from './http';
import type { QueuedJob } from './types';

/** One entry of a Drive folder (GET /v2/drive/browse). */
export interface DriveEntry {
  id: string;
  name: string;
  mime_type: string;
  is_folder: boolean;
  modified_time: string | null;
  size_bytes: number | null;
  url: string | null;
}

export interface DriveFolderPage {
  folder_id: string;
  files: DriveEntry[];
  next_page_token: string | null;
}

const bearerHeader = (accessToken: string) => ({ 'x-drive-authorization': `Bearer ${accessToken}` });

/** A page of a folder of the person's Drive, read by the service with their Google token. */
export function browseDrive(
  accessToken: string,
  folderId: string,
  pageToken: string | undefined,
  signal?: AbortSignal,
): Promise<DriveFolderPage> {
  return requestJson<DriveFolderPage>('GET', '/v2/drive/browse', {
    query: { folder_id: folderId, page_token: pageToken },
    headers: bearerHeader(accessToken),
    ...(signal === undefined ? {} : { signal }),
  });
}

/** The request's drive file (spec 2.4) for a picked entry: a folder stands for everything in it. */
function driveFile(entry: DriveEntry) {
  const edited = entry.modified_time === null ? Number.NaN : Date.parse(entry.modified_time);
  return {
    id: entry.id,
    serviceId: 'googledrive',
    name: entry.name,
    description: '',
    type: entry.is_folder ? 'folder' : entry.mime_type,
    lastEditedUtc: Number.isNaN(edited) ? 0 : edited,
    url: entry.url ?? '',
    sizeBytes: entry.size_bytes ?? 0,
    lastSyncedAt: null,
  };
}

/** POST /v2/drive/files: the picked files and folders indexed in the background; the job to follow. */
export async function indexDriveFiles(
  accessToken: string,
  picked: readonly DriveEntry[],
): Promise<QueuedJob> {
  // GET /v1/users/me answers the user_context as drive requests carry it (the service checks it is the caller's).
  const userContext = await requestJson<Record<string, unknown>>('GET', '/v1/users/me');
  return requestJson<QueuedJob>('POST', '/v2/drive/files', {
    headers: bearerHeader(accessToken),
    body: {
      files: picked.map(driveFile),
      user_context: userContext,
    },
  });
}
