interface PagerProps {
  /** The first item shown, counted from 0. */
  offset: number;
  pageSize: number;
  /** Whether a page follows this one. */
  hasNext: boolean;
  previousLabel: string;
  nextLabel: string;
  onOffsetChange: (offset: number) => void;
}

/** Previous / next buttons over a list read page by page (`limit` and `offset`). */
export function Pager({ offset, pageSize, hasNext, previousLabel, nextLabel, onOffsetChange }: PagerProps) {
  return (
    <div className="pager">
      <button
        type="button"
        className="button-secondary"
        disabled={offset === 0}
        onClick={() => onOffsetChange(Math.max(0, offset - pageSize))}
      >
        {previousLabel}
      </button>
      <button
        type="button"
        className="button-secondary"
        disabled={!hasNext}
        onClick={() => onOffsetChange(offset + pageSize)}
      >
        {nextLabel}
      </button>
    </div>
  );
}
