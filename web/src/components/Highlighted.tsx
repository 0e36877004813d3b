import { Fragment } from 'react';
import { splitHighlights } from '../format/highlight';

/** Text with the query's words in <mark>: split as text, never parsed as HTML. */
export function Highlighted({ text, terms }: { text: string; terms: readonly string[] }) {
  return (
    <>
      {splitHighlights(text, terms).map((segment, index) =>
        segment.match ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: segments have no identity beyond their place in the text
          <mark key={index}>{segment.text}</mark>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: as above
          <Fragment key={index}>{segment.text}</Fragment>
        ),
      )}
    </>
  );
}
