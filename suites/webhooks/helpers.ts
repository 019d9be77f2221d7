// Webhook suite helpers: per-test subscriptions on a fresh sink route, sink control (plans, waits), delivery log, triggers through public and sim APIs.
import { randomUUID } from 'node:crypto';
import { test as base, expect, type Api } from '../fixtures.js';
import type { Target } from '../../lib/target.js';
import { verify } from '../../lib/signature.js';
import { attachTimeline } from '../evidence.js';
import { addSecret } from '../../lib/mask.js';

/** Stated tolerances of real-time checks: an attempt may come this much earlier / later than the spec's moment. */
export const TOLERANCE = { earlyMs: 500, lateMs: 1_500 } as const;
/** Deadline for a delivery that should follow an action at once (queueing, TLS set-up, a loaded CI machine). */
export const PROMPT_MS = 10_000;

export const DEPRECATED = ['conversation.transferred', 'conversation.closed', 'satisfaction.filled'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: unknown) => typeof s === 'string' && UUID.test(s);

export interface SinkDelivery {
  seq: number; path: string; method: string; arrivedAt: number; headers: Record<string, string>; body: string; bodyBase64: string; json: any;
  eventType: string | null; eventId: string | null; correlationId: string | null; deliveryId: string | null; answer: { status: number; delayMs?: number };
}
export interface Subscription { id: string; path: string; url: string; secret: string; key: string; events: string[] }
export interface LogEntry {
  eventId: string; eventType: string; correlationId: string; state: 'pending' | 'delivered' | 'dead'; payload: any; nextAttemptAt: string | null;
  attempts: Array<{ attempt: number; deliveryId: string; correlationId: string; startedAt: string; endedAt: string | null; durationMs: number | null; status: number | null; error: string | null }>;
}

/** The webhook side of a test: everything it subscribes is removed at the end. */
export class Hooks {
  private subs: Subscription[] = [];
  constructor(private api: Api, private target: Target) {}

  get sinkUrl(): string {
    if (!this.target.sink_url) throw new Error('target has no sink_url: the webhook suite needs a webhook sink the service can reach (`ces sink`)');
    return this.target.sink_url;
  }
  get platformUrl(): string { return this.target.platform_url ?? `${this.target.base_url}/platform`; }
  get simUrl(): string { return this.target.sim_url ?? `${this.target.base_url}/sim`; }

  /** A fresh sink route and a subscription of it (one test, one route: parallel workers never see each other's deliveries). */
  async subscribe(opts: { events: string[]; includeDeprecated?: boolean; key?: string; secret?: string; url?: string }): Promise<Subscription> {
    const path = opts.url ? new URL(opts.url).pathname : `/hooks/${randomUUID()}`;
    const secret = opts.secret ?? 'whsec-' + randomUUID();
    addSecret(secret);
    const key = opts.key ?? this.target.api_key;
    const res = await this.api.postJson(`${this.platformUrl}/webhooks`, { url: opts.url ?? this.sinkUrl + path, secret, events: opts.events, ...(opts.includeDeprecated ? { includeDeprecated: true } : {}) }, { 'x-api-key': key });
    expect(res.status, `subscription refused: ${res.text}`).toBe(201);
    const sub = { id: res.json.id as string, path, url: opts.url ?? this.sinkUrl + path, secret, key, events: opts.events };
    this.subs.push(sub);
    return sub;
  }

  async unsubscribeAll(): Promise<void> {
    for (const s of this.subs) await this.api.request({ method: 'DELETE', url: `${this.platformUrl}/webhooks/${s.id}`, headers: { 'x-api-key': s.key } }).catch(() => undefined);
    this.subs = [];
  }

  /** Makes the sink answer the deliveries of this route (and body fields) in this order, per event; then `then`. */
  async plan(sub: Subscription, answers: Array<number | { status: number; delayMs?: number }>, body: Record<string, string | number> = {}, then: number = 200): Promise<void> {
    const res = await this.api.postJson(`${this.sinkUrl}/_control/plan`, { match: { path: sub.path, body }, answers, then });
    expect(res.status, `sink refused the plan: ${res.text}`).toBe(201);
  }

  /** Waits until `count` deliveries match (or the deadline passes) and returns those seen. */
  async wait(sub: Subscription, filter: Record<string, string | number>, count: number, timeoutMs: number): Promise<{ deliveries: SinkDelivery[]; timedOut: boolean }> {
    const q = new URLSearchParams({ path: sub.path, count: String(count), timeoutMs: String(Math.round(timeoutMs)) });
    for (const [k, v] of Object.entries(filter)) q.set(k, String(v));
    const res = await this.api.request({ url: `${this.sinkUrl}/_control/wait?${q}`, timeoutMs: timeoutMs + 15_000 }, `sink: wait for ${count} delivery(ies) on ${sub.path.slice(0, 16)}… ${JSON.stringify(filter)} (deadline ${Math.round(timeoutMs)} ms)`);
    expect(res.status).toBe(200);
    return res.json;
  }

  /** The delivery log of a subscription (platform API). */
  async log(sub: Subscription, query: Record<string, string> = {}): Promise<LogEntry[]> {
    const res = await this.api.request({ url: `${this.platformUrl}/webhooks/${sub.id}/deliveries?${new URLSearchParams(query)}`, headers: { 'x-api-key': sub.key } });
    expect(res.status, res.text).toBe(200);
    return res.json.data;
  }

  /** A visitor of the key's client, distinct per test (index), whose details the sim desk action edits. */
  async visitor(index: number, key = this.target.api_key): Promise<string> {
    const res = await this.api.request({ url: `${this.simUrl}/visitors?limit=100`, headers: { 'x-api-key': key } });
    expect(res.status, res.text).toBe(200);
    const v = res.json.visitors[index % res.json.visitors.length];
    expect(v, 'the client has visitors').toBeTruthy();
    return v.uniqueId as string;
  }

  /** Real domain action: a visitor's details are edited from the desk, which raises visitor.updated. */
  async updateVisitor(uniqueId: string, key = this.target.api_key): Promise<void> {
    const res = await this.api.postJson(`${this.simUrl}/visitors/${encodeURIComponent(uniqueId)}`, { city: 'City ' + randomUUID().slice(0, 8) }, { 'x-api-key': key });
    expect(res.status, res.text).toBe(200);
  }
}

/** The client id owning an API key, from the target description. */
export function clientIdOf(target: Target, key: string): number {
  const k = target.api_keys.find((x) => x.key === key);
  if (!k) throw new Error('key not in target.api_keys');
  return k.client_id;
}

/** Asserts the spec's delivery headers and the G1 signature of one delivery (checked independently of the sink's own verdicts). */
export function expectSignedJson(d: SinkDelivery, secret: string): void {
  expect(d.method, 'deliveries are POST').toBe('POST');
  expect(d.headers['content-type'] ?? '', 'Content-Type').toMatch(/^application\/json(\s*;.*)?$/i);
  const sig = verify(secret, Buffer.from(d.bodyBase64, 'base64'), d.headers['x-service-signature']);
  expect(sig, `X-Service-Signature must be sha256=<64 lowercase hex> HMAC-SHA256 of the raw body (got ${d.headers['x-service-signature']})`).toEqual({ ok: true });
}

/** Attaches the attempt timeline of one event (sink arrivals, ms after the first). */
export async function timeline(title: string, ds: SinkDelivery[]): Promise<void> {
  const t0 = ds[0]?.arrivedAt ?? 0;
  await attachTimeline(title, ds.map((d, i) => ({ attempt: i + 1, atMs: d.arrivedAt - t0, status: d.answer.status, deliveryId: d.deliveryId ?? undefined, correlationId: d.correlationId ?? undefined })));
}

export const test = base.extend<{ hooks: Hooks }>({
  hooks: async ({ api, target }, use) => {
    const h = new Hooks(api, target);
    await use(h);
    await h.unsubscribeAll();
  },
});
export { expect };
