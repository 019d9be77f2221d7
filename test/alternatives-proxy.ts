// A proxy in front of the reference implementation that takes, where the spec is silent, other decisions than the reference (issue 23 item 4): a service that conforms and decided otherwise, for test/alternatives-proxy.test.ts.
import https from 'node:https';
import type { IncomingMessage, ServerResponse, IncomingHttpHeaders } from 'node:http';
import type { TlsMaterial } from '../lib/tls.js';
import { readBody, relay as relayAnswer, send as sendVia, type Answer } from './proxy-support.js';
import { LIMITS } from '../lib/limits.js';

/**
 * The decisions it takes otherwise, each with the REF clause that reports it (G34: a WARN, never a MUST or SHOULD failure):
 * - a failed REST authentication is answered 401 (the body still says Forbidden), not 403 (REST-AUTH-05, G10);
 * - `limit` above the maximum is refused, 400 naming `limit`, not clamped (REST-PAGE-03, G11);
 * - a period over 3 months is answered 422 with the spec's message, not 400 (REST-PERIOD-05, G13);
 * - two keys given at once: the X-API-Key header wins, then `key=`, then Basic; not refused (REST-AUTH-07);
 * - an unknown list filter is ignored, not refused (REST-LIST-04, G10);
 * - an offsite `social_d` conversation that ends sends no v2.conversation.closed (WH-EVT-12, G30): the spec's list of its channels
 *   names neither social_d nor social_e;
 * - the platform API answers a subscription it created with 200, not 201 (WH-SUB-01, G17): a set-up step of every webhook check,
 *   judged under that REF clause only, never under the MUST clauses of the checks that use it (issue 38).
 */
export const DECISIONS: Record<string, string> = {
  'REST-AUTH-05': 'a failed authentication answered 401 with the Forbidden message',
  'REST-PAGE-03': 'limit above 100 refused (400 naming limit)',
  'REST-PERIOD-05': 'the 3-month period error answered 422',
  'REST-AUTH-07': 'two keys at once: the header wins',
  'REST-LIST-04': 'an unknown filter ignored',
  'WH-EVT-12': 'no v2.conversation.closed for social_d',
  'WH-SUB-01': 'a subscription created answered 200',
};

const REST = /^\/(ha\/)?api\/2(\/|$|\?)/;
const RELAY = '/_relay/';
const json = (b: Buffer): any => { try { return JSON.parse(b.toString('utf8')); } catch { return undefined; } };

export interface Proxy { url: string; close(): Promise<void> }

/** Starts the proxy on 127.0.0.1 (HTTPS with the stack's certificate) in front of `upstream` (the stack's base URL). */
export async function startProxy(upstream: string, tls: TlsMaterial): Promise<Proxy> {
  const agent = new https.Agent({ keepAlive: true, ca: tls.ca.cert });
  let self = '';

  /** One request to `url` (upstream or a subscriber); rejects on a network error. */
  const send = (url: string, method: string, headers: IncomingHttpHeaders, body: Buffer, onAbort?: (abort: () => void) => void): Promise<Answer> => sendVia(agent, url, method, headers, body, onAbort);
  const reply = relayAnswer;
  const restFail = (res: ServerResponse, status: number, message: string) => {
    const body = Buffer.from(JSON.stringify({ meta: { status: 'fail', message } }));
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) }).end(body);
  };

  /** A subscriber's URL as the service is given it (through the relay) and as the subscriber reads it back. */
  const relayed = (url: string) => `${self}${RELAY}${Buffer.from(url).toString('base64url')}`;
  const unrelayed = (text: string) => text.replace(new RegExp(`${self.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}${RELAY}([A-Za-z0-9_-]+)`, 'g'), (_m, enc: string) => Buffer.from(enc, 'base64url').toString('utf8'));

  async function rest(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const url = new URL(req.url!, 'https://x');
    const headers = { ...req.headers };
    const q = url.searchParams;
    const before = q.toString();
    // The query as received unless a decision below changed it (a re-encoded query means the same to the service).
    const target = () => `${upstream}${q.toString() === before ? req.url : url.pathname + (q.size ? '?' + q.toString() : '')}`;
    // Two keys at once: the header wins, then key=, then Basic (the spec says a key is given one way; silent on two).
    if (headers['x-api-key'] !== undefined) { q.delete('key'); if (/^basic /i.test(String(headers.authorization ?? ''))) delete headers.authorization; }
    else if (q.has('key') && /^basic /i.test(String(headers.authorization ?? ''))) delete headers.authorization;
    // limit above the maximum: the request is still authenticated and routed upstream (with a limit it takes), then refused.
    const limit = q.get('limit');
    const over = req.method === 'GET' && limit !== null && /^\d+$/.test(limit) && Number(limit) > LIMITS.restPageMax;
    if (over) q.set('limit', '1');
    let a = await send(target(), req.method!, headers, body);
    // An unknown filter is ignored: asked again without it (the answer names it).
    for (let i = 0; i < 10 && a.status === 400; i++) {
      const name = /^Unknown filter '([^']+)'/.exec(json(a.body)?.meta?.message ?? '')?.[1];
      if (!name) break;
      for (const k of [...q.keys()]) if (k === `filters[${name}]` || k.startsWith(`filters[${name}][`)) q.delete(k);
      a = await send(target(), req.method!, headers, body);
    }
    if (over && a.status < 300) return restFail(res, 400, `Invalid 'limit': at most ${LIMITS.restPageMax} (got ${limit}).`);
    if (a.status === 403) return reply(res, a, 401);
    if (a.status === 400 && /must not exceed 3 months/.test(json(a.body)?.meta?.message ?? '')) return reply(res, a, 422);
    reply(res, a);
  }

  async function platform(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    let sent = body;
    // The HTTPS callback of a subscription to v2.conversation.closed goes through the relay, so that those deliveries pass this
    // proxy. Only those: a relay answers the TLS handshake itself, so the subscriber's connection timing (a stalled handshake, a
    // refused connection: the retry checks) would be the relay's.
    if (req.method === 'POST' && /^\/platform\/webhooks\/?$/.test(req.url!.split('?')[0]!)) {
      const b = json(body);
      if (b && typeof b.url === 'string' && b.url.startsWith('https://') && Array.isArray(b.events) && b.events.includes('v2.conversation.closed')) sent = Buffer.from(JSON.stringify({ ...b, url: relayed(b.url) }));
    }
    const a = await send(`${upstream}${req.url}`, req.method!, req.headers, sent);
    let text = unrelayed(a.body.toString('utf8'));
    // The delivery log shows no delivery that was not sent.
    if (/\/deliveries(\?|$)/.test(req.url!) && a.status === 200) {
      const log = json(Buffer.from(text));
      if (Array.isArray(log?.data)) text = JSON.stringify({ ...log, data: log.data.filter((e: any) => !withheld(e.payload)) });
    }
    // A creation answered 200 rather than 201 (G17 is the reference's decision).
    const created = req.method === 'POST' && /^\/platform\/webhooks\/?$/.test(req.url!.split('?')[0]!) && a.status === 201;
    reply(res, a, created ? 200 : a.status, Buffer.from(text));
  }

  /** v2.conversation.closed of a social_d conversation: not sent (the spec's channels of the event do not name it). */
  const withheld = (p: any) => p?.eventType === 'v2.conversation.closed' && p?.channel === 'SOCIAL_D';

  async function relay(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const to = Buffer.from(req.url!.slice(RELAY.length), 'base64url').toString('utf8');
    if (withheld(json(body))) { res.writeHead(200, { 'content-length': '0' }).end(); return; }
    let abort: () => void = () => undefined;
    // The service gave up (its answer timeout): so does the relay.
    res.on('close', () => { if (!res.writableEnded) abort(); });
    try {
      reply(res, await send(to, 'POST', req.headers, body, (a) => { abort = a; }));
    } catch {
      // The subscriber cannot be reached: the service sees a network error too.
      req.socket.destroy();
    }
  }

  const server = https.createServer({ cert: tls.server.cert, key: tls.server.key }, (req, res) => {
    void (async () => {
      const body = await readBody(req);
      const p = req.url ?? '/';
      if (p.startsWith(RELAY)) return relay(req, res, body);
      if (REST.test(p)) return rest(req, res, body);
      if (p.startsWith('/platform/')) return platform(req, res, body);
      reply(res, await send(`${upstream}${p}`, req.method!, req.headers, body));
    })().catch(() => { if (!res.headersSent) res.writeHead(502).end(); else res.destroy(); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: self,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); agent.destroy(); }),
  };
}
