// The webhook sink: an HTTPS receiver that verifies signatures, validates payloads, records every delivery and answers per a programmable plan.
import { EventEmitter } from 'node:events';
import net from 'node:net';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Pem } from '../lib/tls.js';
import { verify, type SignatureVerdict } from '../lib/signature.js';
import { guardRoutes, newControlToken } from '../lib/control-auth.js';
import { checkTolerant } from '../lib/schemas.js';
import { allSchemas } from '../lib/schemas.js';
import { installErrorHandling, plainShape } from '../lib/http-errors.js';

export interface WebhookSinkOptions {
  tls: Pem; secret: string; port?: number; host?: string;
  /** Bearer token every /_control route requires (the stack's sim_token); a random one when absent. */
  controlToken?: string;
}
export interface RunningServer { url: string; close(): Promise<void> }

/** One planned answer: a status, optionally after a delay (a slow subscriber). */
export interface PlannedAnswer { status: number; delayMs?: number }
/** Which deliveries a plan applies to; every given field must match. `body` compares top-level payload fields. */
export interface PlanMatch { path?: string; eventType?: string; correlationId?: string; body?: Record<string, string | number | boolean | null> }
/** Answers in order per correlation id: the n-th delivery of an event gets answers[n-1]; past the list, `then` (default 200). */
export interface Plan { id: number; match: PlanMatch; answers: PlannedAnswer[]; then: PlannedAnswer }

export interface Verdicts {
  contentType: string | null;
  deliveryId: string | null;
  correlationId: string | null;
  signature: SignatureVerdict;
  /** null when the payload matches the schema of its eventType, else the errors. */
  schema: string | null;
  /** Fields beyond those the spec lists (G25: tolerated, reported as a NOTE), as JSON pointers. */
  extraFields: string[];
}

export interface SinkDelivery {
  seq: number;
  path: string;
  method: string;
  /** Epoch ms when the request arrived (headers and body read). */
  arrivedAt: number;
  headers: Record<string, string>;
  /** The raw body as text, and exactly as bytes (base64) for signature checks. */
  body: string;
  bodyBase64: string;
  json: unknown;
  eventType: string | null;
  eventId: string | null;
  correlationId: string | null;
  deliveryId: string | null;
  verdicts: Verdicts;
  /** What the sink answered (after `delayMs`). */
  answer: PlannedAnswer & { planId: number | null };
}

export interface RunningSink extends RunningServer {
  /** Bearer token the control API requires. */
  controlToken: string;
  /** The control API base, `<url>/_control`. */
  controlUrl: string;
  deliveries(filter?: DeliveryFilter): SinkDelivery[];
  plan(match: PlanMatch, answers: Array<PlannedAnswer | number>, then?: PlannedAnswer | number): Plan;
  reset(path?: string): void;
  waitFor(filter: DeliveryFilter, count: number, timeoutMs: number): Promise<{ deliveries: SinkDelivery[]; timedOut: boolean }>;
  /** A callback address that accepts TCP connections and never answers the TLS handshake (connect-timeout checks). */
  stall(): Promise<Stall>;
  waitForStall(id: number, count: number, timeoutMs: number): Promise<{ connections: number[]; timedOut: boolean }>;
}

/** A stalling listener: `connections` are the arrival times (epoch ms) of each TCP connection it accepted. */
export interface Stall { id: number; url: string; connections: number[] }

export interface DeliveryFilter { path?: string; correlationId?: string; eventType?: string; eventId?: string; afterSeq?: number; body?: Record<string, string> }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KNOWN_KINDS = new Set(Object.keys(allSchemas()).filter((id) => id.startsWith('webhooks/')).map((id) => id.slice('webhooks/'.length).replace(/\.json$/, '')));
const asAnswer = (a: PlannedAnswer | number): PlannedAnswer => (typeof a === 'number' ? { status: a } : a);
/** Deliveries kept in full (bodies, headers, verdicts), at least this many and at most a tenth more; older ones are dropped, their counts stay in the per-path summary. */
export const RECORD_CAP = 20_000;

/** Counts of one path since its last reset, kept for every delivery even when the record has dropped it (benchmarks, G29 tests). */
export interface PathSummary {
  deliveries: number; statuses: Record<string, number>; events: number; eventsAnswered20x: number;
  /** Deliveries of an event id that had already been answered 20x (at-least-once repeats). */
  repeatsAfter20x: number; badVerdicts: number;
  /** Arrival minus the payload's createdAt, ms: p50/p95/max; `resolutionMs` is that of createdAt (1000 for whole seconds). */
  lagMs: { p50: number | null; p95: number | null; max: number | null; resolutionMs: number };
}
interface PathCounts { deliveries: number; statuses: Map<number, number>; events: Set<string>; ok: Set<string>; repeats: number; bad: number; lags: number[]; resolutionMs: number }

/** Judges one delivery's headers, signature and payload against the spec (verdicts never decide the answer). */
export function judge(secret: string, headers: Record<string, string>, raw: Buffer, json: unknown): Verdicts {
  const ct = headers['content-type'] ?? '';
  const eventType = json && typeof json === 'object' ? (json as Record<string, unknown>).eventType : undefined;
  let schema: string | null;
  let extraFields: string[] = [];
  if (json === undefined) schema = 'body is not JSON';
  else if (typeof eventType !== 'string' || !KNOWN_KINDS.has(eventType)) schema = `unknown eventType ${JSON.stringify(eventType)}`;
  else ({ errors: schema, extras: extraFields } = checkTolerant(`webhooks/${eventType}.json`, json));
  const uuidHeader = (name: string) => {
    const v = headers[name];
    return v === undefined ? `missing ${name}` : UUID.test(v) ? null : `${name} is not a UUID: ${v.slice(0, 60)}`;
  };
  return {
    contentType: /^application\/json(\s*;.*)?$/i.test(ct) ? null : `Content-Type is ${JSON.stringify(ct)}, expected application/json`,
    deliveryId: uuidHeader('x-service-delivery'),
    correlationId: uuidHeader('x-service-correlationid'),
    signature: verify(secret, raw, headers['x-service-signature']),
    schema,
    extraFields,
  };
}

function matches(d: SinkDelivery, f: DeliveryFilter): boolean {
  if (f.path !== undefined && d.path !== f.path) return false;
  if (f.correlationId !== undefined && d.correlationId !== f.correlationId) return false;
  if (f.eventType !== undefined && d.eventType !== f.eventType) return false;
  if (f.eventId !== undefined && d.eventId !== f.eventId) return false;
  if (f.afterSeq !== undefined && d.seq <= f.afterSeq) return false;
  for (const [k, v] of Object.entries(f.body ?? {})) {
    const got = d.json && typeof d.json === 'object' ? (d.json as Record<string, unknown>)[k] : undefined;
    if (String(got) !== String(v)) return false;
  }
  return true;
}

/** Reads a filter from query parameters: path, correlationId, eventType, eventId, afterSeq, body.<field>. */
function filterFromQuery(q: Record<string, unknown>): DeliveryFilter {
  const f: DeliveryFilter = {};
  const s = (k: string) => (typeof q[k] === 'string' && q[k] !== '' ? (q[k] as string) : undefined);
  if (s('path')) f.path = s('path');
  if (s('correlationId')) f.correlationId = s('correlationId');
  if (s('eventType')) f.eventType = s('eventType');
  if (s('eventId')) f.eventId = s('eventId');
  if (s('afterSeq')) f.afterSeq = Number(s('afterSeq'));
  for (const [k, v] of Object.entries(q)) if (k.startsWith('body.') && typeof v === 'string') (f.body ??= {})[k.slice(5)] = v;
  return f;
}

export async function startWebhookSink(opts: WebhookSinkOptions): Promise<RunningSink> {
  const app = Fastify({ https: { cert: opts.tls.cert, key: opts.tls.key }, bodyLimit: 1024 * 1024 });
  // Errors in one documented shape ({error, message}), 405 + Allow on known paths, nothing internal in 5xx answers.
  installErrorHandling(app, { shape: plainShape });
  // Nobody but the harness may reprogram the judge: every control route requires the token.
  const controlToken = opts.controlToken ?? newControlToken();
  guardRoutes(app, '/_control', controlToken, 'the webhook sink control API');
  const recorded: SinkDelivery[] = [];
  let plans: Plan[] = [];
  /** n-th delivery of an event under a plan: `${planId} ${correlationId}` → deliveries answered so far (no scan of the record). */
  let planCounts = new Map<string, number>();
  const counts = new Map<string, PathCounts>();
  let seq = 0;
  let planSeq = 0;
  const stalls = new Map<number, { stall: Stall; server: net.Server; sockets: Set<net.Socket> }>();
  const arrivals = new EventEmitter();
  arrivals.setMaxListeners(0);
  /** Answers held back by a planned delay: on close they are released at once. */
  const held = new Map<NodeJS.Timeout, () => void>();

  // Keep the raw bytes: the signature is over them, not over a re-serialisation.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  const sink: Omit<RunningSink, 'url' | 'controlUrl' | 'controlToken' | 'close'> = {
    stall,
    waitForStall,
    deliveries: (filter = {}) => recorded.filter((d) => matches(d, filter)),
    plan(match, answers, then = 200) {
      const p: Plan = { id: ++planSeq, match, answers: answers.map(asAnswer), then: asAnswer(then) };
      plans.unshift(p); // newest first: a later plan overrides an earlier one for the same deliveries
      return p;
    },
    reset(path) {
      if (!path) { recorded.length = 0; plans = []; planCounts = new Map(); counts.clear(); return; }
      for (let i = recorded.length - 1; i >= 0; i--) if (recorded[i]!.path === path) recorded.splice(i, 1);
      plans = plans.filter((p) => p.match.path !== path);
      counts.delete(path);
    },
    waitFor(filter, count, timeoutMs) {
      return new Promise((resolve) => {
        const done = (timedOut: boolean) => {
          clearTimeout(timer);
          arrivals.off('delivery', onArrival);
          resolve({ deliveries: sink.deliveries(filter), timedOut });
        };
        const onArrival = () => { if (sink.deliveries(filter).length >= count) done(false); };
        const timer = setTimeout(() => done(true), Math.max(0, timeoutMs));
        arrivals.on('delivery', onArrival);
        onArrival();
      });
    },
  };

  async function stall(): Promise<Stall> {
    const id = stalls.size + 1;
    const sockets = new Set<net.Socket>();
    const st: Stall = { id, url: '', connections: [] };
    const server = net.createServer((sock) => {
      st.connections.push(Date.now());
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
      sock.on('error', () => undefined);
      arrivals.emit('stall', id);
    });
    await new Promise<void>((resolve) => server.listen(0, opts.host ?? '127.0.0.1', resolve));
    const h = opts.host && opts.host !== '0.0.0.0' ? opts.host : '127.0.0.1';
    st.url = `https://${h.includes(':') ? `[${h}]` : h}:${(server.address() as net.AddressInfo).port}/stalled`;
    stalls.set(id, { stall: st, server, sockets });
    return st;
  }
  function waitForStall(id: number, count: number, timeoutMs: number): Promise<{ connections: number[]; timedOut: boolean }> {
    return new Promise((resolve) => {
      const s = stalls.get(id);
      const done = (timedOut: boolean) => { clearTimeout(timer); arrivals.off('stall', on); resolve({ connections: [...(s?.stall.connections ?? [])], timedOut }); };
      const on = () => { if ((s?.stall.connections.length ?? 0) >= count) done(false); };
      const timer = setTimeout(() => done(true), Math.max(0, timeoutMs));
      arrivals.on('stall', on);
      on();
    });
  }

  function choose(d: Omit<SinkDelivery, 'answer'>): SinkDelivery['answer'] {
    const json = d.json && typeof d.json === 'object' ? (d.json as Record<string, unknown>) : {};
    for (const p of plans) {
      const m = p.match;
      if (m.path !== undefined && m.path !== d.path) continue;
      if (m.eventType !== undefined && m.eventType !== d.eventType) continue;
      if (m.correlationId !== undefined && m.correlationId !== d.correlationId) continue;
      if (m.body && Object.entries(m.body).some(([k, v]) => String(json[k]) !== String(v))) continue;
      // The n-th delivery of this event (by correlation id) under this plan.
      const key = `${p.id} ${d.correlationId}`;
      const n = planCounts.get(key) ?? 0;
      planCounts.set(key, n + 1);
      return { ...(p.answers[n] ?? p.then), planId: p.id };
    }
    return { status: 200, planId: null };
  }

  function count(d: SinkDelivery): void {
    let c = counts.get(d.path);
    if (!c) counts.set(d.path, (c = { deliveries: 0, statuses: new Map(), events: new Set(), ok: new Set(), repeats: 0, bad: 0, lags: [], resolutionMs: 1 }));
    c.deliveries++;
    c.statuses.set(d.answer.status, (c.statuses.get(d.answer.status) ?? 0) + 1);
    const v = d.verdicts;
    if (v.contentType || v.deliveryId || v.correlationId || !v.signature.ok || v.schema) c.bad++;
    if (!d.eventId) return;
    c.events.add(d.eventId);
    if (c.ok.has(d.eventId)) c.repeats++;
    if (d.answer.status >= 200 && d.answer.status < 300) c.ok.add(d.eventId);
    const createdAt = String((d.json as Record<string, unknown> | undefined)?.createdAt ?? '');
    const created = Date.parse(createdAt);
    if (Number.isFinite(created)) {
      c.lags.push(d.arrivedAt - created);
      // Older event kinds carry whole seconds: their lag reads up to 1 s more than it was.
      if (!/\.\d/.test(createdAt)) c.resolutionMs = 1000;
    }
  }
  function summary(path: string): PathSummary {
    const c = counts.get(path);
    const lags = [...(c?.lags ?? [])].sort((a, b) => a - b);
    const q = (p: number) => (lags.length ? lags[Math.min(lags.length - 1, Math.floor(p * lags.length))]! : null);
    return {
      deliveries: c?.deliveries ?? 0, statuses: Object.fromEntries(c?.statuses ?? []), events: c?.events.size ?? 0, eventsAnswered20x: c?.ok.size ?? 0,
      repeatsAfter20x: c?.repeats ?? 0, badVerdicts: c?.bad ?? 0, lagMs: { p50: q(0.5), p95: q(0.95), max: lags.length ? lags[lags.length - 1]! : null, resolutionMs: c?.resolutionMs ?? 1 },
    };
  }

  const control = (path: string) => `/_control${path}`;
  app.get(control('/health'), async () => ({ ok: true }));
  app.get<{ Querystring: { path?: string } }>(control('/summary'), async (req, reply) => {
    if (typeof req.query.path !== 'string' || !req.query.path) return reply.code(400).send({ error: 'invalid_request', message: 'give ?path=/the/delivery/path' });
    return summary(req.query.path);
  });
  app.get(control('/deliveries'), async (req) => ({ deliveries: sink.deliveries(filterFromQuery(req.query as Record<string, unknown>)) }));
  app.get(control('/wait'), async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const count = Number(q.count ?? 1);
    const timeoutMs = Number(q.timeoutMs ?? 10_000);
    if (!Number.isInteger(count) || count < 1 || !Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > 300_000) {
      return reply.code(400).send({ error: 'invalid_request', message: 'count must be an integer >= 1 and timeoutMs 0..300000' });
    }
    return sink.waitFor(filterFromQuery(q), count, timeoutMs);
  });
  const jsonBody = (req: FastifyRequest): Record<string, unknown> | null => {
    try { return req.body ? JSON.parse((req.body as Buffer).toString('utf8')) : {}; } catch { return null; }
  };
  app.post(control('/plan'), async (req, reply) => {
    const b = jsonBody(req);
    const answers = b?.answers;
    const okAnswer = (a: unknown) => typeof a === 'number' || (typeof a === 'object' && a !== null && typeof (a as PlannedAnswer).status === 'number');
    if (!b || !Array.isArray(answers) || !answers.every(okAnswer) || (b.then !== undefined && !okAnswer(b.then))) {
      return reply.code(400).send({ error: 'invalid_request', message: 'body must be {"match": {path?, eventType?, correlationId?, body?}, "answers": [503, {"status": 200, "delayMs": 5000}], "then"?: 200}' });
    }
    const p = sink.plan((b.match ?? {}) as PlanMatch, answers as Array<PlannedAnswer | number>, b.then as PlannedAnswer | number | undefined);
    return reply.code(201).send(p);
  });
  // A stalling callback address (accepts TCP, never answers the TLS handshake), to measure the sender's connect timeout.
  app.post(control('/stalls'), async (_req, reply) => reply.code(201).send(await stall()));
  app.get<{ Params: { id: string }; Querystring: { count?: string; timeoutMs?: string } }>(control('/stalls/:id/wait'), async (req, reply) => {
    const id = Number(req.params.id);
    if (!stalls.has(id)) return reply.code(404).send({ error: 'not_found', message: `no stall ${req.params.id}` });
    const count = Number(req.query.count ?? 1);
    const timeoutMs = Number(req.query.timeoutMs ?? 10_000);
    if (!Number.isInteger(count) || count < 1 || !Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > 300_000) {
      return reply.code(400).send({ error: 'invalid_request', message: 'count must be an integer >= 1 and timeoutMs 0..300000' });
    }
    return waitForStall(id, count, timeoutMs);
  });
  app.post(control('/reset'), async (req) => {
    const b = jsonBody(req) ?? {};
    sink.reset(typeof b.path === 'string' ? b.path : undefined);
    return { reset: true };
  });

  // Every other POST is a delivery: record it, judge it, answer per plan.
  app.post('/*', async (req: FastifyRequest, reply: FastifyReply) => {
    const arrivedAt = Date.now();
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
    let json: unknown;
    try { json = raw.length ? JSON.parse(raw.toString('utf8')) : undefined; } catch { json = undefined; }
    const obj = json && typeof json === 'object' ? (json as Record<string, unknown>) : {};
    const base = {
      seq: ++seq, path: req.url.split('?')[0]!, method: req.method, arrivedAt, headers, body: raw.toString('utf8'), bodyBase64: raw.toString('base64'), json,
      eventType: typeof obj.eventType === 'string' ? obj.eventType : null, eventId: typeof obj.eventId === 'string' ? obj.eventId : null,
      correlationId: headers['x-service-correlationid'] ?? null, deliveryId: headers['x-service-delivery'] ?? null,
      verdicts: judge(opts.secret, headers, raw, json),
    };
    // Under /strict/ the sink behaves as a careful receiver: a delivery whose signature does not verify is refused (401).
    const answer = base.path.startsWith('/strict/') && !base.verdicts.signature.ok ? { status: 401, planId: null } : choose(base);
    const d: SinkDelivery = { ...base, answer };
    recorded.push(d);
    // Trimmed by a tenth of the cap at a time: dropping one entry per delivery moved the whole record each time (a third of the sink's CPU).
    if (recorded.length >= RECORD_CAP + RECORD_CAP / 10) recorded.splice(0, recorded.length - RECORD_CAP);
    count(d);
    arrivals.emit('delivery', d);
    if (answer.delayMs) {
      await new Promise<void>((resolve) => {
        const release = () => { clearTimeout(t); held.delete(t); resolve(); };
        const t = setTimeout(release, answer.delayMs);
        held.set(t, release);
        // The sender gave up (its answer timeout): stop holding the answer.
        reply.raw.once('close', release);
      });
    }
    if (answer.status >= 300 && answer.status < 400) reply.header('location', '/redirected');
    return reply.code(answer.status).send({ received: answer.status < 300 });
  });

  await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 });
  const port = (app.server.address() as { port: number }).port;
  const host = opts.host && opts.host !== '0.0.0.0' ? opts.host : '127.0.0.1';
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    ...sink,
    url,
    controlUrl: `${url}/_control`,
    controlToken,
    close: async () => {
      for (const release of [...held.values()]) release();
      for (const s of stalls.values()) { for (const sock of s.sockets) sock.destroy(); s.server.close(); }
      await app.close();
    },
  };
}
