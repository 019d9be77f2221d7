// Platform API for webhook subscriptions and their delivery log (G17, docs/platform-api-webhooks.md).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { expandKinds, subscriptionError, subscriptionView } from '../webhooks/subscriptions.js';
import type { AttemptRow, DeliveryRow, SubscriptionRow } from '../webhooks/dispatcher.js';
import type { ClientRow } from '../auth/api-key.js';
import { rows as readRows, type Criteria } from '../store/read.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function invalid(reply: FastifyReply, message: string) {
  return reply.code(400).send({ error: 'invalid_request', message });
}

/** Registers the routes on the platform scope (its hook has authenticated the client). */
export default function registerWebhooks(app: FastifyInstance): void {
  const { db, clock, settings } = app.ces;
  const own = (client: ClientRow, id: string) =>
    db.prepare('SELECT * FROM webhook_subscriptions WHERE id = ? AND client_id = ? AND deleted_at IS NULL').get(id, client.id) as SubscriptionRow | undefined;
  const notFound = (reply: FastifyReply, id: string) => reply.code(404).send({ error: 'not_found', message: `Unknown 'webhook' with 'id' ${id}.` });

  app.post<{ Body: Record<string, unknown> }>('/webhooks', async (req, reply) => {
    const client = req.platformClient;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const schemes = app.ces.policy.platform.callbackSchemes;
    const err = subscriptionError(body, settings.insecure ? [...schemes, 'http:'] : schemes);
    if (err) return invalid(reply, err);
    const includeDeprecated = body.includeDeprecated === true;
    const id = randomUUID();
    db.prepare('INSERT INTO webhook_subscriptions (id, client_id, url, secret, events, include_deprecated, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, client.id, body.url, body.secret, JSON.stringify(expandKinds(body.events as string[], includeDeprecated)), includeDeprecated ? 1 : 0, clock.now());
    return reply.code(app.ces.policy.platform.subscriptionCreatedStatus).send(subscriptionView(own(client, id)!));
  });

  app.get('/webhooks', async (req, reply) => {
    const client = req.platformClient;
    const rows = db.prepare('SELECT * FROM webhook_subscriptions WHERE client_id = ? AND deleted_at IS NULL ORDER BY created_at').all(client.id) as SubscriptionRow[];
    return { data: rows.map(subscriptionView) };
  });

  app.get<{ Params: { id: string } }>('/webhooks/:id', async (req, reply) => {
    const client = req.platformClient;
    const s = own(client, req.params.id);
    return s ? subscriptionView(s) : notFound(reply, req.params.id);
  });

  app.delete<{ Params: { id: string } }>('/webhooks/:id', async (req, reply) => {
    const client = req.platformClient;
    const s = own(client, req.params.id);
    if (!s) return notFound(reply, req.params.id);
    db.prepare('UPDATE webhook_subscriptions SET deleted_at = ? WHERE id = ?').run(clock.now(), s.id);
    return { id: s.id };
  });

  // The delivery log: every event queued for the subscription, its state and each attempt with status and timings.
  app.get<{ Params: { id: string }; Querystring: { eventId?: string; correlationId?: string; state?: string; eventType?: string } }>(
    '/webhooks/:id/deliveries', async (req, reply) => {
      const client = req.platformClient;
      const s = own(client, req.params.id);
      if (!s) return notFound(reply, req.params.id);
      const q = req.query;
      const where: Criteria = { subscription_id: s.id, client_id: client.id };
      for (const [col, v] of [['event_id', q.eventId], ['correlation_id', q.correlationId], ['state', q.state], ['event_type', q.eventType]] as const) {
        if (typeof v === 'string' && v) where[col] = v;
      }
      const rows = readRows(app.ces, 'delivery log', { table: 'webhook_deliveries', where, order: 'id' }) as DeliveryRow[];
      const attempts = db.prepare('SELECT * FROM webhook_attempts WHERE delivery = ? ORDER BY attempt');
      return {
        data: rows.map((d) => ({
          eventId: d.event_id, eventType: d.event_type, correlationId: d.correlation_id, state: d.state,
          createdAt: iso(d.created_at), finishedAt: iso(d.finished_at), nextAttemptAt: d.state === 'pending' ? iso(d.due_at) : null,
          payload: JSON.parse(d.body) as unknown,
          attempts: (attempts.all(d.id) as AttemptRow[]).map((a) => ({
            attempt: a.attempt, deliveryId: a.delivery_id, correlationId: a.correlation_id, dueAt: iso(a.due_at), startedAt: iso(a.started_at),
            endedAt: iso(a.ended_at), durationMs: a.ended_at === null ? null : a.ended_at - a.started_at, status: a.status, error: a.error,
          })),
        })),
      };
    });
}
