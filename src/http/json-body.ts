import { ServiceError } from '../errors.js';
/**
 * Parses a JSON request body. On failure it reports the byte offset where the text stops being
 * JSON, as FastAPI does (`loc: ["body", <offset>]`), which `JSON.parse` of Node 20 does not give.
 */
export function parseJsonBody(text: string): { ok: true; value: unknown } | { ok: false; offset: number } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, offset: Buffer.byteLength(text.slice(0, findSyntaxErrorIndex(text)), 'utf8') };
  }
}

/** The index of the first character that cannot continue a JSON text (its length if it ends early). */
export function findSyntaxErrorIndex(text: string): number {
  let position = 0;
  const fail = (): never => {
    throw position;
  };
  const skipSpace = () => {
    while (position < text.length && ' \t\n\r'.includes(text.charAt(position))) position++;
  };
  const expectLiteral = (literal: string) => {
    for (const character of literal) {
      if (text[position] !== character) fail();
      position++;
    }
  };
  const parseString = () => {
    position++; // opening quote
    while (position < text.length) {
      const character = text.charAt(position);
      if (character === '"') {
        position++;
        return;
      }
      if (character === '\\') {
        position++;
        const escaped = text.charAt(position);
        if (escaped === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(position + 1, position + 5))) fail();
          position += 5;
        } else if ('"\\/bfnrt'.includes(escaped) && escaped !== '') {
          position++;
        } else {
          fail();
        }
      } else if (character.charCodeAt(0) < 0x20) {
        fail();
      } else {
        position++;
      }
    }
    fail();
  };
  const parseNumber = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(position));
    if (match === null || match[0] === '' || match[0] === '-') fail();
    position += match?.[0].length ?? 0;
  };
  const parseValue = (depth: number): void => {
    if (depth > 10_000) fail();
    skipSpace();
    const character = text[position];
    if (character === '{') {
      position++;
      skipSpace();
      if (text[position] === '}') {
        position++;
        return;
      }
      for (;;) {
        skipSpace();
        if (text[position] !== '"') fail();
        parseString();
        skipSpace();
        if (text[position] !== ':') fail();
        position++;
        parseValue(depth + 1);
        skipSpace();
        if (text[position] === ',') {
          position++;
          continue;
        }
        if (text[position] === '}') {
          position++;
          return;
        }
        fail();
      }
    }
    if (character === '[') {
      position++;
      skipSpace();
      if (text[position] === ']') {
        position++;
        return;
      }
      for (;;) {
        parseValue(depth + 1);
        skipSpace();
        if (text[position] === ',') {
          position++;
          continue;
        }
        if (text[position] === ']') {
          position++;
          return;
        }
        fail();
      }
    }
    if (character === '"') parseString();
    else if (character === 't') expectLiteral('true');
    else if (character === 'f') expectLiteral('false');
    else if (character === 'n') expectLiteral('null');
    else if (character === '-' || (character !== undefined && character >= '0' && character <= '9'))
      parseNumber();
    else fail();
  };
  try {
    parseValue(0);
    skipSpace();
    if (position < text.length) fail();
    // JSON.parse failed for a reason the scan did not see (e.g. nesting too deep): blame the start.
    return 0;
  } catch (thrown) {
    return typeof thrown === 'number' ? thrown : 0;
  }
}

/** A 422 for a body that is not JSON, at the byte where it stops being JSON (as FastAPI reports it). */
export function invalidJson(offset: number): ServiceError {
  return ServiceError.validation([
    {
      type: 'json_invalid',
      loc: ['body', offset],
      msg: 'JSON decode error',
      input: {},
      ctx: { error: 'Invalid JSON' },
    },
  ]);
}
