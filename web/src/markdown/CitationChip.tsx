import { type ReactNode, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import type { CitedSource } from '../api/types';
import { fileNameBesideTitle } from '../format/file-name';
import { Link } from '../router/Link';
import { sourceTarget } from './source-target';
import { placeTooltip } from './tooltip-placement';

interface CitationChipProps {
  citation: number;
  source: CitedSource | undefined;
}

/** The file name, when it says more than the title ("API" from pino-api.md). */
function distinctFileName(source: CitedSource): string | undefined {
  return fileNameBesideTitle(source.title, source.file_name);
}

/**
 * Opens while the pointer is over the chip or its tooltip, or the chip has focus; closes on pointer
 * leave, blur and Escape (WCAG 1.4.13: dismissable, hoverable, persistent). While open it is placed
 * above or below the chip where it covers no other chip, and follows the chip on scroll and resize.
 */
function useTooltip() {
  const [open, setOpen] = useState(false);
  const citationRef = useRef<HTMLSpanElement>(null);
  const tooltipRef = useRef<HTMLSpanElement>(null);

  useLayoutEffect(() => {
    if (!open) return;
    const place = () => {
      const chip = citationRef.current?.querySelector('.citation-chip');
      const tooltip = tooltipRef.current;
      if (chip == null || tooltip === null) return;
      // Measured at the viewport's corner, so its width does not depend on where it was.
      tooltip.style.top = '0px';
      tooltip.style.left = '0px';
      const others = [...document.querySelectorAll('.citation-chip')]
        .filter((element) => element !== chip)
        .map((element) => element.getBoundingClientRect());
      const { top, left } = placeTooltip(
        chip.getBoundingClientRect(),
        tooltip.getBoundingClientRect(),
        others,
        { width: document.documentElement.clientWidth, height: window.innerHeight },
      );
      tooltip.style.top = `${top}px`;
      tooltip.style.left = `${left}px`;
    };
    place();
    window.addEventListener('scroll', place, { capture: true, passive: true });
    window.addEventListener('resize', place);
    return () => {
      window.removeEventListener('scroll', place, { capture: true });
      window.removeEventListener('resize', place);
    };
  }, [open]);

  useEffect(() => {
    if (!open) return;
    // Escape closes it wherever focus is: the pointer may be over a chip that does not have focus.
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [open]);

  return { open, setOpen, citationRef, tooltipRef };
}

/**
 * `[n]` in an answer: named exactly `[n]`, described by a tooltip with the source's title (and file
 * name) and the cited passage. It opens the source: a web URL in a new tab, else the document's page
 * in the app.
 */
export function CitationChip({ citation, source }: CitationChipProps) {
  const tooltipId = useId();
  const { open, setOpen, citationRef, tooltipRef } = useTooltip();
  const label = `[${citation}]`;
  // While the answer streams, its sources are not known yet (they come last): plain text until then.
  if (source === undefined) return <span className="citation-pending">{label}</span>;

  const target = sourceTarget(source);
  const fileName = distinctFileName(source);
  const chipProps = {
    className: 'citation-chip',
    'aria-describedby': tooltipId,
    onFocus: () => setOpen(true),
    onBlur: () => setOpen(false),
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
    // The tooltip is inside this span, so the pointer moving from the chip onto the tooltip stays "in".
    <span
      ref={citationRef}
      className={open ? 'citation citation-open' : 'citation'}
      onPointerEnter={() => setOpen(true)}
      onPointerLeave={() => setOpen(false)}
    >
      {chip}
      <span role="tooltip" id={tooltipId} className="citation-tooltip" ref={tooltipRef}>
        <span className="citation-tooltip-title">{source.title}</span>
        {fileName === undefined ? null : <span className="citation-tooltip-file">{fileName}</span>}
        {source.snippet === '' ? null : <span className="citation-tooltip-snippet">{source.snippet}</span>}
      </span>
    </span>
  );
}
