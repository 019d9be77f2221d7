// Simulation API, what happens around conversations: call meetings booked and moved through G18's states, satisfaction answers given (G33).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CALL_MEETING_STATES, moveCallMeeting, type CallMeetingState } from '../rest/activity/callmeeting-states.js';

const bad = (reply: FastifyReply, message: string) => reply.code(400).send({ error: 'invalid_request', message });
const isNote = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 100;

export function registerSimActivity(app: FastifyInstance): void {
  const { db, clock, events } = app.ces;
  const { runtime } = app.ces.bots;

  // A visitor books a call meeting on a website (default: the first one); it starts pending.
  app.post<{ Body: { websiteId?: unknown; phoneNumber?: unknown; visitorId?: unknown } }>('/callmeetings', async (req, reply) => {
    const { websiteId, phoneNumber = '+33 1 23 45 67 89', visitorId = 'sim-visitor' } = req.body ?? {};
    if (typeof phoneNumber !== 'string' || !phoneNumber) return bad(reply, 'phoneNumber must be a non-empty string');
    if (typeof visitorId !== 'string' || !visitorId) return bad(reply, 'visitorId must be a non-empty string');
    const website = (websiteId === undefined
      ? db.prepare('SELECT id, client_id FROM websites ORDER BY client_id, id LIMIT 1').get()
      : db.prepare('SELECT id, client_id FROM websites WHERE id = ?').get(Number(websiteId))) as { id: number; client_id: number } | undefined;
    if (!website) return bad(reply, `unknown websiteId ${String(websiteId)}`);
    const id = Number(db.prepare(`INSERT INTO callmeetings (client_id, phone_number, visitor_uid, status, start_at, website_id, targeting_rule_id, skill_id)
      VALUES (?, ?, ?, 'pending', ?, ?, '', '')`).run(website.client_id, phoneNumber, visitorId, clock.now() + 3_600_000, website.id).lastInsertRowid);
    return reply.code(201).send({ id, status: 'pending', _link: `/callmeeting/${id}` });
  });

  // The call meeting moves to another state (G18); a move G18 does not allow is refused with 409 and changes nothing.
  app.post<{ Params: { id: string }; Body: { status?: unknown } }>('/callmeetings/:id/status', async (req, reply) => {
    const status = req.body?.status;
    if (!/^\d{1,15}$/.test(req.params.id)) return bad(reply, 'the call meeting id is an integer');
    if (typeof status !== 'string' || !(CALL_MEETING_STATES as readonly string[]).includes(status)) return bad(reply, `status must be one of ${CALL_MEETING_STATES.join(', ')}`);
    const refused = moveCallMeeting(app.ces, Number(req.params.id), status as CallMeetingState);
    if (refused) return reply.code(refused.status).send({ error: refused.error, message: refused.message });
    return { id: Number(req.params.id), status, _link: `/callmeeting/${req.params.id}` };
  });

  // The visitor answers the satisfaction survey of a conversation an operator answered: stored as a satisfaction (REST /satisfaction,
  // GraphQL satisfactionSurvey), and raised as a domain event (the deprecated satisfaction.filled for subscribers that opted in, G33).
  app.post<{ Params: { id: string }; Body: { noteWelcome?: unknown; noteResolution?: unknown; nodeDelay?: unknown; comment?: unknown } }>('/conversations/:id/satisfaction', async (req, reply) => {
    const c = /^\d+$/.test(req.params.id) ? runtime.conv(Number(req.params.id)) : runtime.convByUuid(req.params.id);
    if (!c) return reply.code(404).send({ error: 'not_found', message: `no conversation ${req.params.id}` });
    const { noteWelcome, noteResolution, nodeDelay, comment = '' } = req.body ?? {};
    if (!isNote(noteWelcome) || !isNote(noteResolution) || !isNote(nodeDelay)) return bad(reply, 'noteWelcome, noteResolution and nodeDelay must be numbers from 0 to 100 (percentages)');
    if (typeof comment !== 'string') return bad(reply, 'comment must be a string');
    if (c.operator_id === null) return reply.code(409).send({ error: 'not_answered', message: 'no operator answered this conversation: there is nobody to rate' });
    const now = clock.now();
    const id = Number(db.prepare(`INSERT INTO satisfactions (client_id, note_welcome, note_resolution, node_delay, comment, created_at, website_id, operator_id, conversation_id)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(c.client_id, noteWelcome, noteResolution, nodeDelay, comment, now, c.website_id, c.operator_id, c.id).lastInsertRowid);
    events.emit({ kind: 'satisfaction.answered', clientId: c.client_id, satisfactionId: id, at: now });
    return reply.code(201).send({ id, conversationId: c.uuid, _link: `/satisfaction/${id}` });
  });
}
