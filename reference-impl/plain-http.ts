// Plain HTTP sent to the service's HTTPS port: closed unanswered, as TLS alone would (REST over HTTPS only), unless a deviation serves it.
import http from 'node:http';
import type net from 'node:net';
import type { FastifyInstance } from 'fastify';

/** The first byte of a TLS connection: a handshake record. */
const TLS_HANDSHAKE = 0x16;

/**
 * Routes each connection by its first byte: a TLS handshake to the HTTPS server as before; anything else is closed, or, when the
 * REST policy's `plainHttpServed` is set (a deviation of REST-HTTPS-01), answered by the same routes without TLS. Node's TLS socket
 * reads the byte put back (its initRead takes what the raw socket holds), so TLS connections are unchanged.
 */
export function routePlainHttp(app: FastifyInstance): void {
  const server = app.server;
  const tlsListeners = server.listeners('connection') as Array<(socket: net.Socket) => void>;
  server.removeAllListeners('connection');
  const plain = http.createServer((req, res) => app.routing(req, res));
  server.on('connection', (socket: net.Socket) => {
    // A client gone before its first byte is no error of the service.
    const early = () => socket.destroy();
    socket.on('error', early);
    const route = () => {
      const first = socket.read(1) as Buffer | null;
      if (first === null) { socket.once('readable', route); return; }
      socket.removeListener('error', early);
      socket.unshift(first);
      if (first[0] === TLS_HANDSHAKE) for (const listener of tlsListeners) listener.call(server, socket);
      else if (app.ces.policy.rest.plainHttpServed) plain.emit('connection', socket);
      else socket.destroy();
    };
    route();
  });
}
