import { describe, expect, it } from 'vitest';
import { hitOf } from '../../test/fakes/fake-team-search.js';
import { citedNumbers, citedSources, numberPassages, snippetOf, withoutCitations } from './citations.js';

describe('citedNumbers', () => {
  it('reads single, listed, adjacent and ranged citations, each number once in order of first use', () => {
    expect(citedNumbers('Holidays are 25 days [2]. Carry-over is 5 [1, 3][4]; see [2].')).toEqual([
      2, 1, 3, 4,
    ]);
    expect(citedNumbers('As stated [1-3] and [Source 5] and [^6] and [7;8].')).toEqual([1, 2, 3, 5, 6, 7, 8]);
  });

  it('ignores brackets that are not citations', () => {
    expect(citedNumbers('Use array[i] or [see above] or [] or [12345].')).toEqual([]);
  });

  it('does not expand an absurd range', () => {
    expect(citedNumbers('[1-500]')).toEqual([1]);
  });
});

describe('withoutCitations', () => {
  it('takes the markers out and mends the spacing', () => {
    expect(withoutCitations('Holidays are 25 days [1]. Carry-over is 5 [2, 3][4].')).toBe(
      'Holidays are 25 days. Carry-over is 5.',
    );
  });
});

describe('numberPassages and citedSources', () => {
  const handbookA = hitOf(
    { title: 'Handbook', text: 'Holidays are 25 days.', url: 'https://intranet/handbook' },
    0,
  );
  const expenses = hitOf({ title: 'Expenses', text: 'Receipts within 30 days.', externalId: 'exp-1' }, 1);
  const handbookB = hitOf(
    { title: 'Handbook', text: 'Carry over 5 days.', url: 'https://intranet/handbook' },
    2,
  );

  it('gives chunks of one document one number, numbered by best rank', () => {
    const passages = numberPassages([handbookA, expenses, handbookB]);
    expect(passages.map((passage) => passage.number)).toEqual([1, 2, 1]);
  });

  it('lists only cited documents, once each, in citation order, ignoring numbers that name nothing', () => {
    const passages = numberPassages([handbookA, expenses, handbookB]);
    const sources = citedSources('Holidays are 25 days [1]. See also [1][7].', passages);
    expect(sources).toHaveLength(1);
    expect(sources[0]).toMatchObject({
      citation: 1,
      title: 'Handbook',
      file_name: 'Handbook',
      file_path: 'https://intranet/handbook',
      url: 'https://intranet/handbook',
      snippet: 'Holidays are 25 days.',
      mimetype: 'text/plain',
      creation_date: '2024-05-01',
      last_modified_date: '2024-05-01',
      page_labels: [],
      document_id: handbookA.documentId,
      chunk_id: handbookA.chunkId,
    });
    expect(citedSources('Receipts [2] and holidays [1].', passages).map((source) => source.citation)).toEqual(
      [1, 2],
    );
  });

  it("gives the passage of the document the answer quotes, not the document's best-ranked one", () => {
    // Two sections of one document: one number, two passages.
    const hooksSection = (heading: string, text: string, rank: number) =>
      hitOf(
        {
          title: 'Hooks',
          fileName: 'fastify-Hooks.md',
          externalId: 'fastify-Hooks.md',
          documentId: 7,
          headingPath: ['Hooks', heading],
          text,
        },
        rank,
      );
    const startup = hooksSection(
      'onListen',
      'Triggered when the server starts listening for requests. The hooks run one after another.',
      3,
    );
    const timeout = hooksSection(
      'onTimeout',
      'The onTimeout hook is executed when a request is timed out and the HTTP socket has been hung up.',
      4,
    );
    const passages = numberPassages([startup, timeout]);
    expect(passages.map((passage) => passage.number)).toEqual([1, 1]);
    const [quoted] = citedSources(
      'The onTimeout hook is executed when a request is timed out and the HTTP socket has been hung up [1].',
      passages,
    );
    expect(quoted).toMatchObject({ citation: 1, chunk_id: timeout.chunkId });
    expect(quoted?.snippet.startsWith('The onTimeout hook is executed')).toBe(true);
    // An answer in other words than any passage's: the best-ranked one stands.
    const [paraphrased] = citedSources('It fires after the time limit passes [1].', passages);
    expect(paraphrased).toMatchObject({ chunk_id: startup.chunkId });
  });

  it('names a document without a URL by its source and external id', () => {
    const [source] = citedSources('[1]', numberPassages([expenses]));
    expect(source).toMatchObject({
      file_path: 'upload/exp-1',
      url: null,
      document_id: expenses.documentId,
      chunk_id: expenses.chunkId,
    });
  });

  it('names an uploaded file by its file name, with the title it gives itself beside it', () => {
    const pino = hitOf(
      { title: 'API', fileName: 'pino-api.md', text: 'Options.', externalId: 'pino-api.md' },
      3,
    );
    const [source] = citedSources('[1]', numberPassages([pino]));
    expect(source).toMatchObject({ file_name: 'pino-api.md', title: 'API', file_path: 'upload/pino-api.md' });
  });

  it('has no sources for an answer that cites nothing', () => {
    expect(citedSources('Not in your sources.', numberPassages([handbookA]))).toEqual([]);
  });
});

describe('snippetOf', () => {
  it('keeps short text whole on one line and cuts long text at a word', () => {
    expect(snippetOf('a\n\nshort   text')).toBe('a short text');
    expect(snippetOf('Configure it:\n\n```yaml\nservice: web\n```')).toBe('Configure it: service: web');
    const long = 'word '.repeat(100);
    const snippet = snippetOf(long, 50);
    expect(snippet.length).toBeLessThanOrEqual(51);
    expect(snippet.endsWith('word…')).toBe(true);
  });
});
