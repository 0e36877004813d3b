import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDocxBomb } from '../../test/fixtures/documents.js';
import { multipart } from '../../test/helpers/multipart-body.js';
import { openRawConnection, type RawConnection } from '../../test/helpers/raw-http.js';
import { startTcpProxy, type TcpProxy } from '../../test/helpers/tcp-proxy.js';
import { registerUser, startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { type App, buildApp } from './app.js';

const MIB = 1024 * 1024;
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

async function listen(app: App): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as { port: number }).port;
}

/** A body sent as a stream, a piece at a time as the connection takes it (chunked, no Content-Length). */
function streamed(body: Uint8Array, pieceBytes = 64 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= body.length) return controller.close();
      controller.enqueue(body.subarray(offset, offset + pieceBytes));
      offset += pieceBytes;
    },
  });
}

describe('a body refused (413) while the client is still sending it', () => {
  let testApp: TestApp;
  /** The service behind a TCP proxy, as Docker's published ports or a load balancer put one. */
  let proxy: TcpProxy;
  let base: string;
  let port: number;
  let token: string;
  /** A chat whose one message makes the JSON body 12 MiB: twelve times BODY_LIMIT_BYTES. */
  const bigChat = JSON.stringify({
    chat_id: 'big',
    messages: [{ role: 'user', content: 'x'.repeat(12 * MIB) }],
  });
  const bigUpload = multipart([
    { name: 'file', fileName: 'big.md', type: 'text/markdown', content: Buffer.alloc(12 * MIB, 97) },
  ]);

  beforeAll(async () => {
    testApp = await startTestApp({ env: { UPLOAD_MAX_BYTES: String(MIB) } });
    port = await listen(testApp.app);
    proxy = await startTcpProxy({ host: '127.0.0.1', port });
    base = `http://127.0.0.1:${proxy.port}`;
    token = (await registerUser(testApp.app)).token;
  });
  afterAll(async () => {
    await proxy.close();
    await testApp.close();
  });

  it("answers Node's fetch with a readable 413 for a JSON body over the JSON limit (PUT /v1/chats/{id})", async () => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const whole = await fetch(`${base}/v1/chats/big`, { method: 'PUT', headers, body: bigChat });
    expect(whole.status).toBe(413);
    expect(await whole.json()).toEqual({ detail: expect.stringMatching(/larger than the 1 MiB limit/) });
    const piecemeal = await fetch(`${base}/v1/chats/big`, {
      method: 'PUT',
      headers,
      body: streamed(Buffer.from(bigChat)),
      duplex: 'half',
    } as RequestInit);
    expect(piecemeal.status).toBe(413);
    expect(await piecemeal.json()).toEqual({ detail: expect.stringMatching(/larger than the 1 MiB limit/) });
    const stored = await fetch(`${base}/v1/chats/big`, { headers });
    expect(stored.status).toBe(404);
  });

  it("answers Node's fetch with a readable 413 for a multipart upload over UPLOAD_MAX_BYTES (POST /v1/documents)", async () => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': bigUpload.contentType };
    const whole = await fetch(`${base}/v1/documents`, { method: 'POST', headers, body: bigUpload.body });
    expect(whole.status).toBe(413);
    expect(await whole.json()).toEqual({ detail: expect.stringMatching(/UPLOAD_MAX_BYTES/) });
    const piecemeal = await fetch(`${base}/v1/documents`, {
      method: 'POST',
      headers,
      body: streamed(bigUpload.body),
      duplex: 'half',
    } as RequestInit);
    expect(piecemeal.status).toBe(413);
    expect(await piecemeal.json()).toEqual({ detail: expect.stringMatching(/UPLOAD_MAX_BYTES/) });
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(12 * MIB, 97)], { type: 'text/markdown' }), 'big.md');
    const fromForm = await fetch(`${base}/v1/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(fromForm.status).toBe(413);
  });

  it('lets a client that reads only once it has sent everything read the 413, and keeps its connection usable', async () => {
    const connection = openRawConnection(port);
    connection.socket.write(
      `PUT /v1/chats/big HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${12 * MIB}\r\n\r\n`,
    );
    await connection.pump(12 * MIB);
    const [refused] = await connection.responses(1);
    expect(refused?.status).toBe(413);
    expect(JSON.parse(refused?.body ?? '')).toEqual({ detail: expect.stringMatching(/1 MiB limit/) });
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const [, health] = await connection.responses(2);
    expect(health?.status).toBe(200);
    connection.socket.end();
    expect(await connection.closed).toEqual({});
  });

  it('lets a client that asked to close read the 413 after sending its body, then closes cleanly', async () => {
    const connection = openRawConnection(port);
    connection.socket.write(
      `POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\nContent-Type: ${bigUpload.contentType}\r\nContent-Length: ${bigUpload.body.length}\r\n\r\n`,
    );
    connection.socket.write(bigUpload.body);
    const [refused] = await connection.responses(1);
    expect(refused?.status).toBe(413);
    expect(refused?.headers.connection).toBe('close');
    expect(JSON.parse(refused?.body ?? '')).toEqual({ detail: expect.stringMatching(/UPLOAD_MAX_BYTES/) });
    connection.socket.end();
    expect(await connection.closed).toEqual({});
  });

  it('cuts a body far over what it reads after the answer, so the server never reads for ever', async () => {
    // The same service, reading at most 4 MiB after an early answer.
    const limited = await buildApp({
      deps: testApp.runtime.deps,
      ping: testApp.runtime.database.ping,
      logger: false,
      unreadBodyLimitBytes: 4 * MIB,
    });
    try {
      const connection = openRawConnection(await listen(limited));
      const declared = 1024 * MIB;
      connection.socket.write(
        `PUT /v1/chats/big HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      );
      // Sends until the server closes the connection; the client sees the 413 or an error.
      await connection.pump(declared);
      await connection.closed;
      expect(connection.socket.bytesWritten).toBeLessThan(64 * MIB);
      for (const response of connection.receivedResponses()) expect(response.status).toBe(413);
    } finally {
      await limited.close();
    }
  });
});

describe('a request that has not arrived whole within REQUEST_TIMEOUT_MS', () => {
  const REQUEST_TIMEOUT_MS = 2000;
  /** Several times what the cut should take (REQUEST_TIMEOUT_MS and Node's check a tenth of it later). */
  const CLOSED_WITHIN_MS = REQUEST_TIMEOUT_MS + 10_000;
  let testApp: TestApp;
  let base: string;
  let port: number;
  let token: string;

  beforeAll(async () => {
    testApp = await startTestApp({
      env: {
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        // Small, so that an upload is refused after little reading, however slow the machine.
        UPLOAD_MAX_BYTES: String(256 * 1024),
        // Passwords hashed at a real cost, so that wrong ones keep the process busy.
        PASSWORD_SCRYPT_LOG_N: '14',
      },
      worker: true,
    });
    port = await listen(testApp.app);
    base = `http://127.0.0.1:${port}`;
    token = (await registerUser(testApp.app)).token;
  });
  afterAll(() => testApp.close());

  /** A sign-in whose 1,000 bytes of body are still to come. */
  const SIGN_IN_HEAD =
    'POST /v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';

  /**
   * Sends `head` (by default a sign-in's) on `connection`, then its body one byte every 500 ms (it
   * would take minutes), until the server closes the connection; answers the responses it got and
   * how long the trickled request lasted. This side stays open for writing until the server closes.
   */
  async function trickleUntilClosed(
    connection: RawConnection,
    head = SIGN_IN_HEAD,
  ): Promise<{ responses: ReturnType<RawConnection['receivedResponses']>; elapsedMs: number }> {
    const started = Date.now();
    connection.socket.write(head);
    connection.trickle('{', 500);
    let bound: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      connection.closed.then(() => 'closed' as const),
      new Promise<'still open'>((resolve) => {
        bound = setTimeout(() => resolve('still open'), CLOSED_WITHIN_MS);
      }),
    ]);
    clearTimeout(bound);
    if (outcome === 'still open') connection.socket.destroy();
    expect(outcome).toBe('closed');
    return { responses: connection.receivedResponses(), elapsedMs: Date.now() - started };
  }

  function expectTimedOut(response: { status: number; body: string } | undefined, elapsedMs: number) {
    expect(response?.status).toBe(408);
    expect(JSON.parse(response?.body ?? '')).toEqual({ detail: 'Request timeout' });
    expect(elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
  }

  it('answers 408 and closes the connection while the client is still sending', async () => {
    const { responses, elapsedMs } = await trickleUntilClosed(openRawConnection(port));
    expect(responses).toHaveLength(1);
    expectTimedOut(responses[0], elapsedMs);
  });

  it('does the same on a keep-alive connection after earlier requests on it', async () => {
    const connection = openRawConnection(port);
    const wrongPassword = JSON.stringify({ email: 'nobody@example.com', password: 'not-the-password' });
    connection.socket.write(
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nPOST /v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${wrongPassword.length}\r\n\r\n${wrongPassword}`,
    );
    expect((await connection.responses(2)).map((response) => response.status)).toEqual([200, 401]);
    const { responses, elapsedMs } = await trickleUntilClosed(connection);
    expect(responses.map((response) => response.status)).toEqual([200, 401, 408]);
    expectTimedOut(responses[2], elapsedMs);
  });

  it('does the same after a refused upload, which gets its 413 and no second answer', async () => {
    const upload = openRawConnection(port);
    const boundary = 'refused-upload';
    upload.socket.write(
      `POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${90 * MIB}\r\n\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.md"\r\nContent-Type: text/markdown\r\n\r\n`,
    );
    void upload.pump(MIB);
    expect((await upload.responses(1)).map((response) => response.status)).toEqual([413]);
    // The rest of its 90 MiB comes slowly: the upload's connection is cut too, with no 408 after its 413.
    upload.trickle('a', 500);
    const { responses, elapsedMs } = await trickleUntilClosed(openRawConnection(port));
    expect(responses).toHaveLength(1);
    expectTimedOut(responses[0], elapsedMs);
    await upload.closed;
    expect(upload.receivedResponses().map((response) => response.status)).toEqual([413]);
  });

  it('does the same for a refused upload whose client asked to close and then stalls', async () => {
    // Its 413 waits for the rest of the body, which never comes: the time-out answers instead, once.
    const upload = openRawConnection(port);
    const head = `PUT /v1/chats/stalled HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${4 * MIB}\r\n\r\n`;
    const trickled = trickleUntilClosed(upload, head);
    void upload.pump(2 * MIB);
    const { responses, elapsedMs } = await trickled;
    expect(responses).toHaveLength(1);
    expectTimedOut(responses[0], elapsedMs);
  });

  it('does the same while the process is busy with other requests', async () => {
    const bomb = multipart([
      {
        name: 'file',
        fileName: 'bomb.docx',
        type: DOCX,
        content: generateDocxBomb({ inflatedMiB: 64, declare: 'small' }),
      },
    ]);
    const refused = multipart([
      { name: 'file', fileName: 'big.md', type: 'text/markdown', content: Buffer.alloc(MIB, 97) },
    ]);
    const authorized = { authorization: `Bearer ${token}` };
    const statuses: number[] = [];
    const send = async (path: string, init: RequestInit) => {
      try {
        const response = await fetch(`${base}${path}`, init);
        await response.arrayBuffer();
        statuses.push(response.status);
      } catch {
        statuses.push(0);
      }
    };
    let trickleDone = false;
    // What the security check did before its trickled request: a DOCX bomb, a refused upload and
    // wrong passwords, here over and over until the trickled request is cut.
    const load = (async () => {
      while (!trickleDone) {
        await Promise.all([
          send('/v1/documents', {
            method: 'POST',
            headers: { ...authorized, 'content-type': bomb.contentType },
            body: bomb.body,
          }),
          send('/v1/documents', {
            method: 'POST',
            headers: { ...authorized, 'content-type': refused.contentType },
            body: refused.body,
          }),
          ...Array.from({ length: 25 }, () =>
            send('/v1/auth/token', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ email: 'victim@example.com', password: 'wrong-password' }),
            }),
          ),
        ]);
      }
    })();
    try {
      const { responses, elapsedMs } = await trickleUntilClosed(openRawConnection(port));
      expect(responses).toHaveLength(1);
      expectTimedOut(responses[0], elapsedMs);
    } finally {
      trickleDone = true;
      await load;
    }
    // The load was served meanwhile (on a slow machine its own bodies may take longer than REQUEST_TIMEOUT_MS).
    expect(statuses.some((status) => status >= 200)).toBe(true);
  });
});
