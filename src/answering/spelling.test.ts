import { describe, expect, it } from 'vitest';
import { americanSpelling } from './spelling.js';

describe('americanSpelling', () => {
  it('spells British word endings the American way', () => {
    expect(americanSpelling('The centre of the theatres, centred on fibre')).toBe(
      'The center of the theaters, centered on fiber',
    );
    expect(americanSpelling('Colour and behaviours honoured')).toBe('Color and behaviors honored');
    expect(americanSpelling('We organise an organisation and analysed it')).toBe(
      'We organize an organization and analyzed it',
    );
    expect(americanSpelling('travelled, modelling')).toBe('traveled, modeling');
  });

  it('leaves short words that only end alike, so no two words become one', () => {
    const text = 'four hours of your tour; flour; rise, raise and noise; filled and called; genre and acre';
    expect(americanSpelling(text)).toBe(text);
  });

  it('leaves American spellings as they are', () => {
    const text = 'The center of color, organized and traveled';
    expect(americanSpelling(text)).toBe(text);
  });
});
