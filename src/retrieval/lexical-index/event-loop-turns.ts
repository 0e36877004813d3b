/**
 * Turns of the event loop handed out one at a time, for CPU work that would otherwise run back to
 * back: each caller's turn comes in an iteration of its own (a `setImmediate` scheduled from the
 * one before), so the loop reads what sockets brought between any two, and a cheap request
 * (`/healthz`) waits for one search's ranking at most, not for every search queued before it.
 */
export class EventLoopTurns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves once it is this caller's turn. */
  take(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // Its continuation runs now, as this callback's microtasks; the next turn is the next iteration's.
      this.waiting.shift()?.();
      this.schedule();
    });
  }
}
