import { describe, expect, it } from 'vitest';
import type { CitedSource } from '../answering/citations.js';
import { sourcesList } from './openai-chat-completion.js';

function cited(fields: Partial<CitedSource>): CitedSource {
  return {
    file_name: 'notes.md',
    file_path: 'upload/notes',
    mimetype: 'text/markdown',
    creation_date: '2026-01-02',
    last_modified_date: '2026-01-02',
    page_labels: [],
    title: 'Notes',
    url: null,
    snippet: '',
    citation: 1,
    document_id: 7,
    chunk_id: 42,
    ...fields,
  };
}

describe('sourcesList', () => {
  it("links each source to its URL, else to its passage's page, titles and URLs kept intact as Markdown", () => {
    const list = sourcesList(
      [
        cited({ title: 'Runbook [draft]', url: 'https://wiki.example/Run book (v2)' }),
        cited({ citation: 2, title: '  ', file_name: 'plan.pdf', document_id: 9, chunk_id: 3 }),
      ],
      'https://knowledge.example',
    );
    expect(list).toBe(
      [
        '',
        '',
        'Sources:',
        '- [1] [Runbook \\[draft\\]](https://wiki.example/Run%20book%20%28v2%29)',
        '- [2] [plan.pdf](https://knowledge.example/documents/9?passage=3)',
      ].join('\n'),
    );
  });
});
