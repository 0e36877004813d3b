import { ServiceError } from '../errors.js';
import { MIN_PASSWORD_LENGTH } from '../security/passwords.js';

/**
 * A password someone chose, checked before anything is hashed: at least `MIN_PASSWORD_LENGTH`
 * characters (code points). The 422 names the field but never echoes the password back.
 */
export function assertNewPasswordLength(password: string, field: string): void {
  if ([...password].length >= MIN_PASSWORD_LENGTH) return;
  throw ServiceError.validation([
    {
      type: 'string_too_short',
      loc: ['body', field],
      msg: `String should have at least ${MIN_PASSWORD_LENGTH} characters`,
      ctx: { min_length: MIN_PASSWORD_LENGTH },
    },
  ]);
}
