import { lookup } from 'node:dns/promises';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ServiceError } from '../../errors.js';
import { unsendableHeader } from '../http/unsendable-header.js';
import { isRefusedAddress } from './address-policy.js';
import type {
  TokenEndpointClient,
  TokenEndpointRequest,
  TokenEndpointResponse,
} from './token-endpoint-client.js';

export interface GuardedHttpsOptions {
  readonly allowPrivateNetwork: boolean;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** Extra trusted CA certificates (PEM), for private deployments and tests. */
  readonly ca?: string | undefined;
  /** Name resolution, replaceable in tests to make an allowed name resolve anywhere. */
  readonly resolve?: (hostname: string) => Promise<{ address: string; family: number }[]>;
}

/**
 * POSTs over HTTPS only, to an address it has checked itself: it resolves the name, refuses
 * private and reserved addresses, then connects to that very address (no second lookup that a
 * rebinding DNS could answer differently). No redirects, bounded time and size.
 */
export class GuardedHttpsClient implements TokenEndpointClient {
  constructor(private readonly options: GuardedHttpsOptions) {}

  async post(request: TokenEndpointRequest): Promise<TokenEndpointResponse> {
    const { url } = request;
    if (url.protocol !== 'https:')
      throw new ServiceError('forbidden', 'Refused: only https endpoints are allowed');
    checkHeaders(request.headers);
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const address = await this.checkedAddress(hostname);
    return this.send(request, hostname, address);
  }

  private async checkedAddress(hostname: string): Promise<{ address: string; family: number }> {
    let addresses: { address: string; family: number }[];
    try {
      addresses =
        isIP(hostname) !== 0
          ? [{ address: hostname, family: isIP(hostname) }]
          : await (this.options.resolve ?? ((name) => lookup(name, { all: true, verbatim: true })))(hostname);
    } catch {
      throw new ServiceError('bad_gateway', `The token endpoint's host ${hostname} could not be resolved`);
    }
    const first = addresses[0];
    if (first === undefined) {
      throw new ServiceError('bad_gateway', `The token endpoint's host ${hostname} could not be resolved`);
    }
    if (!this.options.allowPrivateNetwork) {
      // One refused address refuses the name: a mixed answer is how DNS rebinding hides.
      const refused = addresses.find((candidate) => isRefusedAddress(candidate.address));
      if (refused !== undefined) {
        throw new ServiceError(
          'forbidden',
          `Refused: ${hostname} resolves to ${refused.address}, a private, loopback, link-local or reserved address`,
        );
      }
    }
    return first;
  }

  private send(
    request: TokenEndpointRequest,
    hostname: string,
    checked: { address: string; family: number },
  ): Promise<TokenEndpointResponse> {
    const { timeoutMs, maxResponseBytes, ca } = this.options;
    const pinnedLookup: LookupFunction = (_name, options, callback) => {
      if (options.all) callback(null, [checked]);
      else callback(null, checked.address, checked.family);
    };
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (error: ServiceError | undefined, response?: TokenEndpointResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        if (error !== undefined) {
          outgoing.destroy();
          reject(error);
        } else if (response !== undefined) {
          resolve(response);
        }
      };
      const body = Buffer.from(request.body, 'utf8');
      const outgoing = https.request({
        protocol: 'https:',
        hostname,
        port: request.url.port === '' ? 443 : Number(request.url.port),
        path: `${request.url.pathname}${request.url.search}`,
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(body.length) },
        lookup: pinnedLookup,
        agent: false,
        ...(ca === undefined ? {} : { ca }),
        ...(isIP(hostname) === 0 ? { servername: hostname } : {}),
      });
      // One deadline for the whole exchange, not an idle timeout: an endpoint that drips its answer a
      // byte at a time must not hold the request (and a socket) for as long as it likes.
      let connected = false;
      const deadline = setTimeout(
        () =>
          finish(
            new ServiceError(
              'gateway_timeout',
              `The token endpoint did not ${connected ? 'answer' : 'connect'} within ${timeoutMs} ms`,
            ),
          ),
        timeoutMs,
      );
      outgoing.on('socket', (socket) => {
        socket.once('secureConnect', () => {
          connected = true;
        });
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) =>
        finish(
          new ServiceError(
            'bad_gateway',
            `The token endpoint could not be reached (${error.code ?? error.message})`,
          ),
        ),
      );
      outgoing.on('response', (incoming) => {
        const status = incoming.statusCode ?? 502;
        if (status >= 300 && status < 400) {
          incoming.resume();
          finish(
            new ServiceError(
              'bad_gateway',
              `The token endpoint answered with a redirect (HTTP ${status}), which is not followed`,
            ),
          );
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) {
            finish(
              new ServiceError(
                'bad_gateway',
                `The token endpoint's answer exceeded ${maxResponseBytes} bytes`,
              ),
            );
            return;
          }
          chunks.push(chunk);
        });
        incoming.on('error', () =>
          finish(new ServiceError('bad_gateway', 'The token endpoint broke off its answer')),
        );
        incoming.on('end', () =>
          finish(undefined, {
            status,
            contentType: incoming.headers['content-type'],
            body: Buffer.concat(chunks),
          }),
        );
      });
      outgoing.end(body);
    });
  }
}

/** Refuses headers Node cannot send. The value is not quoted: it may be a secret. */
function checkHeaders(headers: Readonly<Record<string, string>>): void {
  const name = unsendableHeader(headers);
  if (name !== undefined) {
    throw new ServiceError(
      'bad_request',
      `The ${name} header cannot be sent: it holds characters that HTTP headers do not allow`,
    );
  }
}
