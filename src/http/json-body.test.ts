import { describe, expect, it } from 'vitest';
import { findSyntaxErrorIndex, parseJsonBody } from './json-body.js';

describe('parseJsonBody', () => {
  it('parses JSON', () => {
    expect(parseJsonBody('{"a":[1,2,{"b":null}]}')).toEqual({ ok: true, value: { a: [1, 2, { b: null }] } });
  });

  it.each([
    ['{"a":}', 5],
    ['{"a": 1,}', 8],
    ['[1 2]', 3],
    ['{"a": tru}', 9],
    ['hello', 0],
    ['{"a": "unterminated', 19],
    ['{"a": 1} x', 9],
    ['{', 1],
    ['{"a": 01}', 7],
    ['{"a": "\\x"}', 8],
  ])('finds where %s stops being JSON', (text, offset) => {
    expect(findSyntaxErrorIndex(text)).toBe(offset);
    expect(parseJsonBody(text)).toEqual({ ok: false, offset });
  });

  it('counts the offset in bytes, as FastAPI does', () => {
    expect(parseJsonBody('{"é": x}')).toEqual({ ok: false, offset: 7 });
  });
});
