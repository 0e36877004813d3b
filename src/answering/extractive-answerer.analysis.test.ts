import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { hitOf } from '../../test/fakes/fake-team-search.js';
import { analyzeTexts } from '../db/repositories/search.js';
import { sqlConnection } from '../db/sql-connection.js';
import { numberPassages } from './citations.js';
import { ExtractiveAnswerer } from './extractive-answerer.js';

// With PostgreSQL's own English analysis (as `TeamSearch.analyze` runs it), where the fake's
// word splitting would hide how a name is read.
const database = new PGlite();
const sql = sqlConnection(database);
const answerer = new ExtractiveAnswerer({
  analyze: (texts) => analyzeTexts(sql, texts),
  termStatistics: async (_teamId, terms) => ({
    chunks: 1,
    documentFrequencies: new Map(terms.map((term) => [term, 1])),
  }),
});

afterAll(() => database.close());

async function answer(question: string, text: string): Promise<string> {
  let answered = '';
  for await (const piece of answerer.answer({
    teamId: 1,
    question,
    history: [],
    topic: [],
    passages: numberPassages([hitOf({ title: 'Transport', text }, 0)]),
    signal: new AbortController().signal,
  })) {
    answered += piece;
  }
  return answered;
}

describe('ExtractiveAnswerer with PostgreSQL’s analysis', () => {
  it('reads a name written with a slash ("V/Line") as the one word the analyser makes of it', async () => {
    const text = await answer(
      'What entity owns V/Line?',
      'Major operators include Metro Trains Melbourne and V/Line, which is now owned by the Victorian Government.',
    );
    expect(text).toContain('owned by the Victorian Government [1].');
  });

  it('reads a hyphenated name and the same name spelled apart alike', async () => {
    const text = await answer(
      'What craft were the Port-Royal monks known for?',
      'Several monks of Port-Royal fled to the hills and founded a school. At Port Royal, a craft of bookbinding had developed.',
    );
    expect(text.startsWith('At Port Royal, a craft of bookbinding had developed [1].')).toBe(true);
  });

  it('does not match the noun that only says which kind of answer is asked ("which year")', async () => {
    const text = await answer(
      'In which year did the newspaper define the southern region?',
      'Each year in spring, the southern region has about 10,000 earthquakes. In 1900, the Times defined the southern region as seven counties.',
    );
    expect(text.startsWith('In 1900, the Times defined the southern region as seven counties [1].')).toBe(
      true,
    );
  });
});
