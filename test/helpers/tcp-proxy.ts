import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between the service and its database that can play an outage: `cut()` drops every
 * connection and refuses new ones (nothing listens on its port), `restore()` listens again on the
 * same port, as a database server coming back after a restart does.
 */
export interface TcpProxy {
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlThrough(url: string): string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const listen = async (port: number): Promise<Server> => {
    const server = createServer((client) => {
      const upstream = createConnection(target);
      track(client);
      track(upstream);
      // Either side closing or failing ends both, as a dead server or network would.
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return server;
  };
  let server: Server | undefined = await listen(0);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const { port } = address;
  const stopListening = async () => {
    if (server === undefined) return;
    const closed = once(server, 'close');
    server.close();
    for (const socket of sockets) socket.destroy();
    await closed;
    server = undefined;
  };
  return {
    port,
    urlThrough: (url) => {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    cut: stopListening,
    restore: async () => {
      if (server === undefined) server = await listen(port);
    },
    close: stopListening,
  };
}
