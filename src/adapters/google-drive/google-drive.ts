/** A Drive file's metadata as `files.get` / `files.list` report it (only the fields we ask for). */
export interface DriveFile {
  readonly id: string;
  readonly name: string;
  /** The real MIME type; `application/vnd.google-apps.folder` for folders. */
  readonly mimeType: string;
  /** RFC 3339, e.g. `2026-01-02T03:04:05.000Z`. */
  readonly modifiedTime: string | undefined;
  /** Bytes; Google-native files (Docs, Sheets, Slides) have none. */
  readonly size: number | undefined;
  /** Binary files only. */
  readonly md5Checksum: string | undefined;
  readonly webViewLink: string | undefined;
  /** Set for files on a shared drive. */
  readonly driveId: string | undefined;
  readonly trashed: boolean;
  /**
   * Who the file is shared with; undefined when Drive did not say: it never does for items on a
   * shared drive, nor for files the user may not share (then ask `listPermissions`).
   */
  readonly permissions: readonly DrivePermission[] | undefined;
}

/** One grant of a file's sharing (`permissions(type,emailAddress,domain,role,allowFileDiscovery)`). */
export interface DrivePermission {
  readonly type: 'user' | 'group' | 'domain' | 'anyone';
  /** `user` and `group` grants. */
  readonly emailAddress?: string;
  /** `domain` grants. */
  readonly domain?: string;
  /** `owner`, `organizer`, `fileOrganizer`, `writer`, `commenter`, `reader`: each may open the file. */
  readonly role: string;
  /**
   * `domain` and `anyone` grants: true when the file can be found by search; false for a
   * link-only share (whoever has the link may open it, but nobody is told of it).
   */
  readonly allowFileDiscovery?: boolean;
}

export interface DriveFolderPage {
  readonly files: readonly DriveFile[];
  /** Undefined on the last page. */
  readonly nextPageToken: string | undefined;
}

export const DRIVE_FOLDER_MIME_TYPE = 'application/vnd.google-apps.folder';

/**
 * Google Drive v3 with the caller's OAuth access token. Every method throws `SourceError`
 * (../source-error.ts): 401 `unauthorized`, 403 `permission_denied` (but rate-limit reasons are
 * `rate_limited` and `exportSizeLimitExceeded` is `too_large`), 404 `not_found`, 429 `rate_limited`
 * with `retryAfterSeconds`, 5xx `unavailable`, time-outs `timeout`.
 */
export interface GoogleDrive {
  /** `files.get` with `supportsAllDrives`. */
  getFile(accessToken: string, fileId: string, signal?: AbortSignal): Promise<DriveFile>;
  /**
   * One page of a folder's children that are not trashed (`files.list`, `q: '<id>' in parents`,
   * shared drives included).
   */
  listFolder(
    accessToken: string,
    folderId: string,
    pageToken: string | undefined,
    signal?: AbortSignal,
  ): Promise<DriveFolderPage>;
  /** `files.export` of a Google-native file; over `maxBytes` (or Google's own cap) is `too_large`. */
  exportFile(
    accessToken: string,
    fileId: string,
    mimeType: string,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<Uint8Array>;
  /** `files.get` with `alt=media`; over `maxBytes` is `too_large` (checked while reading). */
  downloadFile(
    accessToken: string,
    fileId: string,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<Uint8Array>;
  /**
   * Every grant of a file (`permissions.list` with `supportsAllDrives`, each page followed): the
   * way to a shared-drive item's sharing, which `getFile` and `listFolder` do not carry. A user
   * who may not see the sharing gets `permission_denied`.
   */
  listPermissions(
    accessToken: string,
    fileId: string,
    signal?: AbortSignal,
  ): Promise<readonly DrivePermission[]>;
}
