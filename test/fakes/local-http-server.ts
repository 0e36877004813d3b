import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A fake's answer to one request; a throw or rejection becomes a 500 (see `LocalHttpServer.serve`). */
export type FakeRequestHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

/**
 * The HTTP server under a fake third party: plain HTTP on 127.0.0.1 at a free port. It starts
 * before the fake exists (the fake's URLs need the port), so requests get 503 until `serve`.
 */
export class LocalHttpServer {
  private handler: FakeRequestHandler | undefined;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<LocalHttpServer> {
    let local: LocalHttpServer | undefined;
    const server = createServer((request, response) => local?.dispatch(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    local = new LocalHttpServer(server, (server.address() as AddressInfo).port);
    return local;
  }

  /** `http://127.0.0.1:<port>` followed by `path`. */
  url(path = ''): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Hands every following request to the fake. */
  serve(handler: FakeRequestHandler): void {
    this.handler = handler;
  }

  /** Stops at once: kept-alive connections would hold `close` open until they time out. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private dispatch(request: IncomingMessage, response: ServerResponse): void {
    // A client that hangs up mid-answer (time-outs, size caps) is expected in tests, not a crash.
    response.on('error', () => {});
    const handler = this.handler;
    if (handler === undefined) return void response.writeHead(503).end();
    // The async wrapper turns a synchronous throw into a rejection too.
    (async () => handler(request, response))().catch((error: unknown) => {
      if (response.headersSent) response.destroy();
      else response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    });
  }
}

/** The whole request body as text. */
export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Sends a whole answer at once with its `content-length`; `headers` come after the defaults, so
 * a fake can send its service's own content type. Answers the bytes sent.
 */
export function sendBody(
  response: ServerResponse,
  status: number,
  body: string | Uint8Array,
  headers: Readonly<Record<string, string>> = {},
): number {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  response.writeHead(status, { ...headers, 'content-length': String(bytes.byteLength) });
  response.end(bytes);
  return bytes.byteLength;
}

/** `sendBody` of `body` as JSON (`application/json` unless `headers` name another type). */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): number {
  return sendBody(response, status, JSON.stringify(body), { 'content-type': 'application/json', ...headers });
}
