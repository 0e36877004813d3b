import { ServiceError, type ServiceErrorCode } from '../errors.js';

/** The `scimType`s of RFC 7644 (3.12) this service answers with. */
export type ScimType =
  | 'invalidFilter'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'invalidValue'
  | 'noTarget'
  | 'uniqueness'
  | 'mutability';

/**
 * A ServiceError a SCIM client is told about with RFC 7644's `scimType` (which kind of 400, or a
 * 409 for a taken user name); elsewhere it is the plain ServiceError it extends.
 */
export class ScimError extends ServiceError {
  constructor(
    code: ServiceErrorCode,
    readonly scimType: ScimType,
    message: string,
  ) {
    super(code, message);
    this.name = 'ScimError';
  }

  static invalidValue(message: string): ScimError {
    return new ScimError('bad_request', 'invalidValue', message);
  }

  static invalidSyntax(message: string): ScimError {
    return new ScimError('bad_request', 'invalidSyntax', message);
  }
}
