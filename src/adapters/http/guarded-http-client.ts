import { lookup } from 'node:dns/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isHostAllowed, isRefusedAddress, normalHostname } from './address-policy.js';
import { unsendableHeader } from './unsendable-header.js';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

export interface GuardedHttpOptions {
  /** Let addresses resolve to private, loopback, link-local and reserved addresses. */
  readonly allowPrivateNetwork: boolean;
  /** Exact host names or `*.suffix` patterns (subdomains only); empty or absent allows any host. */
  readonly allowedHosts?: readonly string[] | undefined;
  /**
   * Origins an administrator configured (e.g. WIKI_BASE_URL's): exempt from the host list, the
   * address check and the https rule, since users cannot choose them.
   */
  readonly trustedOrigins?: readonly string[] | undefined;
  /** Longest wait to connect, and longest silence once connected. */
  readonly timeoutMs: number;
  /** Longest whole exchange, when set: a server dripping bytes keeps an idle timer happy forever. */
  readonly totalTimeoutMs?: number | undefined;
  readonly maxResponseBytes: number;
  /** Names the remote in messages, e.g. `the wiki`. Default `the remote`. */
  readonly remoteName?: string | undefined;
  /** Extra trusted CA certificates (PEM), for private deployments and tests. */
  readonly ca?: string | undefined;
  /** Name resolution, replaceable in tests to make a name resolve anywhere. */
  readonly resolve?: ((hostname: string) => Promise<readonly ResolvedAddress[]>) | undefined;
}

export interface GuardedHttpRequest {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  readonly signal?: AbortSignal | undefined;
}

/** A complete answer, whatever its status: 3xx included, since redirects are never followed. */
export interface GuardedHttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The remote as messages name it, e.g. `The wiki at acme.atlassian.net`. */
  readonly describeRemote: string;
}

/** Why a guarded request failed: data for the caller, who maps it to its own error. */
export type GuardedHttpProblem =
  /** Refused by the policy before anything was sent. */
  | {
      readonly kind: 'refused';
      readonly rule:
        | 'invalid_url'
        | 'scheme'
        | 'host_not_allowed'
        | 'plain_http'
        | 'private_address'
        | 'plain_http_to_public_address';
    }
  /** A header value Node cannot send; the message names the header, never its value (a secret, perhaps). */
  | { readonly kind: 'unsendable_header'; readonly name: string }
  | { readonly kind: 'unresolved'; readonly hostname: string }
  | { readonly kind: 'timeout'; readonly limitMs: number; readonly connected: boolean }
  | { readonly kind: 'too_large'; readonly limitBytes: number; readonly status: number }
  /** The answer started, then the connection broke. */
  | { readonly kind: 'broken_answer'; readonly status: number }
  /** No answer: `certificate` for TLS problems (setup, not luck), `timed_out` for the OS's time-out. */
  | {
      readonly kind: 'connection_failed';
      readonly code: string;
      readonly reason: 'certificate' | 'timed_out' | 'other';
    };

/**
 * The one error of `GuardedHttpClient`: `problem` says what went wrong, the message says it in
 * words fit for a user (the remote named by `remoteName`). Callers map it to their own error.
 */
export class GuardedHttpError extends Error {
  constructor(
    readonly problem: GuardedHttpProblem,
    message: string,
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'GuardedHttpError';
  }
}

/**
 * Outbound HTTP(S) to addresses users may choose. It resolves the name itself, checks the policy
 * against every address, then connects to those very addresses (a rebinding DNS gets no second
 * lookup). Policy, unless the origin is trusted:
 * - the host must match `allowedHosts` (when not empty);
 * - no address may be private, loopback, link-local or reserved unless `allowPrivateNetwork`;
 * - plain http only to private addresses with `allowPrivateNetwork`: credentials never cross the
 *   internet in clear text; https is always fine.
 * Redirects are returned, not followed: the caller's credentials must not travel to where a
 * `Location` header points. Every failure is a `GuardedHttpError`; an abort rejects with the
 * signal's reason.
 */
export class GuardedHttpClient {
  private readonly trustedOrigins: ReadonlySet<string>;
  private readonly remoteName: string;

  constructor(private readonly options: GuardedHttpOptions) {
    this.trustedOrigins = new Set((options.trustedOrigins ?? []).map((origin) => new URL(origin).origin));
    this.remoteName = options.remoteName ?? 'the remote';
  }

  /** Checks the policy for this URL (resolving its host) without sending anything. */
  async check(url: string | URL): Promise<void> {
    await this.checkedTarget(url, undefined);
  }

  async request(url: string | URL, request: GuardedHttpRequest = {}): Promise<GuardedHttpResponse> {
    request.signal?.throwIfAborted();
    const unsendable = unsendableHeader(request.headers ?? {});
    if (unsendable !== undefined) {
      throw new GuardedHttpError(
        { kind: 'unsendable_header', name: unsendable },
        `The ${unsendable} header cannot be sent: it holds characters that HTTP headers do not allow`,
      );
    }
    const target = await this.checkedTarget(url, request.signal);
    return this.send(target, request);
  }

  private async checkedTarget(url: string | URL, signal: AbortSignal | undefined): Promise<CheckedTarget> {
    const remote = this.remoteName;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refused('invalid_url', `Refused: the address of ${remote} is not a valid URL`);
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
      throw refused('scheme', `Refused: ${remote} must be reached over http or https`);
    }
    const hostname = normalHostname(parsed.hostname);
    const trusted = this.trustedOrigins.has(parsed.origin);
    const { allowPrivateNetwork } = this.options;
    const allowedHosts = this.options.allowedHosts ?? [];
    if (!trusted) {
      if (!isHostAllowed(hostname, allowedHosts)) {
        throw refused(
          'host_not_allowed',
          `Refused: ${hostname} is not among the hosts allowed for ${remote} (${allowedHosts.join(', ')})`,
        );
      }
      if (parsed.protocol === 'http:' && !allowPrivateNetwork) {
        throw refused(
          'plain_http',
          `Refused: ${remote} at ${hostname} must be reached over https, not plain http`,
        );
      }
    }
    const addresses = await this.resolve(hostname);
    signal?.throwIfAborted();
    if (!trusted) {
      // One refused address refuses the name: a mixed answer is how DNS rebinding hides.
      const privateAddress = addresses.find((candidate) => isRefusedAddress(candidate.address));
      if (privateAddress !== undefined && !allowPrivateNetwork) {
        throw refused(
          'private_address',
          `Refused: ${hostname} resolves to ${privateAddress.address}, a private, loopback, link-local or reserved address`,
        );
      }
      const publicAddress = addresses.find((candidate) => !isRefusedAddress(candidate.address));
      if (parsed.protocol === 'http:' && publicAddress !== undefined) {
        throw refused(
          'plain_http_to_public_address',
          `Refused: ${hostname} resolves to the public address ${publicAddress.address}, which must be reached over https, not plain http`,
        );
      }
    }
    return { url: parsed, hostname, addresses };
  }

  private async resolve(hostname: string): Promise<readonly ResolvedAddress[]> {
    const family = isIP(hostname);
    if (family !== 0) return [{ address: hostname, family }];
    const unresolved = (why: string, cause?: unknown) =>
      new GuardedHttpError(
        { kind: 'unresolved', hostname },
        `The host of ${this.remoteName}, ${hostname}, ${why}`,
        { cause },
      );
    let addresses: readonly ResolvedAddress[];
    try {
      addresses = await (this.options.resolve ?? ((name) => lookup(name, { all: true, verbatim: true })))(
        hostname,
      );
    } catch (error) {
      throw unresolved('could not be resolved', error);
    }
    if (addresses.length === 0) throw unresolved('has no address');
    return addresses;
  }

  private send(target: CheckedTarget, request: GuardedHttpRequest): Promise<GuardedHttpResponse> {
    const { timeoutMs, totalTimeoutMs, maxResponseBytes, ca } = this.options;
    const { url, hostname, addresses } = target;
    const describeRemote = `${capitalized(this.remoteName)} at ${hostname}`;
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
      const finish = (error: unknown, response?: GuardedHttpResponse) => {
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
          new GuardedHttpError(
            { kind: 'timeout', limitMs, connected },
            `${describeRemote} did not ${connected ? 'answer' : 'connect'} within ${limitMs} ms`,
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
      outgoing.on('error', (error: NodeJS.ErrnoException) =>
        finish(connectionFailure(error, describeRemote)),
      );
      outgoing.on('response', (incoming) => {
        const status = incoming.statusCode ?? 0;
        const tooLarge = () =>
          finish(
            new GuardedHttpError(
              { kind: 'too_large', limitBytes: maxResponseBytes, status },
              `${describeRemote} answered more than ${maxResponseBytes} bytes`,
            ),
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
            new GuardedHttpError(
              { kind: 'broken_answer', status },
              `${describeRemote} broke off its answer`,
              {
                cause: error,
              },
            ),
          ),
        );
        incoming.on('end', () =>
          finish(undefined, {
            status,
            headers: incoming.headers,
            body: Buffer.concat(chunks),
            describeRemote,
          }),
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

function refused(
  rule: Extract<GuardedHttpProblem, { kind: 'refused' }>['rule'],
  message: string,
): GuardedHttpError {
  return new GuardedHttpError({ kind: 'refused', rule }, message);
}

const CERTIFICATE_ERROR =
  /^(CERT_|ERR_TLS_CERT|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_)/;

function connectionFailure(error: NodeJS.ErrnoException, describeRemote: string): GuardedHttpError {
  const code = error.code ?? error.message;
  const options = { cause: error };
  if (CERTIFICATE_ERROR.test(code)) {
    return new GuardedHttpError(
      { kind: 'connection_failed', code, reason: 'certificate' },
      `${describeRemote} failed the TLS handshake (${code})`,
      options,
    );
  }
  if (code === 'ETIMEDOUT') {
    return new GuardedHttpError(
      { kind: 'connection_failed', code, reason: 'timed_out' },
      `${describeRemote} did not answer in time (${code})`,
      options,
    );
  }
  return new GuardedHttpError(
    { kind: 'connection_failed', code, reason: 'other' },
    `${describeRemote} could not be reached (${code})`,
    options,
  );
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
