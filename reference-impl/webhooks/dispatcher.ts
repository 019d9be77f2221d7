// The durable webhook dispatcher: a SQLite outbox, one clock timer per due attempt, signed POSTs, retries +10 s / +20 s, dead letters.
import { randomUUID } from 'node:crypto';
import { Agent, request, type Dispatcher } from 'undici';
import { sign } from '../../lib/signature.js';
import { applyEdits } from '../../lib/json-edit.js';
import type { ServiceContext } from '../context.js';
import type { DomainEvent } from '../events.js';
import type { TimerHandle } from '../../lib/clock.js';
import { payloadsFor, type Payload } from './payloads.js';
import { outboundSecureContext } from '../../lib/outbound.js';

export interface SubscriptionRow {
  id: string; client_id: number; url: string; secret: string; events: string; include_deprecated: number; created_at: number; deleted_at: number | null;
}
export interface DeliveryRow {
  id: number; subscription_id: string; client_id: number; event_id: string; event_type: string; correlation_id: string; body: string;
  state: 'pending' | 'delivered' | 'dead'; next_attempt: number; due_at: number | null; created_at: number; finished_at: number | null;
}
export interface AttemptRow {
  id: number; delivery: number; attempt: number; delivery_id: string; correlation_id: string; due_at: number; started_at: number;
  ended_at: number | null; status: number | null; error: string | null;
}

/** Outcome of one attempt: a 20x answer stops; 30x/40x/50x, a timeout or a network error is a failure (G3, G4). */
type Outcome = { status: number | null; error: string | null; ok: boolean; network?: boolean };

/** Keep-alive connections per subscriber origin (issue 16 measured 16 clean at 1,500 deliveries/s, where no cap collapsed at ~300/s). */
const SUBSCRIBER_CONNECTIONS = 16;

export class WebhookDispatcher {
  private timers = new Map<number, TimerHandle>();
  private inFlight = new Set<number>();
  private closing = false;
  private agents = new Map<string, Agent>();
  /** Only used by the `webhooks-sequential-queue` deviation: every attempt waits for the previous one. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private ces: ServiceContext) {}

  /**
   * One agent per answer timeout (deviations switch at run time), a bounded pool per subscriber origin: without a cap a burst opened
   * dozens of TLS connections at once, their handshakes queued past the 1 s connect timeout (G3) and failed, and came back 10 s later
   * as another burst. Deliveries beyond the cap wait in undici's queue, and that wait is not connect time (the timer starts at connect).
   */
  private agent(): Agent {
    const { answerTimeoutMs: answerMs, connectTimeoutMs: connectMs } = this.ces.deviations.policy.webhooks;
    const key = `${connectMs}/${answerMs}`;
    let a = this.agents.get(key);
    if (a) return a;
    // The connect timeout covers TCP and the TLS handshake (undici clears it on secureConnect).
    a = new Agent({
      // Node's roots plus the harness CA, as Node does with NODE_EXTRA_CA_CERTS; one shared context keeps handshakes cheap.
      connect: { timeout: connectMs, secureContext: outboundSecureContext(this.ces.settings.outboundCa) },
      headersTimeout: answerMs,
      bodyTimeout: answerMs,
      // Reused connections spare a handshake per retry; undici still honours a shorter Keep-Alive hint from the subscriber.
      keepAliveTimeout: 30_000,
      connections: SUBSCRIBER_CONNECTIONS,
    });
    this.agents.set(key, a);
    return a;
  }

  /** Queues one delivery per matching subscription for each payload of the event; every row is stored before any request leaves. */
  enqueue(e: DomainEvent): void {
    if (this.closing) return;
    const { db, clock, deviations } = this.ces;
    const now = clock.now();
    const payloads = payloadsFor(db, deviations, e, now);
    if (!payloads.length) return;
    const subs = deviations.policy.webhooks.subscriptionsFor(db, e.clientId) as SubscriptionRow[];
    const insert = db.prepare(`INSERT INTO webhook_deliveries (subscription_id, client_id, event_id, event_type, correlation_id, body, state, next_attempt, due_at, created_at)
      VALUES (?, ?, ?, ?, ?, ?, 'pending', 1, ?, ?)`);
    const ids: number[] = [];
    db.transaction(() => {
      for (const p of payloads) {
        for (const s of subs) {
          if (!this.wants(s, p)) continue;
          const r = insert.run(s.id, s.client_id, p.body.eventId, p.kind, randomUUID(), JSON.stringify(p.body), now, now);
          ids.push(Number(r.lastInsertRowid));
        }
      }
    })();
    for (const id of ids) this.arm(id, now);
  }

  private wants(s: SubscriptionRow, p: Payload): boolean {
    const kinds = JSON.parse(s.events) as string[];
    if (!kinds.includes(p.kind)) return false;
    return !p.deprecated || this.ces.deviations.policy.webhooks.deprecatedSent(s.include_deprecated === 1);
  }

  /**
   * After a restart (G29): an attempt cut short by the crash is not one of G4's attempts. Its row moves to webhook_interruptions
   * and the delivery is repeated at once with the same attempt number (the receiver may see the event twice: at-least-once);
   * an event whose answer was 20x is therefore never marked dead by a crash. Every other pending delivery is re-armed at its due time.
   */
  resume(): void {
    const { db, clock } = this.ces;
    const now = clock.now();
    db.transaction(() => {
      const cut = db.prepare(`SELECT a.* FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery
        WHERE d.state = 'pending' AND a.ended_at IS NULL`).all() as AttemptRow[];
      for (const a of cut) {
        db.prepare(`INSERT INTO webhook_interruptions (delivery, attempt, delivery_id, correlation_id, started_at, noted_at) VALUES (?, ?, ?, ?, ?, ?)`)
          .run(a.delivery, a.attempt, a.delivery_id, a.correlation_id, a.started_at, now);
        db.prepare('DELETE FROM webhook_attempts WHERE id = ?').run(a.id);
        db.prepare('UPDATE webhook_deliveries SET next_attempt = ?, due_at = ? WHERE id = ?').run(a.attempt, now, a.delivery);
      }
    })();
    const pending = db.prepare(`SELECT id, due_at FROM webhook_deliveries WHERE state = 'pending'`).all() as Array<{ id: number; due_at: number | null }>;
    for (const p of pending) this.arm(p.id, p.due_at ?? now);
  }

  private arm(id: number, due: number): void {
    this.timers.get(id)?.cancel();
    this.timers.set(id, this.ces.clock.at(due, () => {
      this.timers.delete(id);
      if (this.ces.deviations.policy.webhooks.sequentialQueue) this.chain = this.chain.then(() => this.safeAttempt(id));
      else void this.safeAttempt(id);
    }));
  }

  /** A failed attempt never takes the service down; the row stays pending and resume() picks it up after a restart. */
  private async safeAttempt(id: number): Promise<void> {
    try { await this.attempt(id); } catch (err) {
      if (!this.closing) console.error(`webhooks: attempt of delivery ${id} failed: ${(err as Error).message}`);
    }
  }

  /** One attempt of a delivery: recorded before it leaves, settled when the answer (or failure) is known. */
  private async attempt(id: number): Promise<void> {
    if (this.closing || this.inFlight.has(id)) return;
    const { db, clock } = this.ces;
    const policy = this.ces.deviations.policy.webhooks;
    const d = db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?').get(id) as DeliveryRow | undefined;
    if (!d || d.state !== 'pending') return;
    const s = db.prepare('SELECT * FROM webhook_subscriptions WHERE id = ?').get(d.subscription_id) as SubscriptionRow | undefined;
    if (!s || s.deleted_at !== null) {
      db.prepare(`UPDATE webhook_deliveries SET state = 'dead', finished_at = ?, due_at = NULL WHERE id = ?`).run(clock.now(), id);
      return;
    }
    this.inFlight.add(id);
    try {
      const first = () => (db.prepare('SELECT delivery_id FROM webhook_attempts WHERE delivery = ? AND attempt = 1').get(id) as { delivery_id: string } | undefined)?.delivery_id;
      const deliveryId = policy.deliveryId(first);
      const correlationId = policy.correlationId(d.correlation_id, d.next_attempt);
      const started = clock.now();
      const r = db.prepare(`INSERT INTO webhook_attempts (delivery, attempt, delivery_id, correlation_id, due_at, started_at) VALUES (?, ?, ?, ?, ?, ?)`)
        .run(id, d.next_attempt, deliveryId, correlationId, d.due_at ?? started, started);
      const attemptRow: AttemptRow = { id: Number(r.lastInsertRowid), delivery: id, attempt: d.next_attempt, delivery_id: deliveryId, correlation_id: correlationId, due_at: d.due_at ?? started, started_at: started, ended_at: null, status: null, error: null };
      const outcome = await this.post(s, d.body, deliveryId, correlationId);
      if (this.closing) return; // the row stays open; resume() after restart counts it as interrupted
      this.settle(id, attemptRow, outcome, clock.now());
    } finally {
      this.inFlight.delete(id);
    }
  }

  private headers(s: SubscriptionRow, body: string, deliveryId: string, correlationId: string): Record<string, string> {
    const dev = this.ces.deviations;
    const policy = dev.policy.webhooks;
    const h: Record<string, string> = {
      'content-type': 'application/json',
      'x-service-delivery': deliveryId,
      'x-service-correlationid': correlationId,
      'x-service-signature': policy.signatureHeader(sign(s.secret, policy.signedBytes(body))),
    };
    // The request seam: deviations at `webhooks.headers` edit the headers (fixtures/deviations/webhooks.json).
    return applyEdits(h, dev.edits('webhooks.headers'));
  }

  private async post(s: SubscriptionRow, body: string, deliveryId: string, correlationId: string): Promise<Outcome> {
    try {
      const res = await request(s.url, {
        method: 'POST', body, headers: this.headers(s, body, deliveryId, correlationId), dispatcher: this.agent() as Dispatcher,
      });
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const st = res.statusCode;
      return { status: st, error: null, ok: this.ces.deviations.policy.webhooks.delivered(st) };
    } catch (err) {
      const e = err as { code?: string; message?: string };
      const timeout = /TIMEOUT/i.test(e.code ?? '');
      return { status: null, error: `${e.code ?? 'ERROR'}: ${e.message ?? String(err)}`, ok: false, network: !timeout };
    }
  }

  /** Records an attempt's outcome and decides: delivered, retry at +10 s / +20 s after the failure, or dead letter. */
  private settle(id: number, a: AttemptRow, outcome: Outcome, endedAt: number): void {
    // The attempt's outcome and the delivery's next state in one commit.
    this.ces.db.transaction(() => this.settleRows(id, a, outcome, endedAt))();
  }

  private settleRows(id: number, a: AttemptRow, outcome: Outcome, endedAt: number): void {
    const { db } = this.ces;
    const policy = this.ces.deviations.policy.webhooks;
    db.prepare('UPDATE webhook_attempts SET ended_at = ?, status = ?, error = ? WHERE id = ?').run(endedAt, outcome.status, outcome.error, a.id);
    if (outcome.ok) {
      db.prepare(`UPDATE webhook_deliveries SET state = 'delivered', finished_at = ?, due_at = NULL WHERE id = ?`).run(endedAt, id);
      return;
    }
    const delay = policy.retryDelaysMs[a.attempt - 1];
    if (delay === undefined || policy.finalFailure(outcome)) {
      policy.deadLetter(db, id, endedAt);
      return;
    }
    const due = endedAt + delay;
    db.prepare('UPDATE webhook_deliveries SET next_attempt = ?, due_at = ? WHERE id = ?').run(a.attempt + 1, due, id);
    if (!this.closing) this.arm(id, due);
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    await Promise.all([...this.agents.values()].map((a) => a.destroy().catch(() => undefined)));
  }
}
