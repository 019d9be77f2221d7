// The mutating wire proxy: HTTPS between the service and its fake connector, and between the service and its webhook sink, applying one wire fault at a time (wire/faults.ts) and re-signing what it changes.
import https from 'node:https';
import type { IncomingMessage, ServerResponse, IncomingHttpHeaders } from 'node:http';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Pem } from '../lib/tls.js';
import { SIGNATURE_HEADER } from '../lib/signature.js';
import { endpointOf } from '../fake-connector/server.js';
import { applyWireEdits, editQuery, fillTemplate, signatureFor, type Partner, type WireFault } from './faults.js';

export interface WireProxyOptions {
  tls: Pem;
  /** CAs the partners' certificates chain to. */
  ca: string[];
  host?: string;
  connectorUpstream: string;
  sinkUpstream: string;
  /** The connector secret (G2): what the proxy re-signs connector calls with. */
  connectorSecret: string;
  /** Bearer token of the control API (the stack's sim_token). */
  controlToken: string;
  /** The catalogue the control API switches among. */
  faults: WireFault[];
  /** A fault active from the start (`ces test --wire-fault`, `ces serve --wire-fault`). */
  initial?: string;
}

export interface WireProxy {
  /** Where the service calls its connector (the proxy forwards to connectorUpstream). */
  connectorUrl: string;
  /** Where the service delivers webhooks (forwarded to sinkUpstream; the sink's /_control passes unchanged). */
  sinkUrl: string;
  /** The control API: `POST {controlUrl}/fault {id}`, `GET {controlUrl}/fault`, `POST {controlUrl}/secrets {path, secret}`. */
  controlUrl: string;
  close(): Promise<void>;
}

/** One change the proxy made, for the evidence of a check (GET /_wire/fault). */
interface Applied { at: number; fault: string; partner: Partner; what: string }

const APPLIED_CAP = 500;
const digest = (s: string) => createHash('sha256').update(s).digest();

/** The per-start state: the active fault and its counters (reset on every switch, so a check sees a fault from its first call). */
class WireState {
  active: WireFault | undefined;
  applied: Applied[] = [];
  /** Subscription secrets by callback path (registered by the harness when it subscribes). */
  secrets = new Map<string, string>();
  private counts = new Map<string, number>();
  /** Sink: per correlation id, the first attempt's delivery id and the event's occurrence. */
  events = new Map<string, { attempts: number; firstDelivery?: string; occurrence: number }>();
  timers = new Set<NodeJS.Timeout>();

  switchTo(f: WireFault | undefined): void {
    this.active = f;
    this.counts.clear();
    this.events.clear();
    this.applied = [];
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
  count(key: string): number {
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n;
  }
  note(partner: Partner, what: string): void {
    if (!this.active) return;
    this.applied.push({ at: Date.now(), fault: this.active.id, partner, what });
    if (this.applied.length > APPLIED_CAP) this.applied.splice(0, this.applied.length - APPLIED_CAP);
  }
}

const readBody = (req: IncomingMessage): Promise<Buffer> => new Promise((resolve, reject) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => resolve(Buffer.concat(chunks)));
  req.on('error', reject);
});

const parseJson = (b: Buffer): unknown => { try { return b.length ? JSON.parse(b.toString('utf8')) : undefined; } catch { return undefined; } };

/** What a call is, for matching a fault's `where`. */
interface CallFacts { endpoint?: string; role?: string; occurrence: number; eventType?: string; channel?: string; attempt?: number; idOperator?: string; idConversation?: string; correlationId?: string }

function matches(f: WireFault, c: CallFacts): boolean {
  const w = f.where ?? {};
  if (w.endpoint && !w.endpoint.includes(c.endpoint ?? '')) return false;
  if (w.role && w.role !== c.role) return false;
  if (w.occurrence && !w.occurrence.includes(c.occurrence)) return false;
  if (w.every && c.occurrence % w.every !== 0) return false;
  if (w.eventType && !w.eventType.includes(c.eventType ?? '')) return false;
  if (w.channel && !w.channel.includes(c.channel ?? '')) return false;
  if (w.attempt && !w.attempt.includes(c.attempt ?? 0)) return false;
  return true;
}

export async function startWireProxy(o: WireProxyOptions): Promise<WireProxy> {
  const state = new WireState();
  const byId = new Map(o.faults.map((f) => [f.id, f]));
  if (o.initial !== undefined && !byId.has(o.initial)) throw new Error(`unknown wire fault "${o.initial}" (see fixtures/wire-faults.json)`);
  state.switchTo(o.initial === undefined ? undefined : byId.get(o.initial));
  const tokenDigest = digest(o.controlToken);
  const agent = new https.Agent({ keepAlive: true, ca: o.ca });

  /** The control API, on both listeners under /_wire (bearer sim_token, compared over digests). */
  async function control(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const send = (status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)); };
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m || !timingSafeEqual(digest(m[1]!), tokenDigest)) { res.setHeader('www-authenticate', 'Bearer realm="the wire proxy control API"'); return send(401, { error: 'unauthorized', message: 'the wire proxy control API requires Authorization: Bearer <sim_token>' }); }
    const body = parseJson(await readBody(req)) as Record<string, unknown> | undefined;
    if (pathname === '/_wire/fault' && req.method === 'GET') return send(200, { fault: state.active?.id ?? null, applied: state.applied });
    if (pathname === '/_wire/fault' && req.method === 'POST') {
      const id = body?.id;
      if (id !== null && id !== undefined && (typeof id !== 'string' || !byId.has(id))) return send(400, { error: 'unknown_fault', message: `"id" is null or one of the wire faults of fixtures/wire-faults.json (got ${JSON.stringify(id)})` });
      state.switchTo(typeof id === 'string' ? byId.get(id) : undefined);
      return send(200, { fault: state.active?.id ?? null });
    }
    if (pathname === '/_wire/secrets' && req.method === 'POST') {
      if (typeof body?.path !== 'string' || !body.path.startsWith('/') || typeof body.secret !== 'string' || !body.secret) return send(400, { error: 'invalid_request', message: 'give {"path": "/<callback path>", "secret": "<the subscription secret>"}' });
      state.secrets.set(body.path, body.secret);
      return send(200, { ok: true });
    }
    return send(404, { error: 'not_found', message: 'control routes: GET|POST /_wire/fault, POST /_wire/secrets' });
  }

  /** Sends one request upstream; resolves with the answer, or rejects on a transport error. */
  function upstream(base: string, method: string, pathAndQuery: string, headers: IncomingHttpHeaders, body: Buffer, onClientGone?: (abort: () => void) => void): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    const u = new URL(base);
    return new Promise((resolve, reject) => {
      const out = https.request({ host: u.hostname, port: u.port, method, path: pathAndQuery, agent, headers: { ...headers, host: u.host, 'content-length': String(body.length) } }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => resolve({ status: r.statusCode ?? 502, headers: r.headers, body: Buffer.concat(chunks) }));
        r.on('error', reject);
      });
      out.on('error', reject);
      onClientGone?.(() => out.destroy(new Error('the service closed the connection')));
      out.end(body);
    });
  }

  function handler(partner: Partner, upstreamBase: string) {
    return async (req: IncomingMessage, res: ServerResponse) => {
      const [pathname = '/', rawQuery = ''] = (req.url ?? '/').split('?') as [string, string?];
      try {
        if (pathname === '/_wire' || pathname.startsWith('/_wire/')) return await control(req, res, pathname);
        const raw = await readBody(req);
        let gone = false;
        let abortUpstream: (() => void) | undefined;
        res.on('close', () => { if (!res.writableFinished) { gone = true; abortUpstream?.(); } });
        const headers: IncomingHttpHeaders = { ...req.headers };
        delete headers.host; delete headers['content-length']; delete headers.connection;
        const facts = partner === 'connector' ? connectorFacts(req.method ?? 'GET', pathname, rawQuery, raw) : sinkFacts(pathname, headers, raw);
        const f = state.active && state.active.partner === partner && !pathname.startsWith('/_control') && facts && matches(state.active, facts) ? state.active : undefined;

        let query = rawQuery;
        let body = raw;
        if (f?.drop) {
          state.note(partner, `${req.method} ${pathname}: not forwarded; answered ${f.drop.status}`);
          const answer = f.drop.body === undefined ? {} : fillTemplate(f.drop.body, { idOperator: facts?.idOperator, idConversation: facts?.idConversation });
          res.writeHead(f.drop.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
          return;
        }
        if (f?.request) {
          const r = f.request;
          let changed = false;
          if (r.query?.length) { query = editQuery(rawQuery, r.query); changed = true; }
          if (r.body?.length) {
            const doc = parseJson(raw);
            if (doc !== undefined) { body = Buffer.from(JSON.stringify(applyWireEdits(doc, r.body))); changed = true; }
          }
          if (changed || r.sign) {
            const secret = partner === 'connector' ? o.connectorSecret : state.secrets.get(pathname);
            if (secret === undefined) state.note(partner, `${pathname}: not re-signed (no secret registered for this callback path)`);
            else {
              const bytes = req.method === 'GET' ? query : body;
              const value = signatureFor(r.sign ?? 'correct', secret, bytes, req.method ?? 'GET');
              if (value === undefined) delete headers[SIGNATURE_HEADER]; else headers[SIGNATURE_HEADER] = value;
            }
          }
          for (const h of r.headers ?? []) {
            const name = h.name.toLowerCase();
            if (h.drop) delete headers[name];
            else if (h.set !== undefined) headers[name] = h.set;
            else if (h.from === 'new-uuid') headers[name] = randomUUID();
            else if (h.from === 'first-attempt') {
              const first = facts?.correlationId ? state.events.get(facts.correlationId)?.firstDelivery : undefined;
              if (first) headers[name] = first;
            }
          }
          state.note(partner, `${req.method} ${pathname}: ${[r.query?.length ? 'query' : '', r.body?.length ? 'body' : '', r.headers?.length ? 'headers' : '', r.sign ? `signed ${r.sign}` : changed ? 're-signed' : '', r.delayMs ? `held ${r.delayMs} ms` : ''].filter(Boolean).join(', ')}`);
          if (r.delayMs) await new Promise((resolve) => setTimeout(resolve, r.delayMs));
          if (gone) return;
        }

        const pathAndQuery = query ? `${pathname}?${query}` : pathname;
        let answer: Awaited<ReturnType<typeof upstream>>;
        try {
          answer = await upstream(upstreamBase, req.method ?? 'GET', pathAndQuery, headers, body, (abort) => { abortUpstream = abort; });
        } catch {
          // The partner reset the connection (or the service left): the service sees a reset too.
          req.socket.destroy();
          return;
        }
        if (gone) return;
        const after = f && (!f.where?.answered || f.where.answered.includes(answer.status)) ? f : undefined;
        let status = answer.status;
        let answerBody = answer.body;
        if (after?.answer) {
          const to = after.answer.status?.find(([from]) => from === status)?.[1];
          if (to !== undefined) { state.note(partner, `${pathname}: answer ${status} → ${to}`); status = to; }
          if (after.answer.body?.length) {
            const doc = parseJson(answer.body);
            if (doc !== undefined) { answerBody = Buffer.from(JSON.stringify(applyWireEdits(doc, after.answer.body))); state.note(partner, `${pathname}: answer body edited`); }
          }
        }
        if (after?.repeat) {
          const t = setTimeout(() => {
            state.timers.delete(t);
            const again = { ...headers, ...(partner === 'sink' ? { 'x-service-delivery': randomUUID() } : {}) };
            state.note(partner, `${req.method} ${pathname}: sent again ${after.repeat!.afterMs} ms after the answer`);
            upstream(upstreamBase, req.method ?? 'GET', pathAndQuery, again, body).catch(() => undefined);
          }, after.repeat.afterMs);
          state.timers.add(t);
        }
        const outHeaders: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !['content-length', 'connection', 'transfer-encoding', 'keep-alive'].includes(k)) outHeaders[k] = v;
        outHeaders['content-length'] = String(answerBody.length);
        res.writeHead(status, outHeaders).end(answerBody);
      } catch (e) {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'wire_proxy', message: (e as Error).message }));
        else res.destroy();
      }
    };
  }

  function connectorFacts(method: string, pathname: string, rawQuery: string, raw: Buffer): CallFacts | undefined {
    const ep = endpointOf(method, pathname);
    if (!ep) return undefined;
    const body = parseJson(raw) as Record<string, any> | undefined;
    const query = new URLSearchParams(rawQuery);
    const idOperator = ep.endpoint === 'availability' ? query.get('idOperator') ?? undefined : ep.endpoint === 'conversation-create' || ep.endpoint === 'messages' ? body?.idOperator : ep.param;
    const idConversation = ep.endpoint === 'messages' ? ep.param : ep.endpoint === 'conversation-create' ? body?.idConversation : undefined;
    const occurrence = state.count(`${ep.endpoint}|${idConversation ?? idOperator ?? ''}`);
    return { endpoint: ep.endpoint, role: body?.message?.author?.role, occurrence, idOperator: idOperator === undefined ? undefined : String(idOperator), idConversation };
  }

  function sinkFacts(pathname: string, headers: IncomingHttpHeaders, raw: Buffer): CallFacts | undefined {
    if (pathname.startsWith('/_control')) return undefined;
    const body = parseJson(raw) as Record<string, any> | undefined;
    const correlationId = String(headers['x-service-correlationid'] ?? '');
    let ev = state.events.get(correlationId);
    if (!ev) {
      const subject = body?.conversationId ?? body?.userId ?? body?.visitorId ?? '';
      ev = { attempts: 0, occurrence: state.count(`${body?.eventType}|${subject}`) };
      if (correlationId) state.events.set(correlationId, ev);
    }
    ev.attempts++;
    const facts: CallFacts = { eventType: body?.eventType, channel: body?.channel, attempt: ev.attempts, occurrence: ev.occurrence, correlationId };
    if (ev.attempts === 1) ev.firstDelivery = String(headers['x-service-delivery'] ?? '');
    return facts;
  }

  const listen = (h: ReturnType<typeof handler>) => new Promise<https.Server>((resolve, reject) => {
    const s = https.createServer({ cert: o.tls.cert, key: o.tls.key }, (req, res) => { void h(req, res); });
    s.on('error', reject);
    s.listen(0, o.host ?? '127.0.0.1', () => resolve(s));
  });
  const connectorServer = await listen(handler('connector', o.connectorUpstream));
  const sinkServer = await listen(handler('sink', o.sinkUpstream));
  const host = o.host && o.host !== '127.0.0.1' ? (o.host.includes(':') ? `[${o.host}]` : o.host) : '127.0.0.1';
  const urlOf = (s: https.Server) => `https://${host}:${(s.address() as { port: number }).port}`;
  return {
    connectorUrl: urlOf(connectorServer),
    sinkUrl: urlOf(sinkServer),
    controlUrl: `${urlOf(sinkServer)}/_wire`,
    close: async () => {
      state.switchTo(undefined);
      agent.destroy();
      for (const s of [connectorServer, sinkServer]) { s.closeAllConnections(); await new Promise<void>((r) => s.close(() => r())); }
    },
  };
}
