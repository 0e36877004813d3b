import type { GoogleDrive } from '../adapters/google-drive/google-drive.js';
import type { UploadStore } from '../adapters/upload-store/upload-store.js';
import type { WikiClient } from '../adapters/wiki/wiki-client.js';
import type { SqlConnection } from '../db/sql-connection.js';
import type { StorageMaintenance } from '../db/storage-maintenance.js';
import type { SecretBox } from '../security/secret-box.js';
import type { Chunk } from './document.js';

/** Parses and chunks one file, off the main thread (`ParsePool`). */
export interface DocumentParser {
  parse(
    request: { mimeType: string; bytes: Uint8Array; fileName?: string; title: string },
    signal?: AbortSignal,
  ): Promise<{
    title: string | undefined;
    mimeType?: string | undefined;
    chunks: Chunk[];
    contentHash: string;
  }>;
}

/** Embeds chunk texts with the configured model, batched across files and jobs. */
export interface ChunkEmbedder {
  /** The model's id (`openai:text-embedding-3-small`): stored beside every vector. */
  readonly model: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

export interface IndexingLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** What the indexing pipeline needs from the outside world; built once in `deps.ts`. */
export interface IndexingDependencies {
  readonly sql: SqlConnection;
  /** Told how many chunks a replaced or dropped document had, to reclaim their space. */
  readonly storage: StorageMaintenance;
  /** Where uploaded files wait for their job; each is deleted once its file's outcome is final. */
  readonly uploads: UploadStore;
  readonly secrets: SecretBox;
  readonly drive: GoogleDrive;
  readonly wiki: WikiClient;
  readonly parser: DocumentParser;
  /** Undefined when embeddings are off (`EMBEDDING_PROVIDER=none`): lexical search only. */
  readonly embedder: ChunkEmbedder | undefined;
  readonly limits: {
    readonly maxFileBytes: number;
    readonly fileConcurrency: number;
  };
  readonly logger: IndexingLogger;
}
