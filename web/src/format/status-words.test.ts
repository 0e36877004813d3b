import { describe, expect, it } from 'vitest';
import { outcomeWords, reasonWords, sourceName, statusWord } from './status-words';

describe('statusWord', () => {
  it('keeps the settled words and reads everything in between as pending', () => {
    expect(statusWord('indexed')).toBe('indexed');
    expect(statusWord('skipped')).toBe('skipped');
    expect(statusWord('failed')).toBe('failed');
    expect(statusWord('queued')).toBe('pending');
    expect(statusWord('indexing')).toBe('pending');
    expect(statusWord('something_new')).toBe('pending');
  });
});

describe('outcomeWords', () => {
  it('says why in words', () => {
    expect(outcomeWords('skipped', 'unchanged')).toBe('skipped: unchanged since it was last indexed');
    expect(outcomeWords('failed', 'parse_error', 'bad xref')).toBe('failed: its content could not be read');
    expect(outcomeWords('indexed', null)).toBe('indexed');
  });

  it("falls back to the server's message for a failure without a reason", () => {
    expect(outcomeWords('failed', null, 'The job was cancelled')).toBe('failed: The job was cancelled');
  });

  it('shows an unknown reason code readably', () => {
    expect(reasonWords('brand_new_reason')).toBe('brand new reason');
  });
});

describe('sourceName', () => {
  it('names the sources', () => {
    expect(sourceName('googledrive')).toBe('Google Drive');
    expect(sourceName('wiki')).toBe('Confluence');
    expect(sourceName('other')).toBe('other');
  });
});
