import { describe, expect, it } from 'vitest';
import { fieldErrors } from './field-errors';

describe('fieldErrors', () => {
  it("puts each problem on its field, in plain words where the validator's are known", () => {
    const { byField, other } = fieldErrors(
      [
        {
          loc: ['body', 'password'],
          msg: 'String should have at least 8 characters',
          type: 'string_too_short',
          ctx: { min_length: 8 },
        },
        { loc: ['body', 'email'], msg: 'The e-mail address has no @', type: 'value_error' },
        { loc: ['body', 'chatappCode'], msg: 'Bad code', type: 'value_error' },
        { loc: ['query', 'email'], msg: 'Not here', type: 'value_error' },
      ],
      ['email', 'password', 'name'] as const,
    );
    expect(byField).toEqual({ password: 'Use at least 8 characters.', email: 'The e-mail address has no @' });
    expect(other).toEqual(['Bad code', 'Not here']);
  });

  it('reads the length from the message when the issue has no ctx', () => {
    const { byField } = fieldErrors(
      [
        {
          loc: ['body', 'password'],
          msg: 'String should have at least 8 characters',
          type: 'string_too_short',
        },
      ],
      ['password'] as const,
    );
    expect(byField.password).toBe('Use at least 8 characters.');
  });

  it('joins two problems of one field', () => {
    const { byField } = fieldErrors(
      [
        { loc: ['body', 'name'], msg: 'Too long.', type: 'x' },
        { loc: ['body', 'name'], msg: 'Odd.', type: 'y' },
      ],
      ['name'] as const,
    );
    expect(byField.name).toBe('Too long. Odd.');
  });
});
