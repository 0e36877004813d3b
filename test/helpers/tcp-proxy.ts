import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between the service and its database that can play an outage: `cut()` drops every
 * connection and refuses new ones (nothing listens on its port), `restore()` listens again on the
 * same port, as a database server coming back after a restart does. `silence()` plays a server
 * that vanished without a word (a failover, a network dropping packets): connections stay open and
 * new ones are accepted, but nothing passes either way; `restore()` then drops them all.
 */
export interface TcpProxy {
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlThrough(url: string): string;
  cut(): Promise<void>;
  silence(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let silent = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const listen = async (port: number): Promise<Server> => {
    const server = createServer((client) => {
      track(client);
      client.on('error', () => client.destroy());
      if (silent) return;
      const upstream = createConnection(target);
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
      const pair = { client, upstream };
      pairs.add(pair);
      client.once('close', () => pairs.delete(pair));
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
    silence: () => {
      silent = true;
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    restore: async () => {
      if (silent) {
        silent = false;
        for (const socket of sockets) socket.destroy();
      }
      if (server === undefined) server = await listen(port);
    },
    close: stopListening,
  };
}
