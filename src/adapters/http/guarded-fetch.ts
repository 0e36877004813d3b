import { lookup } from 'node:dns/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { SourceError } from '../source-error.js';
import { isRefusedAddress } from '../token-endpoint/address-policy.js';
import { unsendableHeader } from './unsendable-header.js';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

export interface GuardedFetchOptions {
  /** Let addresses resolve to private, loopback, link-local and reserved addresses. */
  readonly allowPrivateNetwork: boolean;
  /** Exact host names or `*.suffix` patterns (subdomains only); empty allows any host. */
  readonly allowedHosts: readonly string[];
  /**
   * Origins an administrator configured (e.g. WIKI_BASE_URL's): exempt from the host list, the
   * address check and the https rule, since users cannot choose them.
   */
  readonly trustedOrigins: readonly string[];
  /** Longest wait to connect, and longest silence once connected. */
  readonly timeoutMs: number;
  /** Longest whole exchange, when set: a server dripping bytes keeps an idle timer happy forever. */
  readonly totalTimeoutMs?: number | undefined;
  readonly maxResponseBytes: number;
  /** Names the remote in messages, e.g. `the wiki`. Default `the source`. */
  readonly sourceName?: string | undefined;
  /** Extra trusted CA certificates (PEM), for private deployments and tests. */
  readonly ca?: string | undefined;
  /** Name resolution, replaceable in tests to make a name resolve anywhere. */
  readonly resolve?: ((hostname: string) => Promise<readonly ResolvedAddress[]>) | undefined;
}

export interface GuardedRequest {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  readonly signal?: AbortSignal | undefined;
}

/** A complete answer, whatever its status: 3xx included, since redirects are never followed. */
export class GuardedResponse {
  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    readonly body: Buffer,
    private readonly describeSource: string,
  ) {}

  text(): string {
    return this.body.toString('utf8');
  }

  /** The body parsed as JSON; `bad_response` when it is not JSON (a login page, a proxy's error). */
  json(): unknown {
    try {
      return JSON.parse(this.text());
    } catch (error) {
      const contentType = this.headers['content-type']?.slice(0, 80);
      throw new SourceError(
        'bad_response',
        `${this.describeSource} answered HTTP ${this.status} with something that is not JSON${
          contentType === undefined ? '' : ` (${contentType})`
        }`,
        { status: this.status, cause: error },
      );
    }
  }
}

/**
 * Outbound GET/POST for knowledge sources whose address users choose. It resolves the name itself,
 * checks the policy against every address, then connects to those very addresses (a rebinding DNS
 * gets no second lookup). Policy, unless the origin is trusted:
 * - the host must match `allowedHosts` (when not empty);
 * - no address may be private, loopback, link-local or reserved unless `allowPrivateNetwork`;
 * - plain http only to private addresses with `allowPrivateNetwork`: credentials never cross the
 *   internet in clear text; https is always fine.
 * Redirects are returned, not followed: the caller's credentials must not travel to where a
 * `Location` header points. Every failure is a `SourceError`; an abort rejects with the signal's reason.
 */
export class GuardedFetch {
  private readonly trustedOrigins: ReadonlySet<string>;
  private readonly sourceName: string;

  constructor(private readonly options: GuardedFetchOptions) {
    this.trustedOrigins = new Set(options.trustedOrigins.map((origin) => new URL(origin).origin));
    this.sourceName = options.sourceName ?? 'the source';
  }

  /** Checks the policy for this URL (resolving its host) without sending anything. */
  async check(url: string | URL): Promise<void> {
    await this.checkedTarget(url, undefined);
  }

  async request(url: string | URL, request: GuardedRequest = {}): Promise<GuardedResponse> {
    request.signal?.throwIfAborted();
    checkHeaders(request.headers ?? {});
    const target = await this.checkedTarget(url, request.signal);
    return this.send(target, request);
  }

  private async checkedTarget(url: string | URL, signal: AbortSignal | undefined): Promise<CheckedTarget> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new SourceError('refused', `Refused: the address of ${this.sourceName} is not a valid URL`);
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
      throw new SourceError('refused', `Refused: ${this.sourceName} must be reached over http or https`);
    }
    const hostname = normalHostname(parsed.hostname);
    const trusted = this.trustedOrigins.has(parsed.origin);
    const { allowPrivateNetwork, allowedHosts } = this.options;
    if (!trusted) {
      if (!isHostAllowed(hostname, allowedHosts)) {
        throw new SourceError(
          'refused',
          `Refused: ${hostname} is not among the hosts allowed for ${this.sourceName} (${allowedHosts.join(', ')})`,
        );
      }
      if (parsed.protocol === 'http:' && !allowPrivateNetwork) {
        throw new SourceError(
          'refused',
          `Refused: ${this.sourceName} at ${hostname} must be reached over https, not plain http`,
        );
      }
    }
    const addresses = await this.resolve(hostname);
    signal?.throwIfAborted();
    if (!trusted) {
      // One refused address refuses the name: a mixed answer is how DNS rebinding hides.
      const privateAddress = addresses.find((candidate) => isRefusedAddress(candidate.address));
      if (privateAddress !== undefined && !allowPrivateNetwork) {
        throw new SourceError(
          'refused',
          `Refused: ${hostname} resolves to ${privateAddress.address}, a private, loopback, link-local or reserved address`,
        );
      }
      const publicAddress = addresses.find((candidate) => !isRefusedAddress(candidate.address));
      if (parsed.protocol === 'http:' && publicAddress !== undefined) {
        throw new SourceError(
          'refused',
          `Refused: ${hostname} resolves to the public address ${publicAddress.address}, which must be reached over https, not plain http`,
        );
      }
    }
    return { url: parsed, hostname, addresses };
  }

  private async resolve(hostname: string): Promise<readonly ResolvedAddress[]> {
    const family = isIP(hostname);
    if (family !== 0) return [{ address: hostname, family }];
    let addresses: readonly ResolvedAddress[];
    try {
      addresses = await (this.options.resolve ?? ((name) => lookup(name, { all: true, verbatim: true })))(
        hostname,
      );
    } catch (error) {
      throw new SourceError(
        'unavailable',
        `The host of ${this.sourceName}, ${hostname}, could not be resolved`,
        {
          cause: error,
        },
      );
    }
    if (addresses.length === 0) {
      throw new SourceError('unavailable', `The host of ${this.sourceName}, ${hostname}, has no address`);
    }
    return addresses;
  }

  private send(target: CheckedTarget, request: GuardedRequest): Promise<GuardedResponse> {
    const { timeoutMs, totalTimeoutMs, maxResponseBytes, ca } = this.options;
    const { url, hostname, addresses } = target;
    const describeSource = `${capitalized(this.sourceName)} at ${hostname}`;
    const signal = request.signal;
    const [first] = addresses;
    const pinnedLookup: LookupFunction = (_name, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, addresses.slice());
      else if (first !== undefined) callback(null, first.address, first.family);
    };
    const body =
      request.body === undefined
        ? undefined
        : typeof request.body === 'string'
          ? Buffer.from(request.body, 'utf8')
          : Buffer.from(request.body);
    const isHttps = url.protocol === 'https:';

    return new Promise((resolve, reject) => {
      let settled = false;
      let connected = false;
      const finish = (error: unknown, response?: GuardedResponse) => {
        if (settled) return;
        settled = true;
        if (deadline !== undefined) clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
        if (response !== undefined) resolve(response);
        else {
          outgoing.destroy();
          reject(error);
        }
      };
      const onAbort = () => finish(signal?.reason);
      const timedOut = (limitMs: number) =>
        finish(
          new SourceError(
            'timeout',
            `${describeSource} did not ${connected ? 'answer' : 'connect'} within ${limitMs} ms`,
          ),
        );

      const outgoing = (isHttps ? https : http).request({
        protocol: url.protocol,
        // The name, not the address: it makes the Host header and TLS (SNI, certificate check) right.
        hostname,
        port: url.port === '' ? (isHttps ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: request.method ?? 'GET',
        headers: {
          ...request.headers,
          ...(body === undefined ? {} : { 'content-length': String(body.length) }),
        },
        lookup: pinnedLookup,
        agent: false,
        // Socket inactivity: bounds both connecting and each silence while answering.
        timeout: timeoutMs,
        ...(isHttps && ca !== undefined ? { ca } : {}),
        ...(isHttps && isIP(hostname) === 0 ? { servername: hostname } : {}),
      });
      const deadline =
        totalTimeoutMs === undefined ? undefined : setTimeout(() => timedOut(totalTimeoutMs), totalTimeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });

      outgoing.on('socket', (socket) => {
        socket.once(isHttps ? 'secureConnect' : 'connect', () => {
          connected = true;
        });
      });
      outgoing.on('timeout', () => timedOut(timeoutMs));
      outgoing.on('error', (error: NodeJS.ErrnoException) => finish(networkFailure(error, describeSource)));
      outgoing.on('response', (incoming) => {
        const status = incoming.statusCode ?? 0;
        const tooLarge = () =>
          finish(
            new SourceError('too_large', `${describeSource} answered more than ${maxResponseBytes} bytes`, {
              status,
            }),
          );
        const declaredLength = Number(incoming.headers['content-length']);
        if (Number.isFinite(declaredLength) && declaredLength > maxResponseBytes) {
          tooLarge();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) tooLarge();
          else chunks.push(chunk);
        });
        incoming.on('error', (error) =>
          finish(
            new SourceError('unavailable', `${describeSource} broke off its answer`, {
              status,
              cause: error,
            }),
          ),
        );
        incoming.on('end', () =>
          finish(
            undefined,
            new GuardedResponse(status, incoming.headers, Buffer.concat(chunks), describeSource),
          ),
        );
      });
      outgoing.end(body);
    });
  }
}

interface CheckedTarget {
  readonly url: URL;
  readonly hostname: string;
  readonly addresses: readonly ResolvedAddress[];
}

/** True when the host is listed, or under a listed `*.suffix` (not the bare suffix), or the list is empty. */
export function isHostAllowed(hostname: string, allowedHosts: readonly string[]): boolean {
  if (allowedHosts.length === 0) return true;
  const host = normalHostname(hostname);
  return allowedHosts.some((pattern) => {
    const normal = pattern.trim().toLowerCase();
    return normal.startsWith('*.') ? host.endsWith(normal.slice(1)) : host === normalHostname(normal);
  });
}

/** Lower case, without IPv6 brackets or the root's trailing dot (`a.example.` is `a.example`). */
function normalHostname(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

const CERTIFICATE_ERROR =
  /^(CERT_|ERR_TLS_CERT|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_)/;

function networkFailure(error: NodeJS.ErrnoException, describeSource: string): SourceError {
  const code = error.code ?? error.message;
  if (CERTIFICATE_ERROR.test(code)) {
    // A certificate or TLS mismatch is a setup problem: retrying will not mend it.
    return new SourceError('bad_response', `${describeSource} failed the TLS handshake (${code})`, {
      cause: error,
    });
  }
  if (code === 'ETIMEDOUT') {
    return new SourceError('timeout', `${describeSource} did not answer in time (${code})`, { cause: error });
  }
  return new SourceError('unavailable', `${describeSource} could not be reached (${code})`, { cause: error });
}

/** Refuses headers Node cannot send. The value is not quoted: it may be a secret. */
function checkHeaders(headers: Readonly<Record<string, string>>): void {
  const name = unsendableHeader(headers);
  if (name !== undefined) {
    throw new SourceError(
      'bad_response',
      `The ${name} header cannot be sent: it holds characters that HTTP headers do not allow`,
    );
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
