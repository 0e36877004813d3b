import { describe, expect, it } from 'vitest';
import { errorFromBody, UNAVAILABLE_MESSAGE } from './http';

describe('errorFromBody', () => {
  it("keeps the service's detail", () => {
    const error = errorFromBody(401, { detail: 'Incorrect e-mail or password' });
    expect(error.status).toBe(401);
    expect(error.detail).toBe('Incorrect e-mail or password');
  });

  it("reads a 422's issues", () => {
    const error = errorFromBody(422, {
      detail: [
        { loc: ['body', 'password'], msg: 'String should have at least 8 characters', type: 'too_short' },
      ],
    });
    expect(error.issues).toEqual([
      { loc: ['body', 'password'], msg: 'String should have at least 8 characters', type: 'too_short' },
    ]);
    expect(error.detail).toBe('String should have at least 8 characters');
  });

  it('says a 503 is the service being unavailable', () => {
    expect(errorFromBody(503, { detail: 'The database is unavailable; try again shortly' }).detail).toBe(
      UNAVAILABLE_MESSAGE,
    );
  });

  it('has words for a body without a detail', () => {
    expect(errorFromBody(502, undefined).detail).toBe('The request failed (HTTP 502); try again.');
    expect(errorFromBody(429, null).detail).toMatch(/try again/);
  });
});
