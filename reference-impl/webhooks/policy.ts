// Policy of the webhook dispatcher and payloads: G1-G4 and the spec's payload shapes by default; deviations (fixtures/deviations/webhooks.json) override fields.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { LIMITS } from '../../lib/limits.js';
import type { PolicyModule } from '../policies.js';
import { CLOSED_CHANNELS } from './payloads.js';

type Row = Record<string, any>;
/** An attempt's outcome as the retry rule sees it. */
export interface AttemptOutcome { status: number | null; network?: boolean }

const defaults = {
  /** G4: the delays of the retries after a failure (+10 s, +20 s: two retries). */
  retryDelaysMs: LIMITS.webhookRetryDelaysMs as readonly number[],
  /** G3: connect (TCP + TLS) and answer timeouts. */
  connectTimeoutMs: LIMITS.webhookConnectTimeoutMs,
  answerTimeoutMs: LIMITS.webhookAnswerTimeoutMs,
  /** G3: a 20x answer delivers; anything else fails. */
  delivered: (status: number): boolean => status >= 200 && status < 300,
  /** A failure that ends the delivery at once, without retries (none: every failure is retried). */
  finalFailure: (_o: AttemptOutcome): boolean => false,
  /** Every attempt runs on its own, so a slow subscriber delays no one else. */
  sequentialQueue: false as boolean,
  /** What becomes of a delivery whose attempts all failed: a dead letter. */
  deadLetter: (db: Db, delivery: number, at: number): void => { db.prepare(`UPDATE webhook_deliveries SET state = 'dead', finished_at = ?, due_at = NULL WHERE id = ?`).run(at, delivery); },
  /** X-Service-Delivery: new for every attempt (the first attempt's is read only by a deviation that reuses it). */
  deliveryId: (_firstAttempt: () => string | undefined): string => randomUUID(),
  /** X-Service-CorrelationId: the same for every attempt of a delivery. */
  correlationId: (stored: string, _attempt: number): string => stored,
  /** G1: the bytes signed are the raw body sent. */
  signedBytes: (body: string): string => body,
  signatureHeader: (signature: string): string => signature,
  /** The subscriptions an event of `clientId` goes to: that client's. */
  subscriptionsFor: (db: Db, clientId: number): Row[] => db.prepare('SELECT * FROM webhook_subscriptions WHERE deleted_at IS NULL AND client_id = ?').all(clientId) as Row[],
  /** Deprecated kinds go to subscriptions that opted in only. */
  deprecatedSent: (optedIn: boolean): boolean => optedIn,
  /** conversationId of v2.conversation.pushed: the UUID. */
  v2ConversationId: (c: { id: number; uuid: string }): string | number => c.uuid,
  /** The channels whose conversations close with v2.conversation.closed, and their names in it (spec list and G30). */
  closedChannels: CLOSED_CHANNELS as Readonly<Record<string, string>>,
  /** visitorExternalId of offsite conversations: null. */
  offsiteExternalId: (_c: { visitor_external_id: string | null; visitor_uid: string }): string | null => null,
};

export const WEBHOOKS_POLICY: PolicyModule<typeof defaults> = {
  defaults,
  variants: {
    delivered: { 'also-3xx': (s) => s >= 200 && s < 400, never: () => false },
    finalFailure: { '40x': (o) => o.status !== null && o.status >= 400 && o.status < 500, network: (o) => o.network === true },
    deadLetter: {
      deleted: (db, id) => {
        db.prepare('DELETE FROM webhook_attempts WHERE delivery = ?').run(id);
        db.prepare('DELETE FROM webhook_interruptions WHERE delivery = ?').run(id);
        db.prepare('DELETE FROM webhook_deliveries WHERE id = ?').run(id);
      },
    },
    deliveryId: { 'first-reused': (first) => first() ?? randomUUID() },
    correlationId: { 'new-per-retry': (stored, attempt) => (attempt > 1 ? randomUUID() : stored) },
    signedBytes: { 'pretty-printed': (body) => JSON.stringify(JSON.parse(body), null, 2) },
    signatureHeader: { 'uppercase-hex': (s) => 'sha256=' + s.slice(7).toUpperCase(), 'no-prefix': (s) => s.slice(7) },
    subscriptionsFor: { 'every-client': (db) => db.prepare('SELECT * FROM webhook_subscriptions WHERE deleted_at IS NULL').all() as Row[] },
    deprecatedSent: { always: () => true },
    v2ConversationId: { integer: (c) => c.id },
    offsiteExternalId: { 'visitor-id': (c) => c.visitor_external_id ?? c.visitor_uid },
  },
};
