// Pre-flight of `ces check`: one connection to the partner's URL before any check (unreachable, untrusted certificate), and the transport cause of a failed call in words.
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { CERT_CODE, isCertError, isNotTls } from '../lib/net-errors.js';

/** How long the pre-flight waits for the connection (TCP and TLS). */
export const PREFLIGHT_TIMEOUT_MS = 5_000;

export interface Preflight { ok: boolean; kind?: 'unreachable' | 'untrusted'; message?: string }

/** The advice every untrusted-certificate message gives. */
export const TRUST_ADVICE = 'give its CA with --ca-file FILE, or set NODE_EXTRA_CA_CERTS=FILE';

/**
 * The CAs a command trusts beyond Node's roots, as `ces check` does: --ca-file, and NODE_EXTRA_CA_CERTS (Node adds it to its
 * default trust, but a server's own trust list, such as the embedded service's outbound calls, must name it).
 */
export function extraCas(caFile?: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const files = [caFile, env.NODE_EXTRA_CA_CERTS].filter((f): f is string => !!f && fs.existsSync(f));
  return [...new Set(files)].map((f) => fs.readFileSync(f, 'utf8'));
}

/** Connects once (TCP, then TLS for https:// with the CA the checks will use) and says what is wrong, if anything. */
export async function preflight(url: string, caFile?: string, timeoutMs = PREFLIGHT_TIMEOUT_MS): Promise<Preflight> {
  const u = new URL(url);
  const https = u.protocol === 'https:';
  const port = Number(u.port || (https ? 443 : 80));
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise<Preflight>((resolve) => {
    let done = false;
    const finish = (p: Preflight) => { if (!done) { done = true; clearTimeout(timer); sock.destroy(); resolve(p); } };
    const sock: net.Socket = https
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ...(caFile ? { ca: [fs.readFileSync(caFile, 'utf8')] } : {}) }, () => finish({ ok: true }))
      : net.connect({ host, port }, () => finish({ ok: true }));
    const timer = setTimeout(() => finish({ ok: false, kind: 'unreachable', message: `${u.host} did not accept a connection within ${timeoutMs} ms` }), timeoutMs);
    sock.on('error', (e: NodeJS.ErrnoException) => {
      const code = e.code ?? '';
      if (isCertError(e)) {
        finish({ ok: false, kind: 'untrusted', message: `the certificate of ${u.host} is not trusted (${code || e.message}: ${e.message})${caFile ? ` by --ca-file ${caFile}` : ''}: ${TRUST_ADVICE}` });
      } else if (isNotTls(e)) {
        finish({ ok: false, kind: 'unreachable', message: `${u.host} does not speak TLS (${code}): is it an http:// URL? (a plain-http partner needs --allow-http)` });
      } else {
        finish({ ok: false, kind: 'unreachable', message: `${u.host} is unreachable (${code || e.message}): is the partner running, and is the URL right?` });
      }
    });
  });
}

/** The transport cause of a call that got no answer, in words a partner can act on. */
export function transportCause(error: string): string {
  const e = error.split('\n')[0] ?? error;
  if (CERT_CODE.test(e) || /certificate/i.test(e)) return `certificate not trusted (${e}): ${TRUST_ADVICE}`;
  if (/ECONNREFUSED/.test(e)) return `connection refused (${e})`;
  if (/ECONNRESET|socket hang up|other side closed|UND_ERR_SOCKET/i.test(e)) return `connection reset by the partner (${e})`;
  if (/timeout|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT|aborted/i.test(e)) return `no answer in time (${e})`;
  if (/ENOTFOUND|EAI_AGAIN/.test(e)) return `host not found (${e})`;
  return e;
}
