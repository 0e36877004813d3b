/** Where text goes: a stream's `write`, or a test's array. */
export interface TextSink {
  write(text: string): void;
}

export interface ProgressState {
  /** What the run is doing now, e.g. `uploading`, `indexing`. */
  readonly phase: string;
  /** Documents and files whose outcome is known. */
  readonly done: number;
  /** All documents and files of the run; undefined while still being counted. */
  readonly total: number | undefined;
}

export interface ProgressDisplayOptions {
  /** A terminal gets one line redrawn in place; anything else a plain line now and then. */
  readonly tty: boolean;
  /** Terminal width: a longer line would wrap and break the redraw. */
  readonly columns?: number;
  readonly plainIntervalMs?: number;
  readonly now?: () => number;
}

const BAR_WIDTH = 24;
/** A terminal is redrawn at most this often, however often the numbers change. */
const REDRAW_INTERVAL_MS = 100;
const DEFAULT_PLAIN_INTERVAL_MS = 5_000;

/** The progress line on stderr: redrawn with `\r` on a terminal, printed every few seconds otherwise. */
export class ProgressDisplay {
  private readonly startedAt: number;
  private readonly now: () => number;
  private lastDrawnAt = Number.NEGATIVE_INFINITY;
  private lastPrintedAt: number;
  private drawn = false;

  constructor(
    private readonly sink: TextSink,
    private readonly options: ProgressDisplayOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.lastPrintedAt = this.startedAt;
  }

  update(state: ProgressState): void {
    const now = this.now();
    const elapsedMs = now - this.startedAt;
    if (this.options.tty) {
      if (now - this.lastDrawnAt < REDRAW_INTERVAL_MS) return;
      this.lastDrawnAt = now;
      let line = formatProgressLine(state, elapsedMs, true);
      if (this.options.columns !== undefined && this.options.columns > 1) {
        line = line.slice(0, this.options.columns - 1);
      }
      this.sink.write(`\r${line}\x1b[K`);
      this.drawn = true;
      return;
    }
    if (now - this.lastPrintedAt < (this.options.plainIntervalMs ?? DEFAULT_PLAIN_INTERVAL_MS)) return;
    this.lastPrintedAt = now;
    this.sink.write(`${formatProgressLine(state, elapsedMs, false)}\n`);
  }

  /** A message on its own line, above the bar (which the next update redraws). */
  note(text: string): void {
    this.finish();
    this.sink.write(`${text}\n`);
    this.lastDrawnAt = Number.NEGATIVE_INFINITY;
  }

  /** Clears the bar, so that what follows starts on a clean line. */
  finish(): void {
    if (this.drawn) this.sink.write('\r\x1b[K');
    this.drawn = false;
  }
}

/** `indexing [#######-----] 120/400  30%  12.5 docs/s  ETA 22s` (without the bar when not a terminal). */
export function formatProgressLine(state: ProgressState, elapsedMs: number, withBar: boolean): string {
  const rate = elapsedMs > 0 ? state.done / (elapsedMs / 1000) : 0;
  const parts = [state.phase];
  if (state.total === undefined) {
    parts.push(`${state.done} docs`);
  } else {
    const fraction = state.total === 0 ? 1 : Math.min(1, state.done / state.total);
    if (withBar) {
      const filled = Math.round(fraction * BAR_WIDTH);
      parts.push(`[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`);
    }
    parts.push(`${state.done}/${state.total}`, `${Math.floor(fraction * 100)}%`.padStart(4));
  }
  parts.push(`${rate.toFixed(1)} docs/s`);
  if (state.total !== undefined && state.done < state.total) {
    parts.push(`ETA ${rate > 0 ? formatDuration(((state.total - state.done) / rate) * 1000) : '?'}`);
  }
  return parts.join('  ');
}

/** 950 ms → `0.9s`, 75 s → `1m 15s`, 2 h → `2h 0m`. */
export function formatDuration(milliseconds: number): string {
  const seconds = milliseconds / 1000;
  if (seconds < 10) return `${(Math.floor(seconds * 10) / 10).toFixed(1)}s`;
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole}s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes}m ${whole % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
