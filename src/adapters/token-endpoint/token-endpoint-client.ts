/** A POST to a third party's OAuth token endpoint. */
export interface TokenEndpointRequest {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface TokenEndpointResponse {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: Buffer;
}

/**
 * Sends token requests to third parties. Implementations throw a `ServiceError`: `forbidden` when
 * the address is refused, `bad_gateway` when the endpoint is unreachable or misbehaves,
 * `gateway_timeout` when it is too slow.
 */
export interface TokenEndpointClient {
  post(request: TokenEndpointRequest): Promise<TokenEndpointResponse>;
}
