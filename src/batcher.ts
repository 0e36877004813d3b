interface Pending<I, O> {
  readonly input: I;
  readonly resolve: (output: O) => void;
  readonly reject: (error: unknown) => void;
}

export interface BatcherOptions {
  /** Most inputs one run takes. */
  readonly maxBatchSize: number;
  /** Runs in flight at once; inputs arriving meanwhile wait and go together in the next run. */
  readonly maxConcurrentRuns: number;
}

/**
 * Group commit: inputs that arrive while a run is in flight go together in the next run, so a
 * burst costs one round trip and one commit instead of one each. A lone input waits only for
 * the current turn of the event loop, never for a timer. If a run of several fails, each input
 * is tried alone, so one bad input fails only its own request.
 */
export class Batcher<I, O> {
  private readonly queue: Pending<I, O>[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly run: (inputs: readonly I[]) => Promise<readonly O[]>,
    private readonly options: BatcherOptions,
  ) {}

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Runs after the current turn of the event loop, once every request read in it has queued its
   * input: an in-process database (PGlite) answers within the turn, so without this wait no two
   * inputs would ever meet.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.options.maxConcurrentRuns && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatchSize);
      this.running += 1;
      this.execute(batch).finally(() => {
        this.running -= 1;
        this.schedule();
      });
    }
  }

  private async execute(batch: readonly Pending<I, O>[]): Promise<void> {
    try {
      const outputs = await this.run(batch.map((pending) => pending.input));
      batch.forEach((pending, index) => {
        pending.resolve(outputs[index] as O);
      });
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      await Promise.all(batch.map((pending) => this.execute([pending])));
    }
  }
}
