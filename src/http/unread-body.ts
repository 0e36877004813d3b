import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How much of a body the client goes on sending after an early answer is read, unless the app is told otherwise. */
export const DEFAULT_UNREAD_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/** Connections whose current request has its answer while its body is still arriving. */
const answeredWhileReceiving = new WeakSet<Socket>();

/** Whether the request now arriving on `socket` was already answered (a time-out must not answer it twice). */
export function isAnsweredWhileReceiving(socket: Socket): boolean {
  return answeredWhileReceiving.has(socket);
}

/**
 * Lets a client that is still sending read an answer given before its body arrived whole (413 as
 * soon as a body passes its limit, 401 before an upload is read). A connection closed with the
 * client's bytes unread is reset, and clients that read only once they stop sending (Node's fetch
 * among them) then see EPIPE or "other side closed" instead of the answer. So the rest of the body
 * is read and dropped, and the connection stays usable, as its framing says where the body ends.
 * Past `limitBytes` the connection is cut rather than read for ever; REQUEST_TIMEOUT_MS bounds the
 * time as for any request.
 */
export function registerUnreadBodyDrain(app: FastifyInstance, limitBytes: number): void {
  // A callback hook, not an async one: every response passes here, and nearly all go straight on.
  app.addHook('onSend', (request, reply, payload, done) => {
    const incoming = request.raw;
    const { socket } = incoming;
    const arrived = incoming.complete || incoming.readableEnded;
    if (arrived || incoming.destroyed || socket === null || socket.destroyed) return done(null, payload);
    // fastify asks to close once its body parser stops reading: the body is read to its end instead.
    if (reply.getHeader('connection') === 'close') reply.removeHeader('connection');
    if (!reply.raw.shouldKeepAlive) {
      // The client asked to close after this request, and Node closes as soon as the answer is
      // sent: the answer waits until the client has sent its body (or the limit has been read).
      void readToEnd(incoming, limitBytes).then(() => done(null, payload));
      return;
    }
    answeredWhileReceiving.add(socket);
    void readToEnd(incoming, limitBytes).then((outcome) => {
      answeredWhileReceiving.delete(socket);
      if (outcome === 'over_limit') socket.destroy();
    });
    done(null, payload);
  });
}

/** Reads and drops what is left of a request's body: until it ends, its connection closes, or `limitBytes` more arrived. */
function readToEnd(incoming: IncomingMessage, limitBytes: number): Promise<'ended' | 'over_limit'> {
  return new Promise((resolve) => {
    let received = 0;
    const settle = (outcome: 'ended' | 'over_limit') => {
      incoming.off('data', count);
      incoming.off('end', ended);
      incoming.off('close', ended);
      incoming.off('error', ended);
      resolve(outcome);
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        incoming.pause();
        settle('over_limit');
      }
    };
    const ended = () => settle('ended');
    incoming.on('data', count);
    incoming.once('end', ended);
    incoming.once('close', ended);
    incoming.once('error', ended);
    incoming.resume();
  });
}
