// Platform API for webhook subscriptions and their delivery log (G17, docs/platform-api-webhooks.md), and the visitor-update sim action.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientFromRequest, type ClientRow } from '../rest/auth.js';
import { ALL_KINDS, CURRENT_KINDS, isDeprecatedKind } from './payloads.js';
import type { AttemptRow, DeliveryRow, SubscriptionRow } from './dispatcher.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function forbidden(reply: FastifyReply) {
  return reply.code(403).send({ meta: { status: 'error', message: 'Forbidden' } });
}
function invalid(reply: FastifyReply, message: string) {
  return reply.code(400).send({ error: 'invalid_request', message });
}
function authed(app: FastifyInstance, req: FastifyRequest): ClientRow | null { return clientFromRequest(app.ces, req); }

/** A subscription as the platform API shows it: never its secret. */
export function subscriptionView(s: SubscriptionRow) {
  return { id: s.id, url: s.url, events: JSON.parse(s.events) as string[], includeDeprecated: s.include_deprecated === 1, createdAt: iso(s.created_at) };
}

/** Validates a subscription request; returns an error message, or null when acceptable. */
export function subscriptionError(body: Record<string, unknown>, insecureAllowed: boolean): string | null {
  const { url, secret, events, includeDeprecated } = body;
  if (typeof url !== 'string' || !url) return '"url" is required: the HTTPS callback URL';
  let parsed: URL;
  try { parsed = new URL(url); } catch { return `"url" is not a valid URL: ${url}`; }
  if (parsed.protocol !== 'https:' && !(insecureAllowed && parsed.protocol === 'http:')) {
    return `"url" must use HTTPS (callback URLs are HTTPS only), got ${parsed.protocol.replace(':', '')}`;
  }
  if (typeof secret !== 'string' || secret.length < 8) return '"secret" is required: a string of at least 8 characters that signs every delivery';
  if (!Array.isArray(events) || events.length === 0 || events.some((k) => typeof k !== 'string')) return `"events" is required: a non-empty array of event kinds (${ALL_KINDS.join(', ')}) or ["*"]`;
  const unknown = (events as string[]).filter((k) => k !== '*' && !ALL_KINDS.includes(k));
  if (unknown.length) return `unknown event kind(s) ${unknown.join(', ')}; accepted: ${ALL_KINDS.join(', ')}`;
  if (includeDeprecated !== undefined && typeof includeDeprecated !== 'boolean') return '"includeDeprecated" must be a boolean';
  const deprecated = (events as string[]).filter(isDeprecatedKind);
  if (deprecated.length && includeDeprecated !== true) return `deprecated kind(s) ${deprecated.join(', ')} must not be used unless "includeDeprecated": true`;
  return null;
}

/** Expands `*` (every current kind, plus the deprecated ones when opted in). */
export function expandKinds(events: string[], includeDeprecated: boolean): string[] {
  if (!events.includes('*')) return [...new Set(events)];
  return [...new Set([...CURRENT_KINDS, ...(includeDeprecated ? ALL_KINDS : []), ...events.filter((k) => k !== '*')])];
}

export function registerRoutes(app: FastifyInstance): void {
  const { db, clock, deviations, settings } = app.ces;
  const own = (client: ClientRow, id: string) =>
    db.prepare('SELECT * FROM webhook_subscriptions WHERE id = ? AND client_id = ? AND deleted_at IS NULL').get(id, client.id) as SubscriptionRow | undefined;
  const notFound = (reply: FastifyReply, id: string) => reply.code(404).send({ error: 'not_found', message: `Unknown 'webhook' with 'id' ${id}.` });

  app.post<{ Body: Record<string, unknown> }>('/platform/webhooks', async (req, reply) => {
    const client = authed(app, req);
    if (!client) return forbidden(reply);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const err = subscriptionError(body, settings.insecure || deviations.has('webhooks-http-accepted'));
    if (err) return invalid(reply, err);
    const includeDeprecated = body.includeDeprecated === true;
    const id = randomUUID();
    db.prepare('INSERT INTO webhook_subscriptions (id, client_id, url, secret, events, include_deprecated, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, client.id, body.url, body.secret, JSON.stringify(expandKinds(body.events as string[], includeDeprecated)), includeDeprecated ? 1 : 0, clock.now());
    return reply.code(201).send(subscriptionView(own(client, id)!));
  });

  app.get('/platform/webhooks', async (req, reply) => {
    const client = authed(app, req);
    if (!client) return forbidden(reply);
    const rows = db.prepare('SELECT * FROM webhook_subscriptions WHERE client_id = ? AND deleted_at IS NULL ORDER BY created_at').all(client.id) as SubscriptionRow[];
    return { data: rows.map(subscriptionView) };
  });

  app.get<{ Params: { id: string } }>('/platform/webhooks/:id', async (req, reply) => {
    const client = authed(app, req);
    if (!client) return forbidden(reply);
    const s = own(client, req.params.id);
    return s ? subscriptionView(s) : notFound(reply, req.params.id);
  });

  app.delete<{ Params: { id: string } }>('/platform/webhooks/:id', async (req, reply) => {
    const client = authed(app, req);
    if (!client) return forbidden(reply);
    const s = own(client, req.params.id);
    if (!s) return notFound(reply, req.params.id);
    db.prepare('UPDATE webhook_subscriptions SET deleted_at = ? WHERE id = ?').run(clock.now(), s.id);
    return { id: s.id };
  });

  // The delivery log: every event queued for the subscription, its state and each attempt with status and timings.
  app.get<{ Params: { id: string }; Querystring: { eventId?: string; correlationId?: string; state?: string; eventType?: string } }>(
    '/platform/webhooks/:id/deliveries', async (req, reply) => {
      const client = authed(app, req);
      if (!client) return forbidden(reply);
      const s = own(client, req.params.id);
      if (!s) return notFound(reply, req.params.id);
      const q = req.query;
      const where = ['subscription_id = ?', 'client_id = ?'];
      const args: unknown[] = [s.id, client.id];
      for (const [col, v] of [['event_id', q.eventId], ['correlation_id', q.correlationId], ['state', q.state], ['event_type', q.eventType]] as const) {
        if (typeof v === 'string' && v) { where.push(`${col} = ?`); args.push(v); }
      }
      const rows = db.prepare(`SELECT * FROM webhook_deliveries WHERE ${where.join(' AND ')} ORDER BY id`).all(...args) as DeliveryRow[];
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

  // Sim action (visitor side of the desk): a visitor's details are edited, which raises visitor.updated.
  app.get<{ Querystring: { limit?: string } }>('/sim/visitors', async (req, reply) => {
    const client = authed(app, req);
    if (!client) return forbidden(reply);
    const limit = Math.min(Math.max(Number(req.query.limit ?? 20) || 20, 1), 100);
    const rows = db.prepare('SELECT id, unique_id, external_id FROM visitors WHERE client_id = ? ORDER BY id LIMIT ?').all(client.id, limit) as Array<{ id: number; unique_id: string; external_id: string | null }>;
    return { visitors: rows.map((r) => ({ id: r.id, uniqueId: r.unique_id, externalId: r.external_id })) };
  });

  const EDITABLE = ['lastname', 'firstname', 'address', 'city', 'zip', 'country', 'phone', 'email', 'browser', 'external_id'] as const;
  app.post<{ Params: { uniqueId: string }; Body: Record<string, unknown> }>('/sim/visitors/:uniqueId', async (req, reply) => {
    const client = authed(app, req);
    if (!client) return forbidden(reply);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const visitor = db.prepare('SELECT id, unique_id FROM visitors WHERE client_id = ? AND unique_id = ?').get(client.id, req.params.uniqueId) as { id: number; unique_id: string } | undefined;
    if (!visitor) return reply.code(404).send({ error: 'not_found', message: `Unknown 'visitor' with 'unique_id' ${req.params.uniqueId}.` });
    // The operator who edits from the desk; by default the client's admin login.
    let operatorId: number | undefined;
    if (body.operatorId !== undefined) {
      if (typeof body.operatorId !== 'number' || !Number.isInteger(body.operatorId)) return invalid(reply, '"operatorId" must be an integer');
      const op = db.prepare('SELECT id FROM operators WHERE id = ? AND client_id = ?').get(body.operatorId, client.id) as { id: number } | undefined;
      if (!op) return invalid(reply, `operator ${body.operatorId} does not belong to this client`);
      operatorId = op.id;
    } else {
      operatorId = (db.prepare("SELECT operator_id FROM users WHERE client_id = ? AND operator_id IS NOT NULL ORDER BY email LIKE 'admin@%' DESC, id LIMIT 1").get(client.id) as { operator_id: number } | undefined)?.operator_id;
    }
    if (operatorId === undefined) return invalid(reply, 'no operator to attribute the update to; give "operatorId"');
    const changes = EDITABLE.filter((k) => body[k] !== undefined);
    const bad = changes.filter((k) => typeof body[k] !== 'string');
    if (bad.length) return invalid(reply, `fields ${bad.join(', ')} must be strings`);
    if (changes.length) db.prepare(`UPDATE visitors SET ${changes.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`).run(...changes.map((k) => body[k]), visitor.id);
    app.ces.events.emit({ kind: 'visitor.updated', clientId: client.id, visitorId: visitor.unique_id, operatorId, at: clock.now() });
    return { uniqueId: visitor.unique_id, operatorId, updated: changes };
  });
}
