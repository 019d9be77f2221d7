// Simulation API, visitor side of the desk: list a client's visitors and edit one (raises visitor.updated). The client is the one of the API key sent along.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { clientFromRequest } from '../auth/api-key.js';

const forbidden = (reply: FastifyReply) => reply.code(403).send({ error: 'forbidden', message: 'give the API key of the client whose visitors you mean (X-API-Key)' });
const invalid = (reply: FastifyReply, message: string) => reply.code(400).send({ error: 'invalid_request', message });

export function registerSimVisitors(app: FastifyInstance): void {
  const { db, clock } = app.ces;
  // Sim action (visitor side of the desk): a visitor's details are edited, which raises visitor.updated.
  app.get<{ Querystring: { limit?: string } }>('/visitors', async (req, reply) => {
    const client = clientFromRequest(app.ces.apiKeys, req);
    if (!client) return forbidden(reply);
    const limit = Math.min(Math.max(Number(req.query.limit ?? 20) || 20, 1), 100);
    const rows = db.prepare('SELECT id, unique_id, external_id FROM visitors WHERE client_id = ? ORDER BY id LIMIT ?').all(client.id, limit) as Array<{ id: number; unique_id: string; external_id: string | null }>;
    return { visitors: rows.map((r) => ({ id: r.id, uniqueId: r.unique_id, externalId: r.external_id })) };
  });

  const EDITABLE = ['lastname', 'firstname', 'address', 'city', 'zip', 'country', 'phone', 'email', 'browser', 'external_id'] as const;
  app.post<{ Params: { uniqueId: string }; Body: Record<string, unknown> }>('/visitors/:uniqueId', async (req, reply) => {
    const client = clientFromRequest(app.ces.apiKeys, req);
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
