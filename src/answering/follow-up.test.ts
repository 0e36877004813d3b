import { describe, expect, it } from 'vitest';
import { isFollowUp, standaloneQuery } from './follow-up.js';

const history = [
  { role: 'user' as const, content: 'How many days of holiday do employees get?' },
  { role: 'assistant' as const, content: 'Everyone gets 25 days [1].' },
];

describe('standaloneQuery', () => {
  it('adds the previous question to a follow-up that leans on it', () => {
    for (const question of [
      'And contractors?',
      'Why?',
      'Can they carry it over?',
      'What about part-time staff?',
    ]) {
      expect(standaloneQuery(question, history)).toBe(
        `How many days of holiday do employees get?\n${question}`,
      );
    }
  });

  it('searches a question with its own subject alone', () => {
    expect(standaloneQuery('What is the refund policy?', history)).toBe('What is the refund policy?');
  });

  it('reads a pronoun as the question’s own when it names its subject', () => {
    for (const question of [
      'What century did the Normans first gain their separate identity?',
      'When did Victoria enact its constitution?',
      'How many farms are there in Victoria?',
      'What is the name of the region that borders the sea?',
    ]) {
      expect(isFollowUp(question), question).toBe(false);
    }
    for (const question of [
      'How much does it cost?',
      'When did they sign the contract?',
      'Who founded it?',
    ]) {
      expect(isFollowUp(question), question).toBe(true);
    }
  });

  it('has nothing to add at the start of a conversation', () => {
    expect(standaloneQuery('Why?', [])).toBe('Why?');
  });
});
