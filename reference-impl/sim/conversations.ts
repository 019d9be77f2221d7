// Simulation API, conversations (DESIGN.md, contract): visitors and operators drive conversations; transcripts, failures and exchanges are read back.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { list } from '../store/db.js';
import { RuntimeError } from '../bots/runtime.js';
import { CHANNELS } from '../channels.js';
import { availableOperatorsOfRule, type DistributionRule } from '../bots/setup.js';

const bad = (reply: FastifyReply, message: string) => reply.code(400).send({ error: 'invalid_request', message });

export function registerSimConversations(app: FastifyInstance): void {
  const { db } = app.ces;
  const { runtime, poller, exchanges } = app.ces.bots;
  const find = (id: string) => (/^\d+$/.test(id) ? runtime.conv(Number(id)) : runtime.convByUuid(id));
  const fail = (reply: FastifyReply, e: unknown) => {
    if (e instanceof RuntimeError) return reply.code(e.status).send({ error: e.code, message: e.message });
    throw e;
  };

  app.post<{ Body: { channel?: unknown; text?: unknown; visitorId?: unknown; websiteId?: unknown } }>('/conversations', async (req, reply) => {
    const { channel, text, visitorId, websiteId } = req.body ?? {};
    if (typeof channel !== 'string' || !CHANNELS.includes(channel)) return bad(reply, `channel must be one of ${CHANNELS.join(', ')}`);
    if (typeof text !== 'string' || !text) return bad(reply, 'text must be a non-empty string');
    if (visitorId !== undefined && typeof visitorId !== 'string') return bad(reply, 'visitorId must be a string');
    const website = (websiteId === undefined
      ? db.prepare('SELECT id, client_id FROM websites ORDER BY client_id, id LIMIT 1').get()
      : db.prepare('SELECT id, client_id FROM websites WHERE id = ?').get(Number(websiteId))) as { id: number; client_id: number } | undefined;
    if (!website) return bad(reply, `unknown websiteId ${String(websiteId)}`);
    const conv = db.transaction(() => runtime.start({ clientId: website.client_id, websiteId: website.id, channel, text, visitorId: visitorId as string | undefined }))();
    return reply.code(201).send({ conversationId: conv.uuid });
  });

  app.get<{ Querystring: { state?: string } }>('/conversations', async (req) => {
    const rows = db.prepare(`SELECT c.uuid, c.channel, c.operator_id, c.closed_at, c.created_at, s.phase FROM conversations c
      JOIN conversation_state s ON s.conversation_id = c.id ORDER BY c.id DESC LIMIT 500`).all() as any[];
    return {
      conversations: rows.map((r) => ({ conversationId: r.uuid, channel: r.channel, state: r.closed_at ? 'closed' : 'started', phase: r.phase, operatorId: r.operator_id, createdAt: new Date(r.created_at).toISOString() }))
        .filter((c) => !req.query.state || c.state === req.query.state),
    };
  });

  app.get<{ Params: { id: string } }>('/conversations/:id', async (req, reply) => {
    const c = find(req.params.id);
    if (!c) return reply.code(404).send({ error: 'not_found', message: `no conversation ${req.params.id}` });
    return runtime.view(c.id);
  });

  app.get<{ Params: { id: string } }>('/conversations/:id/exchanges', async (req, reply) => {
    const c = find(req.params.id);
    if (!c) return reply.code(404).send({ error: 'not_found', message: `no conversation ${req.params.id}` });
    return { exchanges: exchanges.ofConversation(c.id) };
  });

  app.post<{ Params: { id: string }; Body: { text?: unknown } }>('/conversations/:id/visitor-messages', async (req, reply) => {
    const c = find(req.params.id);
    if (!c) return reply.code(404).send({ error: 'not_found', message: `no conversation ${req.params.id}` });
    if (typeof req.body?.text !== 'string' || !req.body.text) return bad(reply, 'text must be a non-empty string');
    try { await runtime.visitorMessage(c.id, req.body.text); } catch (e) { return fail(reply, e); }
    return reply.code(201).send({ conversationId: c.uuid });
  });

  app.post<{ Params: { id: string }; Body: { operatorId?: unknown; text?: unknown } }>('/conversations/:id/operator-messages', async (req, reply) => {
    const c = find(req.params.id);
    if (!c) return reply.code(404).send({ error: 'not_found', message: `no conversation ${req.params.id}` });
    const { operatorId, text } = req.body ?? {};
    if (!Number.isInteger(operatorId)) return bad(reply, 'operatorId must be an integer');
    if (typeof text !== 'string' || !text) return bad(reply, 'text must be a non-empty string');
    try { db.transaction(() => runtime.operatorMessage(c.id, operatorId as number, text))(); } catch (e) { return fail(reply, e); }
    return reply.code(201).send({ conversationId: c.uuid });
  });

  app.post<{ Params: { id: string } }>('/conversations/:id/close', async (req, reply) => {
    const c = find(req.params.id);
    if (!c) return reply.code(404).send({ error: 'not_found', message: `no conversation ${req.params.id}` });
    try { db.transaction(() => runtime.close(c.id, 'operator'))(); } catch (e) { return fail(reply, e); }
    return runtime.view(c.id);
  });

  app.post<{ Params: { id: string }; Body: { operatorId?: unknown } }>('/conversations/:id/transfer', async (req, reply) => {
    const c = find(req.params.id);
    if (!c) return reply.code(404).send({ error: 'not_found', message: `no conversation ${req.params.id}` });
    if (!Number.isInteger(req.body?.operatorId)) return bad(reply, 'operatorId must be an integer');
    try { db.transaction(() => runtime.transfer(c.id, req.body!.operatorId as number))(); } catch (e) { return fail(reply, e); }
    return runtime.view(c.id);
  });

  // The bots the service runs, with their polled availability and rules (what checks need to pick a bot and a rule).
  app.get('/bots', async () => {
    const bots = db.prepare(`SELECT b.*, i.website_id, o.language_list, o.pseudo FROM bot_operators b JOIN connector_installs i ON i.id = b.install_id
      JOIN operators o ON o.id = b.operator_id ORDER BY b.operator_id`).all() as any[];
    return {
      bots: bots.map((b) => ({
        operatorId: b.operator_id, clientId: b.client_id, websiteId: b.website_id, idBot: b.id_bot, status: b.status, setupError: b.last_error,
        languages: list<string>(b.language_list), pseudo: b.pseudo, ...poller.describe(b.operator_id),
        routingRules: (db.prepare('SELECT id, website_id, channels, operator_ids FROM routing_rules WHERE client_id = ?').all(b.client_id) as any[])
          .filter((r) => list<number>(r.operator_ids).includes(b.operator_id)).map((r) => ({ id: r.id, websiteId: r.website_id, channels: list<string>(r.channels) })),
        distributionRules: list<string>(b.distribution_rule_ids).map((id) => db.prepare('SELECT * FROM distribution_rules WHERE id = ?').get(id) as DistributionRule | undefined)
          .filter((r): r is DistributionRule => !!r)
          .map((r) => ({ id: r.id, label: r.label, queueSlots: r.queue_slots, asynchronous: r.queue_slots > 0, operatorIds: list<number>(r.operator_ids), availableOperatorIds: availableOperatorsOfRule(app.ces, r) })),
      })),
    };
  });
}
