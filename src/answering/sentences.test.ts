import { describe, expect, it } from 'vitest';
import { sentencesOf, unitsOf } from './sentences.js';

describe('sentencesOf', () => {
  it('cuts prose at sentence ends but not after abbreviations or initials', () => {
    expect(
      sentencesOf('Ask Dr. Smith about it. Holidays are 25 days, e.g. in 2024. J. R. Doe agrees!'),
    ).toEqual(['Ask Dr. Smith about it.', 'Holidays are 25 days, e.g. in 2024.', 'J. R. Doe agrees!']);
  });

  it('makes headings and list items their own sentences, without their markers', () => {
    expect(sentencesOf('# Holidays\n\n- 25 days a year\n- 5 carried over\n1. Ask your manager')).toEqual([
      'Holidays',
      '25 days a year',
      '5 carried over',
      'Ask your manager',
    ]);
  });

  it('joins prose wrapped onto the next line', () => {
    expect(sentencesOf('Everyone gets 25 days of\npaid holiday. Ask HR.')).toEqual([
      'Everyone gets 25 days of paid holiday.',
      'Ask HR.',
    ]);
  });

  it('joins only after a line that does not end a thought, however many lines are wrapped', () => {
    expect(sentencesOf('Everyone gets\nholidays.\nthen more')).toEqual([
      'Everyone gets holidays.',
      'then more',
    ]);
    expect(sentencesOf('a\n'.repeat(50_000))).toEqual([Array.from({ length: 50_000 }, () => 'a').join(' ')]);
  });

  it('reads a fenced block as one code unit with its language, and each part of one a chunk cut', () => {
    expect(unitsOf('Configure it:\n\n```yaml\nservice: web\n\nport: 8080\n```\n\nDone.')).toEqual([
      { kind: 'sentence', text: 'Configure it:', block: 0 },
      { kind: 'code', text: 'service: web\n\nport: 8080', block: 1, language: 'yaml' },
      { kind: 'sentence', text: 'Done.', block: 2 },
    ]);
    // The chunk before the cut: the fence opens and nothing closes it.
    expect(unitsOf('Configure it:\n\n~~~yaml\nservice: web\nname: api')).toEqual([
      { kind: 'sentence', text: 'Configure it:', block: 0 },
      { kind: 'code', text: 'service: web\nname: api', block: 1, language: 'yaml' },
    ]);
    // The chunk after it: the block's last lines end with its closing fence.
    expect(unitsOf('port: 8080\nreplicas: 3\n```\n\nDone.')).toEqual([
      { kind: 'code', text: 'port: 8080\nreplicas: 3', block: 0 },
      { kind: 'sentence', text: 'Done.', block: 1 },
    ]);
  });

  it('reads a command on its own line after the line introducing it as code, and other short lines as prose', () => {
    expect(unitsOf('Install it with:\n\nnpm install semver\n\nThen import it.')).toEqual([
      { kind: 'sentence', text: 'Install it with:', block: 0 },
      { kind: 'code', text: 'npm install semver', block: 1 },
      { kind: 'sentence', text: 'Then import it.', block: 2 },
    ]);
    expect(unitsOf('Our motto:\n\nShip it.').map((unit) => unit.kind)).toEqual(['sentence', 'sentence']);
    expect(unitsOf('Note\n\nnpm install semver').map((unit) => unit.kind)).toEqual(['sentence', 'sentence']);
  });
});
