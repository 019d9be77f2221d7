// Webhook suite helpers: per-test subscriptions on a fresh sink route, sink control (plans, waits), delivery log, triggers through public and sim APIs.
import { randomUUID } from 'node:crypto';
import { test as base, expect, needs, expectSchema, otherKey, requirePart, type Api } from '../fixtures/target.js';
import { SimDriver } from '../fixtures/sim.js';
import { SinkControl, type SinkDelivery } from '../fixtures/partners.js';
import { attachTimeline, clauses } from '../fixtures/evidence.js';
import { withClockLock } from '../fixtures/clock.js';
import type { Target } from '../../lib/target.js';
import { verify } from '../../lib/signature.js';
import { addSecret } from '../../lib/mask.js';
import { notJudged, notJudgedIf, step, under } from '../verdicts.js';
import { subscriptionProblem } from './subscription-step.js';
import { withCopies } from '../fixtures/copies.js';

export { needs, clauses, expectSchema, otherKey, withClockLock, type Api, type SinkDelivery };

/** Stated tolerances of real-time checks: an attempt may come this much earlier / later than the spec's moment. */
export const TOLERANCE = { earlyMs: 500, lateMs: 1_500 } as const;
/** Deadline for a delivery that should follow an action at once (queueing, TLS set-up, a loaded CI machine). */
export const PROMPT_MS = 10_000;

export const DEPRECATED = ['conversation.transferred', 'conversation.closed', 'satisfaction.filled'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: unknown) => typeof s === 'string' && UUID.test(s);

export interface Subscription { id: string; path: string; url: string; secret: string; key: string; events: string[] }
export interface LogEntry {
  eventId: string; eventType: string; correlationId: string; state: 'pending' | 'delivered' | 'dead'; payload: any; nextAttemptAt: string | null;
  attempts: Array<{ attempt: number; deliveryId: string; correlationId: string; startedAt: string; endedAt: string | null; durationMs: number | null; status: number | null; error: string | null }>;
}

/** The webhook side of a test: subscriptions (platform API) of fresh sink routes, sink control, triggers through the simulation API. Everything it subscribes is removed at the end. */
export class Hooks {
  private subs: Subscription[] = [];
  constructor(private api: Api, private target: Target) {}

  /** The sink's control API (part sink_url). */
  get sink(): SinkControl { requirePart('the webhook sink', 'sink_url'); return new SinkControl(this.target); }
  /** The simulation API (part sim): the triggers of events. */
  get sim(): SimDriver { requirePart('the simulation driver', 'sim'); return new SimDriver(this.target); }
  get sinkUrl(): string { return this.sink.url; }
  get platformUrl(): string { requirePart('the platform API', 'platform'); return this.target.platform_url!; }

  /** A fresh sink route and a subscription of it (one test, one route: parallel workers never see each other's deliveries). */
  async subscribe(opts: { events: string[]; includeDeprecated?: boolean; key?: string; secret?: string; url?: string }): Promise<Subscription> {
    const path = opts.url ? new URL(opts.url).pathname : `/hooks/${randomUUID()}`;
    const secret = opts.secret ?? 'whsec-' + randomUUID();
    addSecret(secret);
    const key = opts.key ?? this.target.api_key;
    const url = opts.url ?? this.sinkUrl + path;
    if (!opts.url) await this.sink.shareSecret(path, secret);
    const res = await this.api.postJson(`${this.platformUrl}/webhooks`, { url, secret, events: opts.events, ...(opts.includeDeprecated ? { includeDeprecated: true } : {}) }, { 'x-api-key': key });
    // A set-up step judged under the platform API's clause (G17, REF): its exact status is the reference's decision; what the
    // check needs is a subscription (a 2xx with its id), else the check's own clauses are NOT JUDGED naming this step.
    under('WH-SUB-01', () => expect(res.status, `G17: a subscription is created with 201 (${res.text.slice(0, 200)})`).toBe(201));
    const id = await step('WH-SUB-01', 'POST {platform_url}/webhooks (a subscription)', async () => {
      expect(subscriptionProblem(res), 'a subscription the check can use').toBeUndefined();
      return res.json.id as string;
    });
    const sub = { id, path, url, secret, key, events: opts.events };
    this.subs.push(sub);
    return sub;
  }

  async unsubscribeAll(): Promise<void> {
    for (const s of this.subs) await this.api.request({ method: 'DELETE', url: `${this.target.platform_url}/webhooks/${s.id}`, headers: { 'x-api-key': s.key } }).catch(() => undefined);
    this.subs = [];
  }

  /** Makes the sink answer the deliveries of this route (and body fields) in this order, per event; then `then`. */
  plan(sub: Subscription, answers: Array<number | { status: number; delayMs?: number }>, body: Record<string, string | number> = {}, then = 200): Promise<void> {
    return this.sink.plan(sub.path, answers, body, then);
  }

  /** Waits until `count` deliveries match (or the deadline passes) and returns those seen. */
  wait(sub: Subscription, filter: Record<string, string | number>, count: number, timeoutMs: number): Promise<{ deliveries: SinkDelivery[]; timedOut: boolean }> {
    return this.sink.wait(sub.path, filter, count, timeoutMs);
  }

  /** The delivery log of a subscription (platform API). */
  async log(sub: Subscription, query: Record<string, string> = {}): Promise<LogEntry[]> {
    const res = await this.api.request({ url: `${this.platformUrl}/webhooks/${sub.id}/deliveries?${new URLSearchParams(query)}`, headers: { 'x-api-key': sub.key } });
    return step('WH-LOG-01', 'GET {platform_url}/webhooks/{id}/deliveries (the delivery log)', async () => {
      expect(res.status, res.text).toBe(200);
      expect(Array.isArray(res.json?.data), 'the delivery log lists entries in data').toBe(true);
      return res.json.data as LogEntry[];
    });
  }

  /** A visitor of the key's client, distinct per test (index), whose details the sim desk action edits. */
  async visitor(index: number, key = this.target.api_key): Promise<string> {
    const res = await this.sim.visitors(key);
    if (res.status !== 200) notJudged(`the set-up step GET {sim_url}/visitors failed: HTTP ${res.status} ${res.text.slice(0, 200)}`);
    const v = res.json?.visitors?.[index % (res.json.visitors.length || 1)];
    notJudgedIf(!v?.uniqueId, 'the set-up step GET {sim_url}/visitors listed no visitor of the client');
    return v.uniqueId as string;
  }

  /** Real domain action: a visitor's details are edited from the desk, which raises visitor.updated. */
  async updateVisitor(uniqueId: string, key = this.target.api_key): Promise<void> {
    const res = await this.sim.updateVisitor(uniqueId, { city: 'City ' + randomUUID().slice(0, 8) }, key);
    if (res.status !== 200) notJudged(`the set-up step POST {sim_url}/visitors/{id} (a desk update) failed: HTTP ${res.status} ${res.text.slice(0, 200)}`);
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
  under('WH-HDR-01', () => {
    expect(d.method, 'deliveries are POST').toBe('POST');
    expect(d.headers['content-type'] ?? '', 'Content-Type').toMatch(/^application\/json(\s*;.*)?$/i);
  });
  const sig = verify(secret, Buffer.from(d.bodyBase64, 'base64'), d.headers['x-service-signature']);
  under('WH-SIG-01', () => expect(sig, `X-Service-Signature must be sha256=<64 lowercase hex> HMAC-SHA256 of the raw body (got ${d.headers['x-service-signature']})`).toEqual({ ok: true }));
}

/** Attaches the attempt timeline of one event (sink arrivals, ms after the first). */
export async function timeline(title: string, ds: SinkDelivery[]): Promise<void> {
  const t0 = ds[0]?.arrivedAt ?? 0;
  await attachTimeline(title, ds.map((d, i) => ({ attempt: i + 1, atMs: d.arrivedAt - t0, status: d.answer.status, deliveryId: d.deliveryId ?? undefined, correlationId: d.correlationId ?? undefined })));
}

export const test = withCopies(base.extend<{ hooks: Hooks }>({
  hooks: async ({ api, target }, use) => {
    const h = new Hooks(api, target);
    await use(h);
    await h.unsubscribeAll();
  },
}));
export { expect };
