import { type ApiClient, type ApiResponse, detailOf } from './api-client.js';
import { FatalError } from './cli-errors.js';
import type { JobTracker } from './job-tracker.js';
import type { Outcomes } from './outcomes.js';

/** What the uploaders share: the service, the jobs they queue, and the tally. */
export interface UploadContext {
  readonly client: ApiClient;
  readonly tracker: JobTracker;
  readonly outcomes: Outcomes;
}

export const DOCUMENTS_PATH = 'v1/documents';

/** The job id of a 202, or undefined for any other answer. */
export function acceptedJobId(response: ApiResponse): string | undefined {
  if (response.status !== 202 || typeof response.body !== 'object' || response.body === null)
    return undefined;
  const id = (response.body as { result_id?: unknown }).result_id;
  return typeof id === 'string' ? id : undefined;
}

/** Stops the run on answers that every further request would get too. */
export function stopIfRefused(response: ApiResponse, client: ApiClient): void {
  if (response.status === 401 || response.status === 403) {
    throw new FatalError(`the service refused the token (${response.status}): ${detailOf(response.body)}`);
  }
  if (response.status === 404 || response.status === 405) {
    throw new FatalError(
      `${client.displayUrl} has no POST /v1/documents (${response.status}): is it a knowledge-answers service?`,
    );
  }
}

/** How a refused request is recorded against each of its items. */
export function refusal(response: ApiResponse): { reason: string; message: string } {
  return {
    reason: response.status >= 500 ? 'server_error' : 'rejected',
    message: `HTTP ${response.status}: ${detailOf(response.body)}`,
  };
}

/**
 * A 413's lesson, the same for documents and files. A request of several items is sent again as
 * two halves (each split further should it be refused too), and later requests are kept under half
 * its size; a single item is one the service will not take: `refuseAlone` records it.
 * False, doing nothing, for any other answer.
 */
export async function splitIfTooLarge<Item>(
  response: ApiResponse,
  request: { readonly items: readonly Item[]; readonly bytes: number },
  limits: { bytes: number },
  handlers: {
    readonly sendPart: (part: readonly Item[]) => Promise<void>;
    readonly refuseAlone: (item: Item, message: string) => void;
  },
): Promise<boolean> {
  if (response.status !== 413) return false;
  const { items, bytes } = request;
  const [only] = items;
  if (items.length > 1) {
    limits.bytes = Math.max(1, Math.min(limits.bytes, Math.floor(bytes / 2)));
    const half = Math.ceil(items.length / 2);
    await handlers.sendPart(items.slice(0, half));
    await handlers.sendPart(items.slice(half));
  } else if (only !== undefined) {
    handlers.refuseAlone(only, refusal(response).message);
  }
  return true;
}
