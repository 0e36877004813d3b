/**
 * How much work the next statement of a long write should carry so that each takes about
 * `targetMs`: on PGlite a statement holds the one connection (every other query waits) while it runs.
 * Work is counted in units the caller picks to predict a statement's time: characters of text for
 * chunks (a chunk of 30 words costs a tenth of one of 400: sized in rows, statements aimed at
 * 15 ms took up to 59), rows for vectors and deletes. Sizes follow the measured rate, smoothed,
 * within [min, max].
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

  /** Units the next statement may carry. */
  get next(): number {
    return this.size;
  }

  record(units: number, elapsedMs: number): void {
    if (units <= 0 || !Number.isFinite(this.settings.targetMs)) return;
    const fitting = (units * this.settings.targetMs) / Math.max(elapsedMs, 0.5);
    // Halfway towards the measured size: one slow statement (a pause, a checkpoint) does not
    // collapse the size, and a run of them still brings it down within a few statements.
    this.size = clamp(Math.round((this.size + fitting) / 2), this.settings.min, this.settings.max);
  }
}

/**
 * The rows of the next statement, made from `items` from `from`: as many as fit in `budget`
 * units, at least one (an item bigger than the budget goes alone), at most `maxItems`. Each row
 * is made once, with its units, so that what is measured is what is sent.
 */
export function nextStatement<Item, Row>(
  items: readonly Item[],
  from: number,
  budget: number,
  maxItems: number,
  rowOf: (item: Item) => { readonly row: Row; readonly units: number },
): { readonly rows: Row[]; readonly units: number } {
  const last = Math.min(items.length, from + Math.max(1, maxItems));
  const rows: Row[] = [];
  let units = 0;
  for (let index = from; index < last; index++) {
    const made = rowOf(items[index] as Item);
    if (rows.length > 0 && units + made.units > budget) break;
    rows.push(made.row);
    units += made.units;
  }
  return { rows, units };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
