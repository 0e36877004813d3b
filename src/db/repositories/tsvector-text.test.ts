import { describe, expect, it } from 'vitest';
import { tsvectorPostings } from './tsvector-text.js';

describe('tsvectorPostings', () => {
  it('counts positions, weighted or not, and gives a lexeme without positions a frequency of 1', () => {
    expect(tsvectorPostings("'cat':1,4,9 'dog':2B 'fish':3A,5 'bare'")).toEqual([
      { term: 'cat', frequency: 3 },
      { term: 'dog', frequency: 1 },
      { term: 'fish', frequency: 2 },
      { term: 'bare', frequency: 1 },
    ]);
  });

  it('undoes the doubled quotes and backslashes PostgreSQL writes inside a lexeme', () => {
    expect(tsvectorPostings("'x.com/a''b?q=1':10 'c:\\\\temp':2 'a b':1 '''':3 'ünïcode😀':4,5")).toEqual([
      { term: "x.com/a'b?q=1", frequency: 1 },
      { term: 'c:\\temp', frequency: 1 },
      { term: 'a b', frequency: 1 },
      { term: "'", frequency: 1 },
      { term: 'ünïcode😀', frequency: 2 },
    ]);
  });

  it('reads an empty tsvector as no postings and refuses text that is not one', () => {
    expect(tsvectorPostings('')).toEqual([]);
    expect(() => tsvectorPostings('cat:1')).toThrow(/not a tsvector/);
    expect(() => tsvectorPostings("'cat")).toThrow(/not closed/);
  });
});
