/**
 * How many rows the next statement of a long write should carry so that each takes about
 * `targetMs`: on PGlite a statement holds the main thread (and the one connection) while it runs,
 * and rows cost very different times (a chunk of 30 words or of 400, with or without a vector).
 * Sizes follow the measured rate, smoothed, within [min, max].
 */
export class StatementSizer {
  private size: number;

  constructor(
    private readonly settings: { readonly targetMs: number; readonly min: number; readonly max: number },
    initial = settings.min,
  ) {
    this.size = clamp(initial, settings.min, settings.max);
  }

  /** A fixed size: where statements do not block anything else (PostgreSQL). */
  static fixed(size: number): StatementSizer {
    return new StatementSizer({ targetMs: Number.POSITIVE_INFINITY, min: size, max: size }, size);
  }

  get next(): number {
    return this.size;
  }

  record(rows: number, elapsedMs: number): void {
    if (rows <= 0 || !Number.isFinite(this.settings.targetMs)) return;
    const fitting = (rows * this.settings.targetMs) / Math.max(elapsedMs, 0.5);
    // Halfway towards the measured size: one slow statement (a pause, a checkpoint) does not
    // collapse the size, and a run of them still brings it down within a few statements.
    this.size = clamp(Math.round((this.size + fitting) / 2), this.settings.min, this.settings.max);
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
