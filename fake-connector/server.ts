// The fake bot connector: a programmable HTTPS connector (issue 4 fills in scenarios, faults and the control API).
import Fastify from 'fastify';
import type { Pem } from '../lib/tls.js';

export interface FakeConnectorOptions { tls: Pem; secret: string; port?: number; host?: string }
export interface RunningServer { url: string; close(): Promise<void> }

export async function startFakeConnector(opts: FakeConnectorOptions): Promise<RunningServer> {
  const app = Fastify({ https: { cert: opts.tls.cert, key: opts.tls.key } });
  await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 });
  const port = (app.server.address() as { port: number }).port;
  return { url: `https://127.0.0.1:${port}`, close: () => app.close() };
}
