// The plumbing of a test proxy in front of the reference implementation (test/degraded-proxy.ts): read a request's body, send it on, relay an answer, without the headers of one hop.
import https from 'node:https';
import type { IncomingMessage, ServerResponse, IncomingHttpHeaders } from 'node:http';

/** An answer as a proxy holds it before relaying it. */
export interface Answer { status: number; headers: IncomingHttpHeaders; body: Buffer }

/** Headers that belong to one hop. */
const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** The headers of `h` that go on to the next hop. */
function endToEnd(h: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  return out;
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

/** One request to `url` through `agent`; rejects on a network error. */
export function send(agent: https.Agent, url: string, method: string, headers: IncomingHttpHeaders, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const out = endToEnd(headers);
    if (body.length) out['content-length'] = String(body.length);
    const r = https.request(url, { method, headers: out, agent }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(body);
  });
}

/** Relays `a` to the client. */
export function relay(res: ServerResponse, a: Answer): void {
  const headers = endToEnd(a.headers);
  headers['content-length'] = String(a.body.length);
  res.writeHead(a.status, headers).end(a.body);
}
