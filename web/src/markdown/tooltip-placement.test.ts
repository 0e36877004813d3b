import { describe, expect, it } from 'vitest';
import { type Box, placeTooltip } from './tooltip-placement';

const viewport = { width: 375, height: 812 };
const size = { width: 300, height: 80 };
const box = (left: number, top: number, width = 24, height = 20): Box => ({ left, top, width, height });

describe('placeTooltip', () => {
  it('puts the tooltip right under the chip, lined up with its left edge, when nothing is in the way', () => {
    expect(placeTooltip(box(40, 200), size, [box(70, 200)], viewport)).toEqual({ top: 220, left: 40 });
  });

  it('keeps it inside the viewport: a chip near the right edge gets a tooltip shifted left', () => {
    expect(placeTooltip(box(340, 200), size, [], viewport)).toEqual({ top: 220, left: 375 - 300 - 8 });
  });

  it('goes over the chip when a chip on the next line is under it', () => {
    expect(placeTooltip(box(40, 200), size, [box(100, 225)], viewport)).toEqual({ top: 120, left: 40 });
  });

  it('lines up with the right edge when that clears chips under and over the left-aligned place', () => {
    const chip = box(320, 200);
    // Left-aligned (clamped to 67–367), the places under and over cover these; right-aligned (44–344) not.
    const others = [box(350, 225, 10), box(350, 150, 10)];
    expect(placeTooltip(chip, size, others, viewport)).toEqual({ top: 220, left: 44 });
  });

  it('prefers covering no chip over fitting the viewport', () => {
    expect(placeTooltip(box(40, 10), size, [box(100, 35)], viewport)).toEqual({ top: -70, left: 40 });
  });
});
