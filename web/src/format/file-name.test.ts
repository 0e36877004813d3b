import { describe, expect, it } from 'vitest';
import { fileNameBesideTitle } from './file-name';

describe('fileNameBesideTitle', () => {
  it('shows a file name that differs from the title', () => {
    expect(fileNameBesideTitle('API', 'pino-api.md')).toBe('pino-api.md');
    expect(fileNameBesideTitle('Café menu', 'menu-2.md')).toBe('menu-2.md');
  });

  it('shows nothing when there is no file name or it is the title', () => {
    expect(fileNameBesideTitle('Roadmap', null)).toBeUndefined();
    expect(fileNameBesideTitle('Roadmap', undefined)).toBeUndefined();
    expect(fileNameBesideTitle('Roadmap', ' ')).toBeUndefined();
    expect(fileNameBesideTitle('notes.txt', 'notes.txt')).toBeUndefined();
  });
});
