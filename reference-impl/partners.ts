// The embedded stack's two partners, the fake connector and the webhook sink, started together: stack.ts runs them in one worker thread of their own.
import type { Pem } from '../lib/tls.js';
import { startFakeConnector } from '../fake-connector/server.js';
import { startWebhookSink } from '../webhook-sink/server.js';

export interface PartnersOptions { tls: Pem; host: string; connectorSecret: string; sinkSecret: string; controlToken: string }
/** Where each partner listens (cloned across the thread boundary as the thread's `ready`). */
export interface PartnersReady { connector: { url: string; controlUrl: string }; sink: { url: string; controlUrl: string } }

/**
 * One thread for both, not one each: a worker thread that loads TypeScript costs ~0.3 s of CPU to start (tsx's loader and the
 * modules), paid by every stack of every run, and in every scenario at most one of the two is busy (the sink in webhook runs,
 * the connector in bot runs), so they do not delay each other. Either way they stay off the service's event loop.
 */
export async function startPartners(o: PartnersOptions): Promise<{ url: string; controlUrl: string; ready: PartnersReady; close(): Promise<void> }> {
  const [connector, sink] = await Promise.all([
    startFakeConnector({ tls: o.tls, secret: o.connectorSecret, host: o.host, controlToken: o.controlToken }),
    startWebhookSink({ tls: o.tls, secret: o.sinkSecret, host: o.host, controlToken: o.controlToken }),
  ]);
  return {
    url: connector.url,
    controlUrl: connector.controlUrl,
    ready: { connector: { url: connector.url, controlUrl: connector.controlUrl }, sink: { url: sink.url, controlUrl: sink.controlUrl } },
    close: async () => { await Promise.all([connector.close(), sink.close()]); },
  };
}
