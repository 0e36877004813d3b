import { Type } from 'typebox';
import { embedStaleChunks } from '../../indexing/embed-stale-chunks.js';
import type { IndexingDependencies } from '../../indexing/indexing-dependencies.js';
import { DEFAULT_HEARTBEAT, defineJob, type JobDefinition } from '../job-queue.js';

export const EMBED_STALE_CHUNKS_JOB = 'embed-stale-chunks';

/** Re-embeds chunks lacking the configured model's vectors (queued at every worker start). */
export function embedStaleChunksJob(deps: IndexingDependencies): JobDefinition<{ model: string }> {
  return defineJob({
    name: EMBED_STALE_CHUNKS_JOB,
    payloadSchema: Type.Object({ model: Type.String() }),
    retry: { limit: 10, backoff: { type: 'exponential', delaySeconds: 5 } },
    expireInSeconds: 12 * 3600,
    heartbeat: DEFAULT_HEARTBEAT,
    // Several workers starting together queue it once.
    policy: 'stately',
    handler: async (_payload, context) => ({ ...(await embedStaleChunks(deps, context.signal)) }),
  });
}
