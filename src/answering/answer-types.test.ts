import { describe, expect, it } from 'vitest';
import {
  ANSWER_TYPE_NOUN,
  askedKind,
  countedNoun,
  countedNounsIn,
  expectedAnswerType,
  isQuestion,
  questionWords,
  typedWordsIn,
} from './answer-types.js';

describe('expectedAnswerType', () => {
  it('reads the kind of answer from the question word', () => {
    expect(expectedAnswerType('How many engineers work here?')).toBe('number');
    expect(expectedAnswerType('What percentage of staff work remotely?')).toBe('number');
    expect(expectedAnswerType('How long does a refund take?')).toBe('number');
    expect(expectedAnswerType('When was the company founded?')).toBe('date');
    expect(expectedAnswerType('In what year did the Normans arrive?')).toBe('date');
    expect(expectedAnswerType('Who signs off expenses?')).toBe('name');
    expect(expectedAnswerType('Where is the head office?')).toBe('name');
    expect(expectedAnswerType('Which country hosts the data?')).toBe('name');
  });

  it('reads the asked noun after "what is the" and "what was the"', () => {
    expect(expectedAnswerType('What was the percentage of people that voted for the act?')).toBe('number');
    expect(expectedAnswerType('What is the population of Melbourne?')).toBe('number');
    expect(expectedAnswerType('In which year was the bridge built?')).toBe('date');
    expect(expectedAnswerType('What is the city with the most offices?')).toBe('name');
    expect(expectedAnswerType('What is the reason for the delay?')).toBeUndefined();
  });

  it('reads "what is … called?" and "what is the name of the …" as asking for a name', () => {
    expect(expectedAnswerType('What is the lower house of the parliament called?')).toBe('name');
    expect(expectedAnswerType('What were the settlers known as')).toBe('name');
    expect(expectedAnswerType('What is the name of the state east of the region?')).toBe('name');
    expect(expectedAnswerType('What is the name of the year the bridge opened?')).toBe('date');
    expect(expectedAnswerType('What is the fee for a call?')).toBeUndefined();
  });

  it('reads the question word that opens the question, not one that opens a clause', () => {
    expect(expectedAnswerType("Who led Richard's troops when Cyprus was conquered?")).toBe('name');
    expect(expectedAnswerType('What did the monks who fled to Italy build?')).toBeUndefined();
    expect(expectedAnswerType('Dyrrachium fell to the Normans in what year?')).toBe('date');
  });

  it('expects no particular kind for why, how and what-is questions', () => {
    expect(expectedAnswerType('Why was the release delayed?')).toBeUndefined();
    expect(expectedAnswerType('How do I reset my password?')).toBeUndefined();
    expect(expectedAnswerType('What is the refund policy?')).toBeUndefined();
  });
});

describe('ANSWER_TYPE_NOUN', () => {
  it('takes the noun that names a date or a place out of the words that ask for it', () => {
    const without = (question: string) => question.replace(ANSWER_TYPE_NOUN, '$1');
    expect(without('In which year did the newspaper define the region?')).toBe(
      'In which did the newspaper define the region?',
    );
    expect(without('What is the name of the state the region extends to?')).toBe(
      'What is the name of the the region extends to?',
    );
    expect(without('Which country ruled California?')).toBe('Which ruled California?');
    expect(without('What is the population of the state?')).toBe('What is the population of the state?');
  });
});

describe('askedKind', () => {
  it('reads up to three words after "which" or "what" as the kind of thing asked for', () => {
    expect(askedKind('Which Fastify hook lets me rewrite the body?')).toBe('Fastify hook lets');
    expect(askedKind('What status code comes back?')).toBe('status code comes');
    expect(askedKind('How do I set a timeout?')).toBeUndefined();
  });
});

describe('countedNoun and countedNounsIn', () => {
  it('reads what a "how many…" question counts, and what a sentence gives the count of', () => {
    expect(countedNoun('How many attempts does it make by default?')).toBe('attempts');
    expect(countedNoun('how many of the workers stay idle?')).toBe('workers');
    expect(countedNoun('How long does it wait?')).toBeUndefined();
    expect(
      countedNounsIn('Maximum number of retries. Sets the total of the pool and the count of workers.'),
    ).toEqual(['retries', 'pool', 'workers']);
  });
});

describe('typedWordsIn', () => {
  const asked = questionWords('When did Richard reach Cyprus in May?');

  it('counts words of the type that the question does not already say', () => {
    expect(typedWordsIn('Richard reached Cyprus on 6 May 1191.', 'date', asked)).toBe(1);
    expect(typedWordsIn('Richard reached Cyprus in May.', 'date', asked)).toBe(0);
    expect(typedWordsIn('It happened in the 12th century.', 'date', asked)).toBe(2);
    expect(typedWordsIn('The company employs 240 engineers and two interns.', 'number', new Set())).toBe(2);
    expect(
      typedWordsIn('The fleet was led by Guy de Lusignan.', 'name', questionWords('Who led the fleet?')),
    ).toBe(2);
  });

  it('counts an early year by the word before or after it, not any three-digit number', () => {
    expect(typedWordsIn('The duchy began in 911 as a fiefdom.', 'date', new Set())).toBe(1);
    expect(typedWordsIn('The city was founded around 800 AD.', 'date', new Set())).toBe(2);
    expect(typedWordsIn('The duchy raised 911 soldiers.', 'date', new Set())).toBe(0);
  });

  it('does not count the capital of a sentence’s first word as a name', () => {
    expect(typedWordsIn('Everyone agreed.', 'name', new Set())).toBe(0);
  });
});

describe('isQuestion', () => {
  it('tells questions from statements', () => {
    expect(isQuestion('what is the refund policy')).toBe(true);
    expect(isQuestion('The refund policy covers 30 days?')).toBe(true);
    expect(isQuestion('Coffee consumption reduces the risk of diabetes.')).toBe(false);
  });
});
