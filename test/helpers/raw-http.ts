import { connect, type Socket } from 'node:net';

/** One response as it came over the wire. */
export interface RawResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * One HTTP/1.1 connection spoken by hand. It stays open until the server closes it: the server's
 * FIN alone does not end this side (allowHalfOpen), so `closed` tells whether the server cut the
 * connection, not merely stopped writing.
 */
export interface RawConnection {
  readonly socket: Socket;
  /** Resolves once `count` whole responses have arrived; rejects if the connection closes first. */
  responses(count: number): Promise<RawResponse[]>;
  /** The whole responses that have arrived so far. */
  receivedResponses(): RawResponse[];
  /** Resolves when the connection is closed, with whatever error ended it (EPIPE, ECONNRESET). */
  readonly closed: Promise<{ readonly error?: Error }>;
  /** Sends one character every `everyMs` until the connection closes (a body that never arrives whole). */
  trickle(character: string, everyMs: number): void;
  /** Sends `bytes` zero bytes as fast as the connection takes them; resolves when sent or closed. */
  pump(bytes: number): Promise<void>;
}

export function openRawConnection(port: number): RawConnection {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let received = Buffer.alloc(0);
  const waiters: {
    count: number;
    resolve: (responses: RawResponse[]) => void;
    reject: (e: Error) => void;
  }[] = [];
  let isClosed = false;
  let failure: Error | undefined;
  const timers: NodeJS.Timeout[] = [];

  const settleWaiters = () => {
    const responses = parseResponses(received);
    for (const waiter of [...waiters]) {
      if (responses.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(responses.slice(0, waiter.count));
      } else if (isClosed) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.reject(
          new Error(
            `the connection closed after ${responses.length} of ${waiter.count} responses (${failure?.message ?? 'no error'}): ${received.toString('latin1').slice(0, 300)}`,
          ),
        );
      }
    }
  };
  socket.on('data', (data: Buffer) => {
    received = Buffer.concat([received, data]);
    settleWaiters();
  });
  // The server's FIN: this side goes on sending until the server closes the connection.
  socket.on('end', () => {});
  socket.on('error', (error) => {
    failure ??= error;
  });
  const closed = new Promise<{ error?: Error }>((resolve) => {
    socket.on('close', () => {
      isClosed = true;
      for (const timer of timers) clearInterval(timer);
      settleWaiters();
      resolve(failure === undefined ? {} : { error: failure });
    });
  });

  return {
    socket,
    closed,
    receivedResponses: () => parseResponses(received),
    responses: (count) =>
      new Promise((resolve, reject) => {
        waiters.push({ count, resolve, reject });
        settleWaiters();
      }),
    trickle: (character, everyMs) => {
      timers.push(
        setInterval(() => {
          if (!socket.destroyed && socket.writable) socket.write(character);
        }, everyMs),
      );
    },
    pump: async (bytes) => {
      const chunk = Buffer.alloc(64 * 1024);
      let sent = 0;
      while (sent < bytes && !socket.destroyed && socket.writable) {
        const size = Math.min(chunk.length, bytes - sent);
        sent += size;
        if (!socket.write(size === chunk.length ? chunk : chunk.subarray(0, size))) {
          await new Promise<void>((resolve) => {
            const done = () => {
              socket.off('drain', done);
              socket.off('close', done);
              resolve();
            };
            socket.on('drain', done);
            socket.on('close', done);
          });
        }
      }
    },
  };
}

/** The whole responses in `bytes`: each its head and as many body bytes as Content-Length says. */
function parseResponses(bytes: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let offset = 0;
  for (;;) {
    const headEnd = bytes.indexOf('\r\n\r\n', offset, 'latin1');
    if (headEnd < 0) return responses;
    const [statusLine = '', ...lines] = bytes.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = headEnd + 4;
    if (bytes.length < bodyStart + length) return responses;
    responses.push({
      status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN),
      headers,
      body: bytes.subarray(bodyStart, bodyStart + length).toString('utf8'),
    });
    offset = bodyStart + length;
  }
}
