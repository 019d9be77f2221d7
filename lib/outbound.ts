// Outbound TLS trust for the service's calls (connectors, webhooks): Node's default roots plus the extra CAs, built once as one secure context.
import tls from 'node:tls';

const contexts = new Map<string, tls.SecureContext>();

/** One secure context per set of extra CAs: building it per connection (140+ roots each time) stalls the event loop under load. */
export function outboundSecureContext(extraCa: string[] = []): tls.SecureContext {
  const key = extraCa.join('\n');
  let ctx = contexts.get(key);
  if (!ctx) {
    ctx = rootsAnd(extraCa);
    contexts.set(key, ctx);
  }
  return ctx;
}

/**
 * Node's default trust (its roots, and the file NODE_EXTRA_CA_CERTS names, as any Node client trusts) and the extra CAs. The
 * default roots are held natively, parsed once per process: giving them as PEM text (`ca: [...tls.rootCertificates, ...]`) parsed
 * all 140 again for each context, 40 ms of CPU in every thread of an embedded stack. The extras are added to the context's own
 * copy of that store (`context.addCACert`, what the `ca` option calls for each); a Node without it gets the roots as text.
 */
function rootsAnd(extraCa: string[]): tls.SecureContext {
  const ctx = tls.createSecureContext();
  const native = (ctx as unknown as { context?: { addCACert?(pem: string): void } }).context;
  if (typeof native?.addCACert !== 'function') return tls.createSecureContext({ ca: [...tls.rootCertificates, ...extraCa] });
  for (const pem of extraCa) native.addCACert(pem);
  return ctx;
}
