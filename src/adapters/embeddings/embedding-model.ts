/** Why texts are embedded: some models embed queries and documents differently. */
export type EmbeddingPurpose = 'document' | 'query';

/**
 * Turns texts into vectors. Implementations batch nothing themselves beyond one call: callers
 * send at most `maxBatchSize` texts at a time. Errors are `SourceError` (../source-error.ts), so
 * a 429 or 5xx from an embedding server is retried by the job that asked.
 */
export interface EmbeddingModel {
  /**
   * Names the vector space: provider and model (`openai:text-embedding-3-small`). Vectors of two
   * ids are never compared or stored side by side for one chunk.
   */
  readonly id: string;
  /** Most texts one `embed` call takes. */
  readonly maxBatchSize: number;
  /** One vector per text, in order, all of one length (the model's dimension). */
  embed(
    texts: readonly string[],
    options: { readonly purpose: EmbeddingPurpose; readonly signal?: AbortSignal },
  ): Promise<number[][]>;
}
