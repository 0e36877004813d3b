import { ServiceError, type ServiceErrorCode } from '../errors.js';

/** The `error` codes of RFC 6749 (5.2), RFC 7591 (3.2.2), RFC 7009 and RFC 8707 this server answers with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata';

const SERVICE_CODE_OF: Readonly<Record<OAuthErrorCode, ServiceErrorCode>> = {
  invalid_request: 'bad_request',
  // A public client has no credentials to get wrong: an unknown client_id (RFC 6749: 401).
  invalid_client: 'unauthenticated',
  invalid_grant: 'bad_request',
  unsupported_grant_type: 'bad_request',
  invalid_target: 'bad_request',
  invalid_redirect_uri: 'bad_request',
  invalid_client_metadata: 'bad_request',
};

/**
 * A refusal an OAuth client is told about in its protocol's words (`error`, `error_description`);
 * elsewhere it is the plain ServiceError it extends.
 */
export class OAuthError extends ServiceError {
  constructor(
    readonly oauthCode: OAuthErrorCode,
    message: string,
  ) {
    super(SERVICE_CODE_OF[oauthCode], message);
    this.name = 'OAuthError';
  }
}
