// Outbound TLS trust for the service's calls (connectors, webhooks): Node's roots plus the extra CAs, built once as one secure context.
import tls from 'node:tls';

const contexts = new Map<string, tls.SecureContext>();

/** One secure context per set of extra CAs: building it per connection (140+ roots each time) stalls the event loop under load. */
export function outboundSecureContext(extraCa: string[] = []): tls.SecureContext {
  const key = extraCa.join('\n');
  let ctx = contexts.get(key);
  if (!ctx) {
    ctx = tls.createSecureContext({ ca: [...tls.rootCertificates, ...extraCa] });
    contexts.set(key, ctx);
  }
  return ctx;
}
