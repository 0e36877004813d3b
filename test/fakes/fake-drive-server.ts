import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalHttpServer, sendJson } from './local-http-server.js';

/**
 * A local stand-in for the Google Drive v3 REST API, speaking the wire format `@googleapis/drive`
 * uses, so the real client (and the whole service, with `GOOGLE_DRIVE_API_URL` set to `url`) can
 * be pointed at it.
 *
 * Routes (all `GET`, all need `Authorization: Bearer <token>` with a token the fake knows, else
 * 401 in Google's error shape):
 * - `/drive/v3/files/{id}`: the file's metadata as JSON, trimmed to the `fields` mask (Google's
 *   default `kind,id,name,mimeType` without one); with `alt=media`, the bytes of a binary file
 *   (403 `fileNotDownloadable` for Google-native files), sent with `Content-Length`.
 * - `/drive/v3/files?q=…`: one page of a folder's children. `q` must have the form
 *   `'<id>' in parents` optionally followed by `and trashed = false` (or `true`), with `\'` and
 *   `\\` escapes in the id; anything else is a 400 `invalid`. `pageSize` (default 100, at most
 *   1000, or the `setPageSize` override) and `pageToken` / `nextPageToken` page through children in
 *   the order they were added. Shared-drive items are listed only with
 *   `includeItemsFromAllDrives=true&supportsAllDrives=true`; `corpora=drive` also needs `driveId`.
 * - `/drive/v3/files/{id}/permissions`: `permissions.list`, one page of the file's permissions
 *   (`pageSize`: all of them without it, at most 100, or the `setPageSize` override; `pageToken` /
 *   `nextPageToken`), trimmed to `fields`; a 403 `insufficientFilePermissions` for a file added with
 *   `canShare: false`.
 * - `/drive/v3/files/{id}/export?mimeType=…`: a Google-native file's text: Docs as `text/plain` or
 *   `text/markdown`, Sheets as `text/csv`, Slides as `text/plain` (the stored `content`), or any
 *   MIME type the file's `exports` map names. Another MIME type is a 400 like Google's, a binary
 *   file a 403 `fileNotExportable`, more than 10 MB a 403 `exportSizeLimitExceeded`. Sent chunked,
 *   without `Content-Length`, as Google streams exports.
 *
 * Files on a shared drive (a `driveId`, inherited from the first parent unless given) are 404 to
 * requests without `supportsAllDrives=true`, as on Google.
 *
 * Sharing: every item has its own permissions (`permissions` when added, else one grant to
 * `ownerEmail`: `owner` in My Drive, `organizer` on a shared drive; nothing is inherited from
 * folders). `files.get` and `files.list` include them under `permissions` (when the `fields` mask
 * asks) only for items NOT on a shared drive and only when the user may share the item, as Google
 * does; `permissions.list` serves them for every item the user may share. Changing them
 * (`setPermissions`, `share`, `unshare`) leaves `modifiedTime` alone, as on Google. Trashed files stay readable by id; removed
 * ones are 404. Google-native files have no `size` or `md5Checksum`; binary files have both.
 *
 * Test controls: `addFolder`, `addSharedDrive`, `addFile`, `updateFile`, `trash`, `removeFile`;
 * `setPermissions`, `share`, `unshare`, `permissionsOf`, `setCanShare`;
 * `failNext` (scripted errors: a status, a reason, `Retry-After`, how many times), `deliverNext`
 * (slow answers, no `Content-Length`), `setPageSize`; `addAccessToken` / `revokeAccessToken`;
 * `requests` (every request, with its route, file id, whether the token matched, the status sent,
 * the body bytes written and whether the client hung up before the end), `contentRequests(fileId)`,
 * `clearRecords`; `fileResource(id)`; `close`.
 *
 * ```ts
 * const drive = await FakeDriveServer.start(); // env GOOGLE_DRIVE_API_URL = drive.url
 * const folder = drive.addFolder({ name: 'Handbook' });
 * const doc = drive.addFile({
 *   name: 'Onboarding', mimeType: DRIVE_MIME_TYPES.document, content: '# Hi', parents: [folder],
 * });
 * drive.failNext(doc, { status: 429, retryAfter: 1 }); // once, then it exports
 * // … run the indexing job with drive.accessToken as the user's Google token …
 * expect(drive.contentRequests(doc)).toHaveLength(2);
 * ```
 */

export const DRIVE_MIME_TYPES = {
  folder: 'application/vnd.google-apps.folder',
  document: 'application/vnd.google-apps.document',
  spreadsheet: 'application/vnd.google-apps.spreadsheet',
  presentation: 'application/vnd.google-apps.presentation',
} as const;

/** Drive refuses to export more than this (its documented 10 MB cap). */
export const DRIVE_EXPORT_LIMIT_BYTES = 10 * 1024 * 1024;

/** The export MIME types the fake can produce from a native file's stored text. */
const TEXT_EXPORTS: Readonly<Record<string, readonly string[]>> = {
  [DRIVE_MIME_TYPES.document]: ['text/plain', 'text/markdown'],
  [DRIVE_MIME_TYPES.spreadsheet]: ['text/csv'],
  [DRIVE_MIME_TYPES.presentation]: ['text/plain'],
};

/** One grant of an item's sharing, as a test gives it. */
export interface FakeDrivePermission {
  readonly type: 'user' | 'group' | 'domain' | 'anyone';
  /** `user` and `group` grants. */
  readonly emailAddress?: string;
  /** `domain` grants. */
  readonly domain?: string;
  /** `reader` by default. */
  readonly role?: string;
  /** `domain` and `anyone` grants: false (link-only) by default, as Drive creates them. */
  readonly allowFileDiscovery?: boolean;
}

/** A grant as the fake stores and serves it (Drive's permission resource, trimmed). */
export interface FakeDrivePermissionResource {
  readonly kind: 'drive#permission';
  readonly id: string;
  readonly type: FakeDrivePermission['type'];
  readonly role: string;
  readonly emailAddress?: string;
  readonly domain?: string;
  readonly allowFileDiscovery?: boolean;
}

export interface FakeDriveFolderInput {
  readonly id?: string;
  readonly name: string;
  /** None for a top-level folder. */
  readonly parents?: readonly string[];
  /** Defaults to the first parent's drive. */
  readonly driveId?: string;
  readonly modifiedTime?: string;
  /** One grant to `ownerEmail` by default. */
  readonly permissions?: readonly FakeDrivePermission[];
  /** See `FakeDriveFileInput.canShare`. */
  readonly canShare?: boolean;
}

export interface FakeDriveFileInput {
  readonly id?: string;
  readonly name: string;
  readonly mimeType: string;
  /** Bytes of a binary file, or the text a native file exports to. Empty by default. */
  readonly content?: string | Uint8Array;
  /** RFC 3339; now by default. */
  readonly modifiedTime?: string;
  readonly parents: readonly string[];
  /** Defaults to the first parent's drive. */
  readonly driveId?: string;
  readonly trashed?: boolean;
  /** What `files.export` answers per MIME type, beyond (or instead of) `content`. */
  readonly exports?: Readonly<Record<string, string | Uint8Array>>;
  /** Who the file is shared with; one grant to `ownerEmail` by default. */
  readonly permissions?: readonly FakeDrivePermission[];
  /**
   * False for a file the user may read but not share: its permissions are left out of `files.get`
   * and `files.list`, and `permissions.list` answers 403. True by default.
   */
  readonly canShare?: boolean;
}

export interface FakeDriveFileChanges {
  readonly content?: string | Uint8Array;
  readonly name?: string;
  /** Otherwise the change moves `modifiedTime` forward to now (at least 1 ms past the last). */
  readonly modifiedTime?: string;
  readonly parents?: readonly string[];
  readonly exports?: Readonly<Record<string, string | Uint8Array>>;
}

/** Which endpoint a request reached. */
export type FakeDriveRoute = 'get' | 'media' | 'list' | 'export' | 'permissions' | 'unknown';

/** One request the fake received, as recorded in `requests`. */
export interface FakeDriveRequest {
  readonly method: string;
  /** Decoded path, e.g. `/drive/v3/files/abc/export`. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly route: FakeDriveRoute;
  /**
   * The `{id}` of a file route (`permissions` included); for `list`, the folder id parsed from `q`
   * (when it parsed).
   */
  readonly fileId: string | undefined;
  /** Whether `Authorization: Bearer` carried a token the fake accepts. */
  readonly tokenMatched: boolean;
  /** The status answered (0 until the answer starts). */
  readonly status: number;
  /** Body bytes handed to the socket. */
  readonly bytesSent: number;
  /** `cut_short` when the client closed the connection before the whole answer was sent. */
  readonly outcome: FakeDriveOutcome;
}

export type FakeDriveOutcome = 'pending' | 'completed' | 'cut_short';

/**
 * A file id (matching `files.get`, `alt=media` and export of that file, and `files.list` of that
 * folder), or any test of the request.
 */
export type FakeDriveTarget = string | ((request: FakeDriveRequest) => boolean);

export interface FakeDriveFailure {
  readonly status: number;
  /** `errors[0].reason`; by default one Google uses for the status (`rateLimitExceeded` for 429, …). */
  readonly reason?: string;
  readonly message?: string;
  /** `Retry-After`: seconds, a date (sent as an HTTP date), or a raw header value. */
  readonly retryAfter?: number | Date | string;
  /** How many matching requests fail (after token checks); `Infinity` for all. 1 by default. */
  readonly times?: number;
}

export interface FakeDriveDelivery {
  /** Wait this long before answering at all. */
  readonly delayMs?: number;
  /** Size of the body pieces (16 KiB by default). */
  readonly chunkBytes?: number;
  /** Pause between body pieces. */
  readonly chunkDelayMs?: number;
  /** Force `Content-Length` on (true) or off (false, chunked); by default on except for exports. */
  readonly contentLength?: boolean;
  /** How many matching requests are delivered so; `Infinity` for all. 1 by default. */
  readonly times?: number;
}

interface StoredItem {
  id: string;
  name: string;
  mimeType: string;
  content: Uint8Array;
  md5Checksum: string | undefined;
  modifiedTime: string;
  parents: string[];
  driveId: string | undefined;
  trashed: boolean;
  exports: Record<string, Uint8Array>;
  permissions: FakeDrivePermissionResource[];
  canShare: boolean;
  /** The insertion counter: listings come in this order. */
  order: number;
}

interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  route: FakeDriveRoute;
  fileId: string | undefined;
  tokenMatched: boolean;
  status: number;
  bytesSent: number;
  outcome: FakeDriveOutcome;
}

interface Scripted<T> {
  target: FakeDriveTarget;
  remaining: number;
  behaviour: T;
}

interface GoogleErrorAnswer {
  status: number;
  reason: string;
  message: string;
  domain?: string;
  location?: string;
  locationType?: string;
  headers?: Record<string, string>;
}

const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;
/** `permissions.list` pages hold at most this many. */
const MAX_PERMISSIONS_PAGE_SIZE = 100;
/** Whose Drive the fake's token reads, unless `start` names someone else. */
export const FAKE_DRIVE_OWNER_EMAIL = 'drive-owner@example.com';
const DEFAULT_CHUNK_BYTES = 16 * 1024;

export class FakeDriveServer {
  /** Every request, in arrival order. */
  readonly requests: readonly FakeDriveRequest[];

  private readonly recorded: RecordedRequest[] = [];
  private readonly items = new Map<string, StoredItem>();
  private readonly tokens = new Set<string>();
  private readonly failures: Scripted<FakeDriveFailure>[] = [];
  private readonly deliveries: Scripted<FakeDriveDelivery>[] = [];
  private pageSizeOverride: number | undefined;
  private insertions = 0;
  private lastModifiedMs = 0;

  private constructor(
    private readonly http: LocalHttpServer,
    /** Root URL ending in `/`, ready for `GOOGLE_DRIVE_API_URL` (the client appends `drive/v3/…`). */
    readonly url: string,
    /** A token the fake accepts from the start. */
    readonly accessToken: string,
    /** The user the tokens belong to: the one grant of items added without `permissions`. */
    readonly ownerEmail: string,
  ) {
    this.requests = this.recorded;
    this.tokens.add(accessToken);
  }

  /**
   * Listens on 127.0.0.1 at a free port. `ownerEmail` (FAKE_DRIVE_OWNER_EMAIL by default) is whose
   * Drive it is: items added without `permissions` are shared with that user alone.
   */
  static async start(options: { accessToken?: string; ownerEmail?: string } = {}): Promise<FakeDriveServer> {
    const http = await LocalHttpServer.start();
    const token = options.accessToken ?? `ya29.fake-${randomBytes(24).toString('base64url')}`;
    const fake = new FakeDriveServer(
      http,
      http.url('/'),
      token,
      options.ownerEmail ?? FAKE_DRIVE_OWNER_EMAIL,
    );
    http.serve((request, response) => fake.handle(request, response));
    return fake;
  }

  /** Accepts another bearer token (another user's). */
  addAccessToken(token: string): void {
    this.tokens.add(token);
  }

  /** Refuses a token from now on (401), as when it expires or is revoked. */
  revokeAccessToken(token: string): void {
    this.tokens.delete(token);
  }

  /** Adds a folder; returns its id. */
  addFolder(folder: FakeDriveFolderInput): string {
    const parents = [...(folder.parents ?? [])];
    const driveId = folder.driveId ?? this.inheritedDriveId(parents);
    return this.store({
      id: folder.id ?? newDriveId(),
      name: folder.name,
      mimeType: DRIVE_MIME_TYPES.folder,
      content: new Uint8Array(),
      md5Checksum: undefined,
      modifiedTime: folder.modifiedTime ?? this.nextModifiedTime(),
      parents,
      driveId,
      trashed: false,
      exports: {},
      permissions: this.permissionResources(folder.permissions, driveId),
      canShare: folder.canShare ?? true,
      order: 0,
    });
  }

  /** Adds a shared drive; its id is both the root folder's id and the `driveId` of all below it. */
  addSharedDrive(name: string, id: string = `0A${randomBytes(9).toString('base64url')}`): string {
    return this.addFolder({ id, name, driveId: id });
  }

  /** Adds a file; returns its id. */
  addFile(file: FakeDriveFileInput): string {
    const parents = [...file.parents];
    const content = toBytes(file.content ?? '');
    const driveId = file.driveId ?? this.inheritedDriveId(parents);
    return this.store({
      id: file.id ?? newDriveId(),
      name: file.name,
      mimeType: file.mimeType,
      content,
      md5Checksum: isNative(file.mimeType) ? undefined : md5(content),
      modifiedTime: file.modifiedTime ?? this.nextModifiedTime(),
      parents,
      driveId,
      trashed: file.trashed ?? false,
      exports: mapValues(file.exports ?? {}, toBytes),
      permissions: this.permissionResources(file.permissions, driveId),
      canShare: file.canShare ?? true,
      order: 0,
    });
  }

  /** Changes a file as an edit in Drive would: new `modifiedTime`, and new `md5Checksum` for binaries. */
  updateFile(id: string, changes: FakeDriveFileChanges): void {
    const item = this.item(id);
    if (changes.content !== undefined) item.content = toBytes(changes.content);
    if (changes.name !== undefined) item.name = changes.name;
    if (changes.parents !== undefined) item.parents = [...changes.parents];
    if (changes.exports !== undefined) item.exports = mapValues(changes.exports, toBytes);
    item.md5Checksum = isNative(item.mimeType) || isFolder(item) ? undefined : md5(item.content);
    item.modifiedTime = changes.modifiedTime ?? this.nextModifiedTime();
  }

  /** Moves a file to the trash: out of `trashed = false` listings, still readable by id. */
  trash(id: string): void {
    const item = this.item(id);
    item.trashed = true;
    item.modifiedTime = this.nextModifiedTime();
  }

  /**
   * Replaces who an item is shared with (the owner's grant too: include it to keep it). Like a
   * sharing change in Drive, it leaves `modifiedTime` alone.
   */
  setPermissions(id: string, permissions: readonly FakeDrivePermission[]): void {
    this.item(id).permissions = permissions.map(permissionResource);
  }

  /** Adds one grant, replacing the item's grant to the same user, group, domain or anyone. */
  share(id: string, permission: FakeDrivePermission): void {
    const item = this.item(id);
    const added = permissionResource(permission);
    item.permissions = [
      ...item.permissions.filter((existing) => granteeOf(existing) !== granteeOf(added)),
      added,
    ];
  }

  /**
   * Removes the item's grants to `grantee`: an e-mail address (a user or group), a domain, or
   * `'anyone'`. Leaves `modifiedTime` alone.
   */
  unshare(id: string, grantee: string): void {
    const item = this.item(id);
    const wanted = grantee.toLowerCase();
    item.permissions = item.permissions.filter((permission) => granteeOf(permission) !== wanted);
  }

  /** The item's grants as the fake serves them. */
  permissionsOf(id: string): FakeDrivePermissionResource[] {
    return [...this.item(id).permissions];
  }

  /** Whether the user may share the item (see `FakeDriveFileInput.canShare`). */
  setCanShare(id: string, canShare: boolean): void {
    this.item(id).canShare = canShare;
  }

  /** Deletes a file for good: 404 from now on. */
  removeFile(id: string): void {
    this.item(id);
    this.items.delete(id);
  }

  /** The file's full resource, as `files.get` with `fields=*` would answer it; undefined if removed. */
  fileResource(id: string): Record<string, unknown> | undefined {
    const item = this.items.get(id);
    return item === undefined ? undefined : resourceOf(item);
  }

  /**
   * Answers the next `times` requests matching `target` (a file id, or a test of the request) with
   * an error in Google's JSON shape, e.g. `{status: 429, retryAfter: 1}` or
   * `{status: 403, reason: 'exportSizeLimitExceeded', times: Infinity}`.
   */
  failNext(target: FakeDriveTarget, failure: FakeDriveFailure): void {
    this.failures.push({ target, remaining: failure.times ?? 1, behaviour: failure });
  }

  /** Shapes how the next `times` matching answers are sent: late, slowly, without `Content-Length`. */
  deliverNext(target: FakeDriveTarget, delivery: FakeDriveDelivery): void {
    this.deliveries.push({ target, remaining: delivery.times ?? 1, behaviour: delivery });
  }

  /** Caps every listing page at `size` children, whatever `pageSize` asks; `undefined` undoes it. */
  setPageSize(size: number | undefined): void {
    this.pageSizeOverride = size;
  }

  /** The `alt=media` downloads and exports of one file. */
  contentRequests(fileId: string): FakeDriveRequest[] {
    return this.recorded.filter(
      (request) => request.fileId === fileId && (request.route === 'media' || request.route === 'export'),
    );
  }

  /** Forgets recorded requests and scripted failures and deliveries; keeps files and tokens. */
  clearRecords(): void {
    this.recorded.length = 0;
    this.failures.length = 0;
    this.deliveries.length = 0;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private store(item: StoredItem): string {
    if (this.items.has(item.id)) throw new Error(`A Drive item ${item.id} already exists`);
    this.insertions += 1;
    item.order = this.insertions;
    this.items.set(item.id, item);
    return item.id;
  }

  private item(id: string): StoredItem {
    const item = this.items.get(id);
    if (item === undefined) throw new Error(`No Drive item ${id}`);
    return item;
  }

  /** What an item is added with: the given grants, else the owner's alone. */
  private permissionResources(
    permissions: readonly FakeDrivePermission[] | undefined,
    driveId: string | undefined,
  ): FakeDrivePermissionResource[] {
    const given = permissions ?? [
      {
        type: 'user' as const,
        emailAddress: this.ownerEmail,
        role: driveId === undefined ? 'owner' : 'organizer',
      },
    ];
    return given.map(permissionResource);
  }

  private inheritedDriveId(parents: readonly string[]): string | undefined {
    const first = parents[0];
    return first === undefined ? undefined : this.items.get(first)?.driveId;
  }

  /** Strictly increasing, so every change is visible in `modifiedTime`. */
  private nextModifiedTime(): string {
    this.lastModifiedMs = Math.max(Date.now(), this.lastModifiedMs + 1);
    return new Date(this.lastModifiedMs).toISOString();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const query = Object.fromEntries(url.searchParams);
    const { route, fileId } = routeOf(url.pathname, query);
    const header = request.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
    const record: RecordedRequest = {
      method: request.method ?? 'GET',
      path: safeDecode(url.pathname),
      query,
      route,
      fileId: route === 'list' ? parseParentQuery(query.q ?? '')?.folderId : fileId,
      tokenMatched: token !== undefined && this.tokens.has(token),
      status: 0,
      bytesSent: 0,
      outcome: 'pending',
    };
    this.recorded.push(record);
    response.once('finish', () => {
      record.outcome = 'completed';
    });
    response.once('close', () => {
      if (record.outcome === 'pending') record.outcome = 'cut_short';
    });
    const delivery = this.take(this.deliveries, record);
    if (delivery?.delayMs !== undefined) await sleep(delivery.delayMs);

    if (token === undefined) {
      return this.sendError(response, record, {
        status: 401,
        reason: 'required',
        message:
          'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        location: 'Authorization',
        locationType: 'header',
        headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' },
      });
    }
    if (!record.tokenMatched) {
      return this.sendError(response, record, {
        status: 401,
        reason: 'authError',
        message: 'Invalid Credentials',
        location: 'Authorization',
        locationType: 'header',
        headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
      });
    }
    const failure = this.take(this.failures, record);
    if (failure !== undefined) return this.sendError(response, record, scriptedError(failure, record.fileId));
    if (record.method !== 'GET') {
      return this.sendError(response, record, {
        status: 405,
        reason: 'httpMethodNotAllowed',
        message: 'Method Not Allowed',
      });
    }
    switch (route) {
      case 'get':
        return this.answerGet(response, record, query);
      case 'media':
        return this.answerMedia(response, record, query, delivery);
      case 'list':
        return this.answerList(response, record, query);
      case 'export':
        return this.answerExport(response, record, query, delivery);
      case 'permissions':
        return this.answerPermissions(response, record, query);
      case 'unknown':
        return this.sendError(response, record, { status: 404, reason: 'notFound', message: 'Not Found' });
    }
  }

  private take<T>(scripts: Scripted<T>[], record: FakeDriveRequest): T | undefined {
    const index = scripts.findIndex(({ target }) =>
      typeof target === 'string' ? record.fileId === target : target(record),
    );
    const script = scripts[index];
    if (script === undefined) return undefined;
    script.remaining -= 1;
    if (script.remaining <= 0) scripts.splice(index, 1);
    return script.behaviour;
  }

  /** The item a file route names, or undefined after answering 404 as Drive does. */
  private visibleItem(
    response: ServerResponse,
    record: RecordedRequest,
    query: Record<string, string>,
  ): StoredItem | undefined {
    const id = record.fileId ?? '';
    const item = this.items.get(id);
    // Without supportsAllDrives, Drive pretends shared-drive items do not exist.
    if (item === undefined || (item.driveId !== undefined && query.supportsAllDrives !== 'true')) {
      this.sendError(response, record, notFound(id));
      return undefined;
    }
    return item;
  }

  private answerGet(response: ServerResponse, record: RecordedRequest, query: Record<string, string>): void {
    const item = this.visibleItem(response, record, query);
    if (item === undefined) return;
    const mask = parseFieldMask(query.fields ?? 'kind,id,name,mimeType');
    sendRecordedJson(response, record, 200, applyMask(resourceOf(item), mask));
  }

  private async answerMedia(
    response: ServerResponse,
    record: RecordedRequest,
    query: Record<string, string>,
    delivery: FakeDriveDelivery | undefined,
  ): Promise<void> {
    const item = this.visibleItem(response, record, query);
    if (item === undefined) return;
    if (isNative(item.mimeType) || isFolder(item)) {
      return this.sendError(response, record, {
        status: 403,
        reason: 'fileNotDownloadable',
        message: 'Only files with binary content can be downloaded. Use Export with Docs Editors files.',
        location: 'alt',
        locationType: 'parameter',
      });
    }
    await sendContent(response, record, item.content, item.mimeType, {
      contentLength: delivery?.contentLength ?? true,
      chunkBytes: delivery?.chunkBytes,
      chunkDelayMs: delivery?.chunkDelayMs,
    });
  }

  private async answerExport(
    response: ServerResponse,
    record: RecordedRequest,
    query: Record<string, string>,
    delivery: FakeDriveDelivery | undefined,
  ): Promise<void> {
    const item = this.visibleItem(response, record, query);
    if (item === undefined) return;
    const mimeType = query.mimeType;
    if (mimeType === undefined || mimeType === '') {
      return this.sendError(response, record, {
        status: 400,
        reason: 'required',
        message: 'Required parameter: mimeType',
        location: 'mimeType',
        locationType: 'parameter',
      });
    }
    if (!isNative(item.mimeType)) {
      return this.sendError(response, record, {
        status: 403,
        reason: 'fileNotExportable',
        message: 'Export only supports Docs Editors files.',
      });
    }
    const content =
      item.exports[mimeType] ?? (TEXT_EXPORTS[item.mimeType]?.includes(mimeType) ? item.content : undefined);
    if (content === undefined) {
      return this.sendError(response, record, {
        status: 400,
        reason: 'badRequest',
        message: 'The requested conversion is not supported.',
        location: 'convertTo',
        locationType: 'parameter',
      });
    }
    if (content.byteLength > DRIVE_EXPORT_LIMIT_BYTES) {
      return this.sendError(response, record, {
        status: 403,
        reason: 'exportSizeLimitExceeded',
        message: 'This file is too large to be exported.',
      });
    }
    await sendContent(response, record, content, mimeType, {
      contentLength: delivery?.contentLength ?? false,
      chunkBytes: delivery?.chunkBytes,
      chunkDelayMs: delivery?.chunkDelayMs,
    });
  }

  private answerPermissions(
    response: ServerResponse,
    record: RecordedRequest,
    query: Record<string, string>,
  ): void {
    const item = this.visibleItem(response, record, query);
    if (item === undefined) return;
    if (!item.canShare) {
      this.sendError(response, record, {
        status: 403,
        reason: 'insufficientFilePermissions',
        message: `The user does not have sufficient permissions for file ${item.id}.`,
      });
      return;
    }
    const listing = `permissions:${item.id}`;
    let offset = 0;
    if (query.pageToken !== undefined && query.pageToken !== '') {
      const decoded = decodePageToken(query.pageToken, listing);
      if (decoded === undefined) {
        this.sendError(response, record, invalidValue('pageToken'));
        return;
      }
      offset = decoded;
    }
    // Without pageSize, Drive sends a My Drive file's whole list, and 100 of a shared drive's.
    let size = item.driveId === undefined ? Number.MAX_SAFE_INTEGER : MAX_PERMISSIONS_PAGE_SIZE;
    if (query.pageSize !== undefined) {
      const requested = Number(query.pageSize);
      if (!Number.isInteger(requested) || requested < 1 || requested > MAX_PERMISSIONS_PAGE_SIZE) {
        this.sendError(response, record, invalidValue('pageSize'));
        return;
      }
      size = requested;
    }
    size = this.pageSizeOverride ?? size;
    const page = item.permissions.slice(offset, offset + size);
    const next =
      offset + size < item.permissions.length ? encodePageToken(offset + size, listing) : undefined;
    const body = {
      kind: 'drive#permissionList',
      ...(next === undefined ? {} : { nextPageToken: next }),
      permissions: page.map((permission) => ({ ...permission })),
    };
    const mask = parseFieldMask(query.fields ?? 'kind,nextPageToken,permissions(kind,id,type,role)');
    sendRecordedJson(response, record, 200, applyMask(body, mask));
  }

  private answerList(response: ServerResponse, record: RecordedRequest, query: Record<string, string>): void {
    const q = query.q ?? '';
    const parsed = parseParentQuery(q);
    if (parsed === undefined) {
      this.sendError(response, record, invalidValue('q'));
      return;
    }
    const withSharedDrives = query.includeItemsFromAllDrives === 'true' && query.supportsAllDrives === 'true';
    if (query.corpora === 'drive' && query.driveId === undefined) {
      this.sendError(response, record, {
        status: 400,
        reason: 'badRequest',
        message: "The driveId parameter must be specified if and only if corpora is set to 'drive'.",
        location: 'driveId',
        locationType: 'parameter',
      });
      return;
    }
    const children = [...this.items.values()]
      .filter(
        (item) =>
          item.parents.includes(parsed.folderId) &&
          (parsed.trashed === undefined || item.trashed === parsed.trashed) &&
          (item.driveId === undefined || withSharedDrives) &&
          (query.corpora !== 'drive' || item.driveId === query.driveId),
      )
      .sort((left, right) => left.order - right.order);

    let offset = 0;
    if (query.pageToken !== undefined && query.pageToken !== '') {
      const decoded = decodePageToken(query.pageToken, q);
      if (decoded === undefined) {
        this.sendError(response, record, invalidValue('pageToken'));
        return;
      }
      offset = decoded;
    }
    const requested = query.pageSize === undefined ? DEFAULT_PAGE_SIZE : Number(query.pageSize);
    if (!Number.isInteger(requested) || requested < 1) {
      this.sendError(response, record, invalidValue('pageSize'));
      return;
    }
    const size = this.pageSizeOverride ?? Math.min(requested, MAX_PAGE_SIZE);
    const page = children.slice(offset, offset + size);
    const next = offset + size < children.length ? encodePageToken(offset + size, q) : undefined;
    const body = {
      kind: 'drive#fileList',
      incompleteSearch: false,
      ...(next === undefined ? {} : { nextPageToken: next }),
      files: page.map(resourceOf),
    };
    const mask = parseFieldMask(
      query.fields ?? 'kind,incompleteSearch,nextPageToken,files(kind,id,name,mimeType)',
    );
    sendRecordedJson(response, record, 200, applyMask(body, mask));
  }

  private sendError(response: ServerResponse, record: RecordedRequest, answer: GoogleErrorAnswer): void {
    sendRecordedJson(response, record, answer.status, googleErrorBody(answer), answer.headers);
  }
}

function routeOf(
  pathname: string,
  query: Record<string, string>,
): { route: FakeDriveRoute; fileId: string | undefined } {
  if (pathname === '/drive/v3/files' || pathname === '/drive/v3/files/')
    return { route: 'list', fileId: undefined };
  const exportMatch = /^\/drive\/v3\/files\/([^/]+)\/export$/.exec(pathname);
  if (exportMatch?.[1] !== undefined) return { route: 'export', fileId: safeDecode(exportMatch[1]) };
  const permissionsMatch = /^\/drive\/v3\/files\/([^/]+)\/permissions\/?$/.exec(pathname);
  if (permissionsMatch?.[1] !== undefined) {
    return { route: 'permissions', fileId: safeDecode(permissionsMatch[1]) };
  }
  const fileMatch = /^\/drive\/v3\/files\/([^/]+)$/.exec(pathname);
  if (fileMatch?.[1] !== undefined) {
    return { route: query.alt === 'media' ? 'media' : 'get', fileId: safeDecode(fileMatch[1]) };
  }
  return { route: 'unknown', fileId: undefined };
}

/**
 * `'<id>' in parents`, optionally `and trashed = false|true`; Drive's query language escapes `'`
 * and `\` in string literals with a backslash.
 */
function parseParentQuery(q: string): { folderId: string; trashed: boolean | undefined } | undefined {
  const match = /^\s*'((?:[^'\\]|\\.)*)'\s+in\s+parents(?:\s+and\s+trashed\s*=\s*(true|false))?\s*$/i.exec(q);
  if (match?.[1] === undefined) return undefined;
  return {
    folderId: match[1].replace(/\\(.)/g, '$1'),
    trashed: match[2] === undefined ? undefined : match[2].toLowerCase() === 'true',
  };
}

function encodePageToken(offset: number, q: string): string {
  return Buffer.from(JSON.stringify({ offset, q })).toString('base64url');
}

function decodePageToken(token: string, q: string): number | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { offset, q: tokenQuery } = parsed as { offset?: unknown; q?: unknown };
    // Drive refuses a page token used with a different query.
    if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0 || tokenQuery !== q) {
      return undefined;
    }
    return offset;
  } catch {
    return undefined;
  }
}

/** A `fields` mask: `a,b(c,d)`; `*` selects everything at its level. */
type FieldMask = Map<string, FieldMask | true> | '*';

function parseFieldMask(text: string): FieldMask {
  let position = 0;
  const parseLevel = (): FieldMask => {
    const level = new Map<string, FieldMask | true>();
    let all = false;
    while (position < text.length && text[position] !== ')') {
      const start = position;
      while (position < text.length && !',()'.includes(text[position] ?? '')) position += 1;
      // `files/id` selects a sub-field like `files(id)`; keep the first segment, loosely.
      const name = text.slice(start, position).trim().split('/')[0] ?? '';
      let sub: FieldMask | true = true;
      if (text[position] === '(') {
        position += 1;
        sub = parseLevel();
        position += 1;
      }
      if (name === '*') all = true;
      else if (name !== '') level.set(name, sub);
      if (text[position] === ',') position += 1;
    }
    return all ? '*' : level;
  };
  return parseLevel();
}

function applyMask(value: Record<string, unknown>, mask: FieldMask): Record<string, unknown> {
  if (mask === '*') return value;
  const picked: Record<string, unknown> = {};
  for (const [name, sub] of mask) {
    const field = value[name];
    if (field === undefined) continue;
    if (sub === true) picked[name] = field;
    else if (Array.isArray(field)) {
      picked[name] = field.map((entry: unknown) =>
        typeof entry === 'object' && entry !== null
          ? applyMask(entry as Record<string, unknown>, sub)
          : entry,
      );
    } else if (typeof field === 'object' && field !== null) {
      picked[name] = applyMask(field as Record<string, unknown>, sub);
    } else picked[name] = field;
  }
  return picked;
}

function resourceOf(item: StoredItem): Record<string, unknown> {
  const native = isNative(item.mimeType) || isFolder(item);
  return {
    kind: 'drive#file',
    id: item.id,
    name: item.name,
    mimeType: item.mimeType,
    parents: [...item.parents],
    modifiedTime: item.modifiedTime,
    // Drive sends int64 values as strings.
    ...(native ? {} : { size: String(item.content.byteLength), md5Checksum: item.md5Checksum }),
    webViewLink: webViewLinkOf(item),
    ...(item.driveId === undefined ? {} : { driveId: item.driveId }),
    trashed: item.trashed,
    // Google leaves them out for shared-drive items (their lists can be long) and for items the
    // user may not share.
    ...(item.driveId === undefined && item.canShare
      ? { permissions: item.permissions.map((permission) => ({ ...permission })) }
      : {}),
  };
}

/** A test's grant as Drive's resource: ids stable per grantee, discovery said for domain and anyone. */
function permissionResource(permission: FakeDrivePermission): FakeDrivePermissionResource {
  const role = permission.role ?? 'reader';
  switch (permission.type) {
    case 'user':
    case 'group':
      return {
        kind: 'drive#permission',
        id: permissionId(`${permission.type}:${permission.emailAddress?.toLowerCase() ?? ''}`),
        type: permission.type,
        role,
        ...(permission.emailAddress === undefined ? {} : { emailAddress: permission.emailAddress }),
      };
    case 'domain':
      return {
        kind: 'drive#permission',
        id: permissionId(`domain:${permission.domain?.toLowerCase() ?? ''}`),
        type: 'domain',
        role,
        ...(permission.domain === undefined ? {} : { domain: permission.domain }),
        allowFileDiscovery: permission.allowFileDiscovery ?? false,
      };
    case 'anyone': {
      const discoverable = permission.allowFileDiscovery ?? false;
      return {
        kind: 'drive#permission',
        id: discoverable ? 'anyone' : 'anyoneWithLink',
        type: 'anyone',
        role,
        allowFileDiscovery: discoverable,
      };
    }
  }
}

/** Whom a grant is to: an e-mail address, a domain, or `anyone` (an item has one grant each). */
function granteeOf(permission: FakeDrivePermissionResource): string {
  if (permission.type === 'anyone') return 'anyone';
  return (permission.type === 'domain' ? permission.domain : permission.emailAddress)?.toLowerCase() ?? '';
}

/** Drive's permission ids are digits for people and groups; a hash of the grantee stands in. */
function permissionId(grantee: string): string {
  return BigInt(`0x${createHash('sha256').update(grantee).digest('hex').slice(0, 15)}`).toString();
}

function webViewLinkOf(item: StoredItem): string {
  switch (item.mimeType) {
    case DRIVE_MIME_TYPES.folder:
      return `https://drive.google.com/drive/folders/${item.id}`;
    case DRIVE_MIME_TYPES.document:
      return `https://docs.google.com/document/d/${item.id}/edit?usp=drivesdk`;
    case DRIVE_MIME_TYPES.spreadsheet:
      return `https://docs.google.com/spreadsheets/d/${item.id}/edit?usp=drivesdk`;
    case DRIVE_MIME_TYPES.presentation:
      return `https://docs.google.com/presentation/d/${item.id}/edit?usp=drivesdk`;
    default:
      return `https://drive.google.com/file/d/${item.id}/view?usp=drivesdk`;
  }
}

const RATE_LIMIT_REASONS = new Set([
  'userRateLimitExceeded',
  'rateLimitExceeded',
  'dailyLimitExceeded',
  'sharingRateLimitExceeded',
  'quotaExceeded',
]);

const DEFAULT_REASONS: Readonly<Record<number, string>> = {
  400: 'badRequest',
  401: 'authError',
  403: 'insufficientFilePermissions',
  404: 'notFound',
  429: 'rateLimitExceeded',
  500: 'backendError',
  502: 'badGateway',
  503: 'backendError',
};

const DEFAULT_MESSAGES: Readonly<Record<string, string>> = {
  userRateLimitExceeded: 'User Rate Limit Exceeded',
  rateLimitExceeded: 'Rate Limit Exceeded',
  dailyLimitExceeded: 'Daily Limit Exceeded',
  sharingRateLimitExceeded:
    'Rate limit exceeded. User message: "Sorry, you have exceeded your sharing quota."',
  exportSizeLimitExceeded: 'This file is too large to be exported.',
  authError: 'Invalid Credentials',
  backendError: 'Internal Error',
  badGateway: 'Bad Gateway',
};

function scriptedError(failure: FakeDriveFailure, fileId: string | undefined): GoogleErrorAnswer {
  const reason = failure.reason ?? DEFAULT_REASONS[failure.status] ?? 'unknown';
  const message =
    failure.message ??
    DEFAULT_MESSAGES[reason] ??
    (reason === 'notFound'
      ? `File not found: ${fileId ?? ''}.`
      : reason === 'insufficientFilePermissions'
        ? `The user does not have sufficient permissions for file ${fileId ?? ''}.`
        : `Error ${failure.status}`);
  const retryAfter = failure.retryAfter;
  return {
    status: failure.status,
    reason,
    message,
    domain: RATE_LIMIT_REASONS.has(reason) ? 'usageLimits' : 'global',
    ...(retryAfter === undefined
      ? {}
      : {
          headers: {
            'retry-after': retryAfter instanceof Date ? retryAfter.toUTCString() : String(retryAfter),
          },
        }),
  };
}

function notFound(fileId: string): GoogleErrorAnswer {
  return {
    status: 404,
    reason: 'notFound',
    message: `File not found: ${fileId}.`,
    location: 'fileId',
    locationType: 'parameter',
  };
}

function invalidValue(parameter: string): GoogleErrorAnswer {
  return {
    status: 400,
    reason: 'invalid',
    message: 'Invalid Value',
    location: parameter,
    locationType: 'parameter',
  };
}

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Google's JSON error body: `{"error": {"code", "message", "errors": [{…, "reason"}], "status"}}`. */
function googleErrorBody(answer: GoogleErrorAnswer): Record<string, unknown> {
  const status = STATUS_NAMES[answer.status];
  return {
    error: {
      code: answer.status,
      message: answer.message,
      errors: [
        {
          message: answer.message,
          domain: answer.domain ?? 'global',
          reason: answer.reason,
          ...(answer.location === undefined ? {} : { location: answer.location }),
          ...(answer.locationType === undefined ? {} : { locationType: answer.locationType }),
        },
      ],
      ...(status === undefined ? {} : { status }),
    },
  };
}

/** Sends JSON with the headers Google's API sends, and records the status and size. */
function sendRecordedJson(
  response: ServerResponse,
  record: RecordedRequest,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  record.status = status;
  record.bytesSent = sendJson(response, status, body, {
    'content-type': 'application/json; charset=UTF-8',
    vary: 'Origin, X-Origin',
    ...headers,
  });
}

/** Writes the body in pieces, waiting for the socket to drain, and stops when the client goes away. */
async function sendContent(
  response: ServerResponse,
  record: RecordedRequest,
  content: Uint8Array,
  contentType: string,
  options: { contentLength: boolean; chunkBytes: number | undefined; chunkDelayMs: number | undefined },
): Promise<void> {
  record.status = 200;
  response.writeHead(200, {
    'content-type': contentType,
    ...(options.contentLength ? { 'content-length': String(content.byteLength) } : {}),
  });
  let closed = false;
  response.once('close', () => {
    closed = true;
  });
  const chunkBytes = Math.max(1, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  for (let offset = 0; offset < content.byteLength && !closed; offset += chunkBytes) {
    if (offset > 0 && options.chunkDelayMs !== undefined) await sleep(options.chunkDelayMs);
    if (closed || response.destroyed) break;
    const chunk = content.subarray(offset, offset + chunkBytes);
    record.bytesSent += chunk.byteLength;
    if (!response.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off('drain', done);
          response.off('close', done);
          resolve();
        };
        response.on('drain', done);
        response.on('close', done);
      });
    }
  }
  if (!closed && !response.destroyed) response.end();
}

function isNative(mimeType: string): boolean {
  return mimeType.startsWith('application/vnd.google-apps.') && mimeType !== DRIVE_MIME_TYPES.folder;
}

function isFolder(item: StoredItem): boolean {
  return item.mimeType === DRIVE_MIME_TYPES.folder;
}

function toBytes(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? new Uint8Array(Buffer.from(content, 'utf8')) : new Uint8Array(content);
}

function md5(content: Uint8Array): string {
  return createHash('md5').update(content).digest('hex');
}

function mapValues<T, U>(record: Readonly<Record<string, T>>, map: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
}

/** Drive-looking ids: 33 characters of base64url. */
function newDriveId(): string {
  return `1${randomBytes(24).toString('base64url')}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
