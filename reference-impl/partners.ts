// The embedded stack's two partners, the fake connector and the webhook sink, started together: stack.ts runs them in one worker thread of their own.
import type { Pem } from '../lib/tls.js';
import { startFakeConnector } from '../fake-connector/server.js';
import { startWebhookSink } from '../webhook-sink/server.js';
import { startWireProxy, type WireProxy } from '../wire/proxy.js';
import { loadWireFaults } from '../wire/faults.js';

export interface PartnersOptions {
  tls: Pem; host: string; connectorSecret: string; sinkSecret: string; controlToken: string;
  /** `ces selftest --wire`: the mutating wire proxy in front of both partners (wire/proxy.ts); `ca` is what it trusts them by. */
  wire?: { ca: string; fault?: string };
}
/** Where each partner listens (cloned across the thread boundary as the thread's `ready`); `wire`: where the service reaches them through the proxy. */
export interface PartnersReady { connector: { url: string; controlUrl: string }; sink: { url: string; controlUrl: string }; wire?: { connectorUrl: string; sinkUrl: string; controlUrl: string } }

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
  const wire: WireProxy | undefined = o.wire
    ? await startWireProxy({ tls: o.tls, ca: [o.wire.ca], host: o.host, connectorUpstream: connector.url, sinkUpstream: sink.url, connectorSecret: o.connectorSecret, controlToken: o.controlToken, faults: loadWireFaults(), initial: o.wire.fault })
    : undefined;
  return {
    url: connector.url,
    controlUrl: connector.controlUrl,
    ready: {
      connector: { url: connector.url, controlUrl: connector.controlUrl }, sink: { url: sink.url, controlUrl: sink.controlUrl },
      ...(wire ? { wire: { connectorUrl: wire.connectorUrl, sinkUrl: wire.sinkUrl, controlUrl: wire.controlUrl } } : {}),
    },
    close: async () => { await wire?.close(); await Promise.all([connector.close(), sink.close()]); },
  };
}
