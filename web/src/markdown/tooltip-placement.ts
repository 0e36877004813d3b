/** A box in viewport pixels, as getBoundingClientRect gives it. */
export interface Box {
  readonly top: number;
  readonly left: number;
  readonly width: number;
  readonly height: number;
}

/** Kept between a tooltip and the viewport's sides. */
const VIEWPORT_MARGIN = 8;

function overlaps(a: Box, b: Box): boolean {
  // Boxes that only touch do not cover each other.
  return (
    a.left < b.left + b.width &&
    b.left < a.left + a.width &&
    a.top < b.top + b.height &&
    b.top < a.top + a.height
  );
}

/**
 * Where a tooltip of `size` goes for the chip at `chip` (fixed positioning): right under it, else
 * right over it, lined up with its left edge or else its right edge, the first place that covers
 * none of the `others` chips and fits the viewport; failing that, the first that covers no chip;
 * failing that, the first that fits. Flush with the chip, so a pointer can move onto it.
 */
export function placeTooltip(
  chip: Box,
  size: { readonly width: number; readonly height: number },
  others: readonly Box[],
  viewport: { readonly width: number; readonly height: number },
): { top: number; left: number } {
  const clampLeft = (left: number) =>
    Math.max(VIEWPORT_MARGIN, Math.min(left, viewport.width - size.width - VIEWPORT_MARGIN));
  const tops = [chip.top + chip.height, chip.top - size.height];
  const lefts = [clampLeft(chip.left), clampLeft(chip.left + chip.width - size.width)];
  const candidates = tops.flatMap((top) =>
    lefts.map((left) => {
      const box = { top, left, width: size.width, height: size.height };
      return {
        place: { top, left },
        clear: !others.some((other) => overlaps(box, other)),
        fits: top >= 0 && top + size.height <= viewport.height,
      };
    }),
  );
  const best =
    candidates.find((candidate) => candidate.clear && candidate.fits) ??
    candidates.find((candidate) => candidate.clear) ??
    candidates.find((candidate) => candidate.fits) ??
    candidates[0];
  return best === undefined ? { top: tops[0] ?? 0, left: lefts[0] ?? 0 } : best.place;
}
