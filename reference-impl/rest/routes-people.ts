// REST routes for client, website, operator (CRUD, live, statistic, profile), group, skill and visitor.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { success, badRequest } from './envelope.js';
import { parseList, listAnswer, F, intValue, kindsOf, typed, type FilterFn, type Row } from './list.js';
import { changesCounter } from '../store/db.js';
import type { BusinessRule, OpenApiRoute } from './openapi.js';
import { nextOperatorId } from './people/operator-ids.js';
import * as R from './people/resources.js';
import { clientRow, clientRows } from './people/tenant.js';
import { operatorWrite, bodyObject, CREATE_REQUIRED } from './people/operator-write.js';
import { liveResource, liveRow, liveRowsOf, slotsOf, isAvailable, parseLiveBody, applyLive } from './people/live.js';

/** Route metadata for the OpenAPI document (format: see openapi.ts). */
const doc = (openapi: OpenApiRoute) => ({ config: { openapi } });

/** Rules of an operator body that depend on stored data (operator-write.ts): documented with the 400 they answer. */
const OPERATOR_WRITE_RULES: readonly BusinessRule[] = [
  { name: 'email-taken', summary: "'email' is not used by another operator of the key's client", message: "'email' is already used by operator 3." },
  { name: 'unknown-ids', summary: "website_list, skill_list and group_id name the key's client's own websites, skills and group", message: "'website_list' names unknown website id(s) 99." },
];

/** Filters of GET /operator, also accepted by GET /operator/live. */
const OPERATOR_FILTERS: Record<string, FilterFn> = {
  id: F.int('id'),
  group_id: F.int('group_id'),
  website_id: F.listHas('website_list', 'website_id'),
  website_list: F.listAny('website_list'),
  skill_id: F.listHas('skill_list', 'skill_id'),
  name: F.text('name'),
  external_id: F.text('external_id'),
};
/** Their kinds, as parseList reads them (built once: the live view is the hottest read). */
const OPERATOR_FILTER_KINDS = kindsOf(OPERATOR_FILTERS);
const GROUP_FILTERS: Record<string, FilterFn> = { parent_id: F.int('parent_id') };
const SKILL_FILTERS: Record<string, FilterFn> = {
  // A skill matches operator_id when that operator (of the same client) has it.
  operator_id: typed({ kind: 'id' }, (row, v) => {
    const id = intValue('operator_id', v);
    if (row._operatorSkills === undefined) return true;
    return (row._operatorSkills as Map<number, number[]>).get(id)?.includes(row.id) === true;
  }),
  parent_id: F.int('parent_id'),
};
const VISITOR_FILTERS: Record<string, FilterFn> = { unique_id: F.text('unique_id'), external_id: F.text('external_id'), website_id: F.listHas('website_id') };

export default function peopleRoutes(app: FastifyInstance): void {
  const ces = app.ces;
  /** G12: operator bodies as forms too (rest.policy operatorFormBodiesAccepted). */
  const formBodiesAccepted = () => ces.policy.rest.operatorFormBodiesAccepted;
  const event = (kind: 'user.created' | 'user.updated' | 'user.connected' | 'user.disconnected', req: FastifyRequest, userId: number) =>
    ces.events.emit({ kind, clientId: req.client.id, userId, at: ces.clock.now() });

  /**
   * GET /operator/live is the hottest read (desks and dashboards poll it). While nothing at all was written through this stack's one
   * connection (SQLite's total_changes(); switching deviations writes too, sim/control.ts) and the policies are the same object
   * (deviations switched in-process replace it), the client's operators with their live resources are kept, and so is each answer
   * already given, as text, by the request's URL (path and query: the same URL over the same data under the same policies is the
   * same answer). Any write reads them again. A request then costs the key check, one counter read and a lookup, not the reads, the
   * filtering and the serialisation (measured with `ces bench --only rest --cpu-prof`: JSON.stringify of the page was the largest
   * cost of the route). The kept rows are never modified (the route builds new objects).
   */
  const changes = changesCounter(ces.db);
  const liveViews = new Map<string, { changes: number; policy: unknown; rows: Row[]; answers: Map<string, string> }>();
  const liveView = (req: FastifyRequest) => {
    const now = changes();
    const key = String(req.client.id);
    const kept = liveViews.get(key);
    if (kept && kept.changes === now && kept.policy === ces.policy) return kept;
    const ops = clientRows(req, 'operator');
    const live = liveRowsOf(ces, ops.map((op) => op.id as number));
    const slots = slotsOf(ces, req.client.id);
    // Each row carries its live resource, built once per change: the route only filters, pages and serialises.
    const rows = ops.map((op) => { const l = live.get(op.id) ?? null; return { ...op, _live: l, _resource: liveResource(op, l, slots.get(op.id)) }; });
    if (liveViews.size >= 64) liveViews.clear();
    const view = { changes: now, policy: ces.policy, rows, answers: new Map<string, string>() };
    liveViews.set(key, view);
    return view;
  };

  // --- client, website (deprecated) ---
  app.get('/client', doc({ summary: 'List the clients the key may see (its own client only)', list: true, filters: {}, response: 'rest/client.json', deprecated: true }), async (req) => {
    const q = parseList(req, {});
    return listAnswer(clientRows(req, 'client'), q, {}, (r, full) => R.client(r, full));
  });
  app.get('/client/:id', doc({ summary: 'Get a client', response: 'rest/client.json', deprecated: true }), async (req) => success(R.client(clientRow(req, 'client'))));
  app.get('/website', doc({ summary: "List the key's client's websites", list: true, filters: {}, response: 'rest/website.json', deprecated: true }), async (req) => {
    const q = parseList(req, {});
    return listAnswer(clientRows(req, 'website'), q, {}, (r, full) => R.website(r, full));
  });
  app.get('/website/:id', doc({ summary: 'Get a website', response: 'rest/website.json', deprecated: true }), async (req) => success(R.website(clientRow(req, 'website'))));

  // --- operator ---
  app.get('/operator', doc({ summary: 'List operators', list: true, filters: OPERATOR_FILTER_KINDS, response: 'rest/operator.json' }), async (req) => {
    const q = parseList(req, OPERATOR_FILTER_KINDS);
    return listAnswer(clientRows(req, 'operator'), q, OPERATOR_FILTERS, (r, full) => R.operator(ces, r, full));
  });
  app.post('/operator', doc({ summary: 'Create an operator', body: 'rest/operator-write.json', bodyRequired: CREATE_REQUIRED, response: 'rest/operator.json', rules: OPERATOR_WRITE_RULES }), async (req, reply) => {
    const cols = operatorWrite(req, 'create', undefined, formBodiesAccepted());
    const now = ces.clock.now();
    const id = ces.db.transaction(() => {
      const id = nextOperatorId(ces.db);
      const row: Row = { id, ...cols, client_id: req.client.id, type: 'human', created_at: now, updated_at: now };
      const keys = Object.keys(row);
      ces.db.prepare(`INSERT INTO operators (${keys.map((k) => `"${k}"`).join(',')}) VALUES (${keys.map(() => '?').join(',')})`).run(...keys.map((k) => row[k]));
      return id;
    })();
    event('user.created', req, id);
    return reply.code(ces.policy.rest.createdStatus).send(success(R.operator(ces, clientRow(req, 'operator', id))));
  });
  app.get('/operator/live', doc({ summary: 'Live availability of the operators (default: available ones only; connected=0: every operator that logged in at least once)', list: true, filters: OPERATOR_FILTER_KINDS, params: ['connected'], values: { connected: ['0'] }, response: 'rest/operator-live.json' }), async (req, reply) => {
    const view = liveView(req);
    let text = view.answers.get(req.url);
    if (text === undefined) {
      const q = parseList(req, OPERATOR_FILTER_KINDS, ['connected']);
      const connected = (req.query as Record<string, unknown>).connected;
      if (connected !== undefined && connected !== '0') throw badRequest(`'connected' accepts only 0 (got ${JSON.stringify(connected)}).`);
      // The default view lists the operators available on some channel; connected=0 also those offline that logged in once.
      const wanted = view.rows.filter((r) => (connected === '0' ? r._live !== null : isAvailable(r._resource)));
      text = JSON.stringify(listAnswer(wanted, q, OPERATOR_FILTERS, (r) => r._resource));
      // Only answers are kept (a refusal throws above); a client polling many distinct URLs keeps at most 64 of them per change.
      if (view.answers.size < 64) view.answers.set(req.url, text);
    }
    return reply.type('application/json; charset=utf-8').send(text);
  });
  app.get('/operator/:id', doc({ summary: 'Get an operator', response: 'rest/operator.json' }), async (req) => success(R.operator(ces, clientRow(req, 'operator'))));
  app.put('/operator/:id', doc({ summary: 'Update an operator (any subset of the fields)', body: 'rest/operator-write.json', response: 'rest/operator.json', rules: OPERATOR_WRITE_RULES }), async (req) => {
    const current = clientRow(req, 'operator');
    const cols = operatorWrite(req, 'update', current, formBodiesAccepted());
    const set = { ...cols, updated_at: ces.clock.now() };
    ces.db.prepare(`UPDATE operators SET ${Object.keys(set).map((k) => `"${k}" = ?`).join(', ')} WHERE id = ? AND client_id = ?`)
      .run(...Object.values(set), current.id, req.client.id);
    event('user.updated', req, current.id);
    return success(R.operator(ces, clientRow(req, 'operator', current.id)));
  });
  app.delete('/operator/:id', doc({ summary: 'Delete an operator', response: 'rest/deleted.json' }), async (req) => {
    const current = clientRow(req, 'operator');
    ces.db.transaction(() => {
      ces.db.prepare('DELETE FROM operator_live WHERE operator_id = ?').run(current.id);
      ces.db.prepare('DELETE FROM operator_profiles WHERE user_id = ?').run(current.id);
      ces.db.prepare('DELETE FROM operators WHERE id = ? AND client_id = ?').run(current.id, req.client.id);
    })();
    return success({ id: current.id });
  });
  app.get('/operator/:id/live', doc({ summary: 'Live availability of one operator', response: 'rest/operator-live.json' }), async (req) => {
    const op = clientRow(req, 'operator');
    return success(liveResource(op, liveRow(ces, op.id), slotsOf(ces, req.client.id, op.id).get(op.id)));
  });
  app.put('/operator/:id/live', doc({ summary: 'Set the live availability of one operator per channel, or disconnect it (connected=0 alone)', body: 'rest/operator-live-write.json', response: 'rest/operator-live.json',
    rules: [{ name: 'channel-not-enabled', summary: 'a channel made available is enabled on the operator (<channel>_enabled true)', message: 'The call channel is not enabled for operator 12 (call_enabled is false).' }] }), async (req) => {
    const op = clientRow(req, 'operator');
    const change = parseLiveBody(bodyObject(req), ces.policy.rest.liveConnectAccepted);
    const result = ces.db.transaction(() => applyLive(req, op, change))();
    if (result.connectedBefore !== result.connectedAfter) event(result.connectedAfter ? 'user.connected' : 'user.disconnected', req, op.id);
    return success(liveResource(op, liveRow(ces, op.id), slotsOf(ces, req.client.id, op.id).get(op.id)), { message: result.message });
  });
  app.get('/operator/:id/statistic', doc({ summary: 'Statistic of one operator', response: 'rest/operator-statistic.json' }), async (req) => success(R.operatorStatistic(ces, clientRow(req, 'operator'))));
  app.get('/operator/:id/profile', doc({ summary: 'Profile of one operator', response: 'rest/operator-profile.json' }), async (req) => success(R.operatorProfile(ces, clientRow(req, 'operator'))));

  // --- group, skill, visitor ---
  app.get('/group', doc({ summary: 'List groups', list: true, filters: kindsOf(GROUP_FILTERS), response: 'rest/group.json' }), async (req) => {
    const q = parseList(req, kindsOf(GROUP_FILTERS));
    return listAnswer(clientRows(req, 'group'), q, GROUP_FILTERS, (r, full) => R.group(ces, r, full));
  });
  app.get('/group/:id', doc({ summary: 'Get a group', response: 'rest/group.json' }), async (req) => success(R.group(ces, clientRow(req, 'group'))));
  app.get('/skill', doc({ summary: 'List skills', list: true, filters: kindsOf(SKILL_FILTERS), response: 'rest/skill.json' }), async (req) => {
    const q = parseList(req, kindsOf(SKILL_FILTERS));
    // operator_id is resolved against the key's client's operators only: another client's operator has no skills here.
    const skillsOf = new Map(clientRows(req, 'operator').map((o) => [o.id as number, JSON.parse(o.skill_list) as number[]]));
    const rows = clientRows(req, 'skill').map((s) => ({ ...s, _operatorSkills: skillsOf }));
    return listAnswer(rows, q, SKILL_FILTERS, (r, full) => R.skill(ces, r, full));
  });
  app.get('/skill/:id', doc({ summary: 'Get a skill', response: 'rest/skill.json' }), async (req) => success(R.skill(ces, clientRow(req, 'skill'))));
  app.get('/visitor', doc({ summary: 'List visitors', list: true, filters: kindsOf(VISITOR_FILTERS), response: 'rest/visitor.json' }), async (req) => {
    const q = parseList(req, kindsOf(VISITOR_FILTERS));
    return listAnswer(clientRows(req, 'visitor'), q, VISITOR_FILTERS, (r, full) => R.visitor(r, full));
  });
  app.get('/visitor/:id', doc({ summary: 'Get a visitor', response: 'rest/visitor.json' }), async (req) => success(R.visitor(clientRow(req, 'visitor'))));
}

