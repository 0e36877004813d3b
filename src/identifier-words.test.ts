import { describe, expect, it } from 'vitest';
import { identifierWords } from './identifier-words.js';

describe('identifierWords', () => {
  it('says camelCase, CONSTANT_CASE, dotted and acronym-led identifiers as words', () => {
    expect(identifierWords('`msgPrefix` (String)')).toBe('msg prefix');
    expect(identifierWords('use FORCE_COLOR=1')).toBe('force color');
    expect(identifierWords('ignoreTrailingSlash and reply.redirect')).toBe(
      'ignore trailing slash reply redirect',
    );
    expect(identifierWords('an HTTPServer')).toBe('http server');
  });

  it('gives nothing for plain words, numbers and versions, and each identifier once', () => {
    expect(identifierWords('The minimum level to log, since v2.3.1 or 1.2.3.')).toBe('');
    expect(identifierWords('logLevel then logLevel again')).toBe('log level');
  });
});

describe('identifierWords on names that only look like identifiers', () => {
  it('leaves a name with a one-letter piece whole', () => {
    expect(identifierWords('mTOR signalling in iPhone apps, x.y')).toBe('');
  });
});
