import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

/** A name no resolver knows: tests make it resolve where they like (see GuardedHttpsClient's `resolve`). */
export const FAKE_ALLOWLISTED_HOST = 'tokens.example.test';

/** What the fake saw of one request. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** How the fake answers. A `body` that is neither a string nor a Buffer is sent as JSON. */
export interface FakeResponse {
  /** 200 by default; 302 by default with `redirect`. */
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** Waits this long before sending anything, headers included. */
  readonly delayMs?: number;
  /** Answers with a redirect to this URL (the `location` header). */
  readonly redirect?: string;
  /** Sends the headers at once, then the body `bytes` at a time, `intervalMs` apart. */
  readonly drip?: { readonly bytes: number; readonly intervalMs: number };
}

export type FakeResponder = FakeResponse | ((request: RecordedRequest) => FakeResponse);

export interface TestCertificate {
  /** The certificate (PEM); it is self-signed, so it is also the CA a client must trust. */
  readonly cert: string;
  readonly key: string;
}

const certificates = new Map<string, Promise<TestCertificate>>();

/**
 * A self-signed certificate for these DNS names plus 127.0.0.1 and ::1, made once per process
 * (EC P-256: a few milliseconds) so that every fake server of a test file shares one CA.
 */
export function testCertificate(
  hostnames: readonly string[] = ['localhost', FAKE_ALLOWLISTED_HOST],
): Promise<TestCertificate> {
  const key = hostnames.join(',');
  let certificate = certificates.get(key);
  if (certificate === undefined) {
    const notBeforeDate = new Date(Date.now() - 60_000);
    certificate = generate([{ name: 'commonName', value: hostnames[0] ?? 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notBeforeDate,
      notAfterDate: new Date(notBeforeDate.getTime() + 24 * 3600 * 1000),
      extensions: [
        { name: 'basicConstraints', cA: true },
        { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            ...hostnames.map((value) => ({ type: 2 as const, value })),
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    }).then((pems) => ({ cert: pems.cert, key: pems.private }));
    certificates.set(key, certificate);
  }
  return certificate;
}

/**
 * A local HTTPS server on 127.0.0.1 that records every request and answers as the test says:
 * a stand-in for a third party's API, reached over real TLS.
 */
export class FakeHttpsServer {
  /** Every request received so far, oldest first. */
  readonly requests: RecordedRequest[] = [];
  private responder: FakeResponder = { body: {} };
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: https.Server,
    readonly port: number,
    /** The PEM a client must trust to talk to this server. */
    readonly ca: string,
  ) {}

  /** Starts a server on a free port of 127.0.0.1; its certificate names `hostnames`. */
  static async start(options: { hostnames?: readonly string[] } = {}): Promise<FakeHttpsServer> {
    const { cert, key } = await testCertificate(options.hostnames);
    let fake: FakeHttpsServer | undefined;
    const server = https.createServer({ cert, key }, (request, response) => {
      fake?.handle(request, response);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    fake = new FakeHttpsServer(server, (server.address() as AddressInfo).port, cert);
    return fake;
  }

  /** `https://<hostname>:<port><path>`; the hostname must be one the certificate names. */
  url(path = '/', hostname = 'localhost'): string {
    return `https://${hostname}:${this.port}${path}`;
  }

  /** Sets the answer to every following request (a function may look at the request). */
  respondWith(responder: FakeResponder): void {
    this.responder = responder;
  }

  /** Forgets the requests seen and answers `{}` with 200 again. */
  reset(): void {
    this.requests.length = 0;
    this.responder = { body: {} };
  }

  /** The only request received; fails when there were none or several. */
  onlyRequest(): RecordedRequest {
    const [request, ...others] = this.requests;
    if (request === undefined || others.length > 0) {
      throw new Error(`expected exactly one request, got ${this.requests.length}`);
    }
    return request;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private later(delayMs: number, work: () => void): void {
    if (delayMs <= 0) {
      work();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      work();
    }, delayMs);
    this.timers.add(timer);
  }

  private send(response: ServerResponse, answer: FakeResponse): void {
    if (response.destroyed || response.writableEnded) return;
    const headers: Record<string, string> = { ...answer.headers };
    let body: Buffer;
    if (answer.body === undefined) body = Buffer.alloc(0);
    else if (typeof answer.body === 'string') body = Buffer.from(answer.body, 'utf8');
    else if (Buffer.isBuffer(answer.body)) body = answer.body;
    else {
      body = Buffer.from(JSON.stringify(answer.body), 'utf8');
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json';
      }
    }
    if (answer.redirect !== undefined) headers.location = answer.redirect;
    const status = answer.status ?? (answer.redirect === undefined ? 200 : 302);
    response.writeHead(status, { ...headers, 'content-length': String(body.length) });
    if (answer.drip === undefined) {
      response.end(body);
      return;
    }
    const { bytes, intervalMs } = answer.drip;
    const sendFrom = (offset: number) => {
      if (response.destroyed) return;
      if (offset >= body.length) {
        response.end();
        return;
      }
      response.write(body.subarray(offset, offset + Math.max(1, bytes)));
      this.later(intervalMs, () => sendFrom(offset + Math.max(1, bytes)));
    };
    sendFrom(0);
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      this.requests.push(recorded);
      const answer = typeof this.responder === 'function' ? this.responder(recorded) : this.responder;
      this.later(answer.delayMs ?? 0, () => this.send(response, answer));
    });
    // A client that gives up (timeouts, size caps) resets the connection: that is expected here.
    request.on('error', () => {});
    response.on('error', () => {});
  }
}
