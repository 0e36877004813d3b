import { Fragment } from 'react';

/** After these a long name may wrap: a file name's separators, a path's slashes, an address's @. */
const BREAK_AFTER = /(?<=[-_./@])(?=\S)/;

/**
 * A name (a file name, a title made from one) with a line-break opportunity (<wbr>) after each
 * - _ . / @, so one longer than its box wraps at its punctuation, never inside a word: the styles
 * keep words whole (overflow-wrap: normal). <wbr> adds no character, so the name reads and copies as it is.
 */
export function BreakableName({ text }: { text: string }) {
  const pieces = text.split(BREAK_AFTER);
  if (pieces.length === 1) return <>{text}</>;
  let offset = 0;
  return (
    <>
      {pieces.map((piece) => {
        const start = offset;
        offset += piece.length;
        return (
          <Fragment key={start}>
            {start === 0 ? null : <wbr />}
            {piece}
          </Fragment>
        );
      })}
    </>
  );
}
