// The webhook sink: an HTTPS receiver that verifies, records and answers per plan (issue 5 fills in).
import Fastify from 'fastify';
import type { Pem } from '../lib/tls.js';

export interface WebhookSinkOptions { tls: Pem; secret: string; port?: number; host?: string }
export interface RunningServer { url: string; close(): Promise<void> }

export async function startWebhookSink(opts: WebhookSinkOptions): Promise<RunningServer> {
  const app = Fastify({ https: { cert: opts.tls.cert, key: opts.tls.key } });
  await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 });
  const port = (app.server.address() as { port: number }).port;
  return { url: `https://127.0.0.1:${port}`, close: () => app.close() };
}
