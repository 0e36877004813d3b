import { describe, expect, it } from 'vitest';
import type { IngestSummary } from './ingest.js';
import { formatSummaryText } from './summary.js';

const base: IngestSummary = {
  source: 'corpus.jsonl',
  indexed: 0,
  skipped: 0,
  failed: 0,
  queued: 0,
  skipped_reasons: {},
  failed_reasons: {},
  skipped_examples: [],
  failures: [],
  jobs: [],
  elapsed_seconds: 0,
  aborted: null,
};

describe('formatSummaryText', () => {
  it('lists counts with reasons, the first few problems, and the rate', () => {
    const failures = Array.from({ length: 7 }, (_, index) => ({
      status: 'failed' as const,
      id: `doc-${index}`,
      line: index + 1,
      name: `Doc ${index}`,
      reason: 'invalid_line',
      message: 'bad',
    }));
    const text = formatSummaryText({
      ...base,
      indexed: 90,
      skipped: 3,
      failed: 7,
      skipped_reasons: { unchanged: 2, unsupported_type: 1 },
      failed_reasons: { invalid_line: 7 },
      skipped_examples: [
        { status: 'skipped', id: null, name: 'img/logo.png', reason: 'unsupported_type', message: null },
      ],
      failures,
      jobs: ['j1'],
      elapsed_seconds: 12.5,
    });
    expect(text).toBe(
      [
        'Indexed       90',
        'Skipped        3  unchanged 2, unsupported_type 1',
        '    img/logo.png: unsupported_type',
        'Failed         7  invalid_line 7',
        '    line 1 (doc-0): invalid_line: bad',
        '    line 2 (doc-1): invalid_line: bad',
        '    line 3 (doc-2): invalid_line: bad',
        '    line 4 (doc-3): invalid_line: bad',
        '    line 5 (doc-4): invalid_line: bad',
        '    … and 2 more',
        'Elapsed      13s (8.0 docs/s)',
        '',
      ].join('\n'),
    );
  });

  it('says when the run stopped early and what it left queued', () => {
    const text = formatSummaryText({
      ...base,
      indexed: 1,
      queued: 4,
      jobs: ['a', 'b'],
      elapsed_seconds: 1,
      aborted: 'the service refused the token (401): Not authenticated',
    });
    expect(text).toMatch(/^Stopped early: the service refused the token/);
    expect(text).toContain('Queued         4  not waited for (2 jobs)');
  });
});
