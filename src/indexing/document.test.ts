import { describe, expect, it } from 'vitest';
import { fileNameWords } from '../file-name-words.js';
import { contextualText } from './document.js';

describe('contextualText', () => {
  it("indexes a chunk with its document's title, file name, headings and the words of their identifiers", () => {
    const text = contextualText(
      'API',
      { text: 'The prefix of every message.', headingPath: ['API', 'options', '`msgPrefix` (String)'] },
      'pino-api.md',
    );
    expect(text.split('\n')).toEqual([
      'API',
      'pino api',
      'options > `msgPrefix` (String)',
      'The prefix of every message.',
      'msg prefix',
    ]);
  });

  it("gives each chunk its own file's and heading's words when chunks of different files and headings alternate", () => {
    const chunk = (headingPath: string[]) => ({ text: 'Body.', headingPath });
    expect(contextualText('Guide', chunk(['setUp']), 'a-file.md')).toBe(
      'Guide\na file\nsetUp\nBody.\nset up',
    );
    expect(contextualText('Guide', chunk(['setUp']), 'a-file.md')).toBe(
      'Guide\na file\nsetUp\nBody.\nset up',
    );
    expect(contextualText('Guide', chunk(['setUp']), 'other_file.md')).toBe(
      'Guide\nother file\nsetUp\nBody.\nset up',
    );
    expect(contextualText('Guide', chunk(['tearDown']), 'other_file.md')).toBe(
      'Guide\nother file\ntearDown\nBody.\ntear down',
    );
    expect(contextualText('readMe', chunk(['tearDown']))).toBe('readMe\ntearDown\nBody.\nread me tear down');
  });

  it('leaves out what a chunk does not have', () => {
    expect(contextualText('Notes', { text: 'Plain text.', headingPath: [] })).toBe('Notes\nPlain text.');
  });
});

describe('fileNameWords', () => {
  it("reads a file's name as words, without its extension", () => {
    expect(fileNameWords('fastify-Validation-and-Serialization.md')).toBe(
      'fastify Validation and Serialization',
    );
    expect(fileNameWords('release_notes.v2.txt')).toBe('release notes v2');
    expect(fileNameWords('.env')).toBe('env');
  });
});
