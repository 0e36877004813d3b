import { ServiceError } from '../../errors.js';
import { GuardedHttpClient, GuardedHttpError, type ResolvedAddress } from '../http/guarded-http-client.js';
import type {
  TokenEndpointClient,
  TokenEndpointRequest,
  TokenEndpointResponse,
} from './token-endpoint-client.js';

export interface GuardedHttpsOptions {
  readonly allowPrivateNetwork: boolean;
  /** The whole exchange, connecting included. */
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** Extra trusted CA certificates (PEM), for private deployments and tests. */
  readonly ca?: string | undefined;
  /** Name resolution, replaceable in tests to make an allowed name resolve anywhere. */
  readonly resolve?: ((hostname: string) => Promise<readonly ResolvedAddress[]>) | undefined;
}

/**
 * POSTs over HTTPS only, through `GuardedHttpClient` (the address it connects to is one it checked
 * itself; no redirects; bounded time and size), failing with `ServiceError`s as the token proxy
 * answers them. The proxy's own allowlist of exact URLs is the service's: no host list here.
 */
export class GuardedHttpsClient implements TokenEndpointClient {
  private readonly client: GuardedHttpClient;

  constructor(options: GuardedHttpsOptions) {
    const { timeoutMs, ...policy } = options;
    this.client = new GuardedHttpClient({
      ...policy,
      // One deadline for the whole exchange too, not only an idle one: an endpoint that drips its
      // answer a byte at a time must not hold the request (and a socket) for as long as it likes.
      timeoutMs,
      totalTimeoutMs: timeoutMs,
      remoteName: 'the token endpoint',
    });
  }

  async post(request: TokenEndpointRequest): Promise<TokenEndpointResponse> {
    const { url, headers, body } = request;
    if (url.protocol !== 'https:')
      throw new ServiceError('forbidden', 'Refused: only https endpoints are allowed');
    const response = await this.client
      .request(url, { method: 'POST', headers, body })
      .catch(rethrowAsServiceError);
    if (response.status >= 300 && response.status < 400) {
      throw new ServiceError(
        'bad_gateway',
        `The token endpoint answered with a redirect (HTTP ${response.status}), which is not followed`,
      );
    }
    return { status: response.status, contentType: response.headers['content-type'], body: response.body };
  }
}

/** The proxy's words for each failure: 403 for a refused address, 502 or 504 for the endpoint's own. */
function rethrowAsServiceError(error: unknown): never {
  if (!(error instanceof GuardedHttpError)) throw error;
  const { problem } = error;
  switch (problem.kind) {
    case 'refused':
      throw new ServiceError('forbidden', error.message);
    case 'unsendable_header':
      throw new ServiceError('bad_request', error.message);
    case 'unresolved':
      throw new ServiceError(
        'bad_gateway',
        `The token endpoint's host ${problem.hostname} could not be resolved`,
      );
    case 'timeout':
      throw new ServiceError(
        'gateway_timeout',
        `The token endpoint did not ${problem.connected ? 'answer' : 'connect'} within ${problem.limitMs} ms`,
      );
    case 'too_large':
      throw new ServiceError(
        'bad_gateway',
        `The token endpoint's answer exceeded ${problem.limitBytes} bytes`,
      );
    case 'broken_answer':
      throw new ServiceError('bad_gateway', 'The token endpoint broke off its answer');
    case 'connection_failed':
      throw new ServiceError('bad_gateway', `The token endpoint could not be reached (${problem.code})`);
  }
}
