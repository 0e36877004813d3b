import { describe, expect, it } from 'vitest';
import { FakeTeamSearch, hitOf } from '../../test/fakes/fake-team-search.js';
import type { ConversationTurn, Passage } from './answerer.js';
import { numberPassages } from './citations.js';
import { ExtractiveAnswerer, NOT_FOUND_ANSWER, withCitation } from './extractive-answerer.js';

const analyzer = new FakeTeamSearch();

async function answer(
  question: string,
  passages: readonly Passage[],
  options: { history?: ConversationTurn[]; limits?: { maxSentences?: number; maxWords?: number } } = {},
) {
  const answerer = new ExtractiveAnswerer(analyzer, options.limits);
  const pieces: string[] = [];
  for await (const piece of answerer.answer({
    question,
    history: options.history ?? [],
    passages,
    signal: new AbortController().signal,
  })) {
    pieces.push(piece);
  }
  return { pieces, text: pieces.join('') };
}

function passagesOf(...documents: { title: string; text: string; url?: string }[]) {
  return numberPassages(documents.map((document, index) => hitOf(document, index)));
}

const handbook = {
  title: 'Employee handbook',
  url: 'https://intranet/handbook',
  text: [
    '# Working here',
    'Our office opens at 8am on weekdays. The canteen serves lunch from noon.',
    'Every employee gets 25 days of paid holiday each year. Unused holiday days can be carried over, up to 5 days.',
    'Parking permits are issued by facilities.',
  ].join('\n\n'),
};
const expenses = {
  title: 'Expenses policy',
  url: 'https://intranet/expenses',
  text: 'Submit expense receipts within 30 days of purchase. Holiday travel is never reimbursed by the company.',
};

describe('ExtractiveAnswerer', () => {
  it('answers with the sentences that match the question, each cited, nothing unrelated', async () => {
    const { text } = await answer(
      'How many days of paid holiday do employees get?',
      passagesOf(handbook, expenses),
    );
    expect(text).toContain('Every employee gets 25 days of paid holiday each year [1].');
    expect(text).not.toContain('canteen');
    expect(text).not.toContain('Parking');
  });

  it('groups sentences by source, in reading order, and cites each with its own number', async () => {
    const { text, pieces } = await answer(
      'Are holiday days carried over, and is holiday travel reimbursed?',
      passagesOf(handbook, expenses),
    );
    expect(pieces.length).toBeGreaterThan(1);
    const carried = text.indexOf('Unused holiday days can be carried over, up to 5 days [1].');
    const travel = text.indexOf('Holiday travel is never reimbursed by the company [2].');
    expect(carried).toBeGreaterThanOrEqual(0);
    expect(travel).toBeGreaterThanOrEqual(0);
    // One paragraph per source.
    expect(text.split('\n\n')).toHaveLength(2);
  });

  it('puts the sources in citation order even when a later one holds the best sentence', async () => {
    const travel = { title: 'Travel', text: 'Holiday travel is not reimbursed.' };
    const { text } = await answer('holiday', passagesOf(handbook, travel));
    expect(text).toContain('Holiday travel is not reimbursed [2].');
    expect(text.indexOf('[1]')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf('[1]')).toBeLessThan(text.indexOf('[2]'));
  });

  it('says plainly that nothing was found when there are no passages', async () => {
    expect((await answer('What is the capital of Mongolia?', [])).text).toBe(NOT_FOUND_ANSWER);
  });

  it('says nothing was found when no sentence shares the question’s meaningful terms', async () => {
    const { text } = await answer('Which vaccines does the travel clinic recommend?', passagesOf(handbook));
    expect(text).toBe(NOT_FOUND_ANSWER);
  });

  it('leaves out a sentence that repeats or rephrases one already chosen', async () => {
    const repeated = {
      title: 'Handbook, part 2',
      text: 'Every employee gets 25 days of paid holiday each year.',
    };
    const rephrased = { title: 'Summary', text: 'Employees get 25 days of paid holiday.' };
    const { text } = await answer(
      'How many days of paid holiday do employees get?',
      passagesOf(handbook, repeated, rephrased),
    );
    expect(text.match(/25 days of paid holiday/g)).toHaveLength(1);
  });

  it('keeps to the length limits', async () => {
    const many = {
      title: 'Holiday FAQ',
      text: [
        'Holiday requests need approval from your manager.',
        'Holiday requests over ten days need sign-off by HR.',
        'Holiday requests in December need two weeks of notice.',
        'Holiday requests abroad need a travel form.',
        'Cancelled holiday requests need nothing more.',
      ].join(' '),
    };
    const { text } = await answer('What do holiday requests need?', passagesOf(many), {
      limits: { maxSentences: 3 },
    });
    expect(text.match(/\[1\]/g)).toHaveLength(3);

    const long = { title: 'Long', text: `Holiday ${'words '.repeat(200)}end.` };
    const cut = await answer('holiday', passagesOf(long), { limits: { maxWords: 20 } });
    expect(cut.text.split(/\s+/).length).toBeLessThanOrEqual(22);
  });

  it('prefers the sentence of the higher-ranked passage when two match equally', async () => {
    const first = { title: 'Current policy', text: 'Remote work is allowed two days per week.' };
    const second = { title: 'Old policy', text: 'Remote work is allowed one day per week.' };
    const { text } = await answer('remote work days per week', passagesOf(first, second), {
      limits: { maxSentences: 1 },
    });
    expect(text).toBe('Remote work is allowed two days per week [1].');
  });

  it('matches a follow-up together with the question it follows', async () => {
    const { text } = await answer('And can they be carried over?', passagesOf(handbook), {
      history: [
        { role: 'user', content: 'How many holiday days do employees get?' },
        { role: 'assistant', content: 'Every employee gets 25 days [1].' },
      ],
    });
    expect(text).toContain('carried over');
  });
});

describe('withCitation', () => {
  it('puts the citation before the end mark, or after a sentence without one', () => {
    expect(withCitation('Holidays are 25 days.', 2)).toBe('Holidays are 25 days [2].');
    expect(withCitation('25 days a year', 1)).toBe('25 days a year [1]');
  });
});
