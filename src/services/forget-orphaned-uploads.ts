import type { ServiceDependencies } from './dependencies.js';

/**
 * Uploads younger than this are left alone: a request may still be streaming its files in, and
 * its job's rows exist only once all of them are stored (REQUEST_TIMEOUT_MS bounds that to seconds).
 */
const ORPHAN_AGE_MS = 3_600_000;

/**
 * Deletes stored uploads no index job needs any more: a request that failed after storing them,
 * a crash between a file's outcome and its deletion, a job whose team was deleted.
 */
export async function forgetOrphanedUploads(
  deps: Pick<ServiceDependencies, 'data' | 'uploads' | 'now'>,
): Promise<number> {
  const inUse = await deps.data.indexJobs.uploadKeysInUse();
  return deps.uploads.sweep(new Date(deps.now().getTime() - ORPHAN_AGE_MS), inUse);
}
