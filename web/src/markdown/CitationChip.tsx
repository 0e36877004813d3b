import { type KeyboardEvent, type ReactNode, useId, useState } from 'react';
import type { CitedSource } from '../api/types';
import { Link } from '../router/Link';
import { sourceTarget } from './source-target';

interface CitationChipProps {
  citation: number;
  source: CitedSource | undefined;
}

/**
 * `[n]` in an answer: named exactly `[n]`, described by a tooltip with the source's title and the
 * cited passage (shown on hover and focus by CSS; Escape hides it, as WCAG 1.4.13 asks). It opens the
 * source: a web URL in a new tab, else the document's page in the app.
 */
export function CitationChip({ citation, source }: CitationChipProps) {
  const tooltipId = useId();
  const [dismissed, setDismissed] = useState(false);
  const label = `[${citation}]`;
  // While the answer streams, its sources are not known yet (they come last): plain text until then.
  if (source === undefined) return <span className="citation-pending">{label}</span>;

  const target = sourceTarget(source);
  const chipProps = {
    className: 'citation-chip',
    'aria-describedby': tooltipId,
    onKeyDown: (event: KeyboardEvent) => {
      if (event.key === 'Escape') setDismissed(true);
    },
    // Dismissed until the pointer or focus comes back.
    onBlur: () => setDismissed(false),
    onMouseEnter: () => setDismissed(false),
  };
  let chip: ReactNode;
  if (target?.kind === 'web') {
    chip = (
      <a href={target.href} target="_blank" rel="noopener noreferrer" {...chipProps}>
        {label}
      </a>
    );
  } else if (target?.kind === 'app') {
    chip = (
      <Link to={target.href} {...chipProps}>
        {label}
      </Link>
    );
  } else {
    chip = (
      <button type="button" {...chipProps}>
        {label}
      </button>
    );
  }
  return (
    <span className={dismissed ? 'citation citation-dismissed' : 'citation'}>
      {chip}
      <span role="tooltip" id={tooltipId} className="citation-tooltip">
        <span className="citation-tooltip-title">{source.title}</span>
        {source.snippet === '' ? null : <span className="citation-tooltip-snippet">{source.snippet}</span>}
      </span>
    </span>
  );
}
