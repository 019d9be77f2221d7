// GET /statistic (G14): filters, channel groups, resource grouping, granularity; every value computed from stored data by indicators.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { list as jsonList } from '../../store/db.js';
import { badRequest, restDate, success, unknownId } from '../envelope.js';
import { integerOf, shown } from '../request.js';
import { parseList, type Row } from '../list.js';
import { meta } from './common.js';
import { rows as storeRows } from '../../store/read.js';
import { conversationWindow } from './period.js';
import { INDICATORS, INDICATOR_NAMES, REMOVED_INDICATORS, STATISTIC_CHANNELS, type Conv, type Period, type Scope } from './indicators.js';

export const STATISTIC_FILTERS = ['website_list', 'website_id', 'channel', 'resource', 'resource_id', 'indicators', 'from', 'to', 'granularity'];
export const STATISTIC_RESOURCES = ['operator', 'group', 'skill', 'rule', 'contact_type', 'page_type'] as const;
export const GRANULARITIES = ['hour', 'day', 'month'] as const;
type ResourceType = (typeof STATISTIC_RESOURCES)[number];
type Granularity = (typeof GRANULARITIES)[number];

const oneOf = <T extends string>(name: string, v: string, allowed: readonly T[]): T => {
  if (!(allowed as readonly string[]).includes(v)) throw badRequest(`filters[${name}] must be one of ${allowed.join(', ')} (got ${JSON.stringify(v)}).`);
  return v as T;
};

/** The indicator names asked for, validated: removed → fail saying it is no longer served; unknown → fail naming it; outside the channel's group → fail. */
function indicatorNames(app: FastifyInstance, raw: string | undefined, channel: string | undefined): string[] {
  const names = raw === undefined ? INDICATOR_NAMES : raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (!names.length) throw badRequest('filters[indicators] must name at least one indicator.');
  const policy = app.ces.deviations.policy.rest;
  const removed = names.find((n) => (REMOVED_INDICATORS as readonly string[]).includes(n));
  if (removed) throw badRequest(`Indicator '${removed}' is no longer served by the REST API (removed satisfaction indicators: ${REMOVED_INDICATORS.join(', ')}).`);
  const unknown = names.find((n) => !INDICATORS[n]);
  if (unknown && policy.unknownIndicatorsRefused) throw badRequest(`Unknown indicator '${unknown}'. Accepted indicators: ${INDICATOR_NAMES.join(', ')}.`);
  for (const n of names.filter((x) => INDICATORS[x])) {
    const group = INDICATORS[n]!.group;
    const channels = policy.channelGroups[group] ?? [];
    if (channel && !channels.includes(channel)) throw badRequest(`Indicator '${n}' is not available for channel '${channel}' (its channels, ${group}: ${channels.join(', ')}).`);
  }
  // Only known indicators are computed.
  return names.filter((n) => INDICATORS[n]);
}

function toConv(row: Row): Conv {
  const entries = jsonList<unknown[]>(row.history).map((e) => ({ code: e[0] as number, at: typeof e[3] === 'number' ? e[3] : Date.parse(String(e[1]).replace(' ', 'T') + 'Z') }));
  return { row, entries };
}

const clip = (ps: Period[], from: number, to: number): Period[] =>
  ps.filter((p) => p.end > from && p.start <= to).map((p) => ({ ...p, start: Math.max(p.start, from), end: Math.min(p.end, to + 1) }));

interface Base extends Scope { operators: Row[] }

/** The request's data: the client's rows in the period, on the websites and channel asked for. */
function baseScope(app: FastifyInstance, req: FastifyRequest, f: Record<string, string>, from: number, to: number): Base {
  const db = app.ces.db;
  const clientId = req.client.id;
  const policy = app.ces.deviations.policy.rest;
  const websitesRaw = f.website_list ?? f.website_id;
  let websites: number[] | undefined;
  if (websitesRaw !== undefined) {
    const name = f.website_list !== undefined ? 'website_list' : 'website_id';
    const parts = websitesRaw.split(',').map((s) => s.trim());
    if (!parts.length || parts.some((p) => integerOf(p) === null)) throw badRequest(`filters[${name}] must be a comma list of website ids (got ${shown(websitesRaw)}).`);
    websites = parts.map(Number);
    const own = new Set(storeRows(app.ces, 'statistic websites', { table: 'websites', columns: 'id', where: { client_id: clientId } }).map((r) => r.id));
    const foreign = websites.find((w) => !own.has(w));
    if (foreign !== undefined) throw unknownId('website', foreign);
  }
  const onWebsite = (w: number) => !websites || websites.includes(w);
  const channel = f.channel;
  const all = (db.prepare('SELECT * FROM conversations WHERE client_id = ?').all(clientId) as Row[]).map(toConv);
  const convById = new Map(all.map((c) => [c.row.id as number, c]));
  const convs = all.filter((c) => c.row.created_at >= from && c.row.created_at <= to && onWebsite(c.row.website_id) && (!channel || c.row.channel === channel));
  // With a channel, a transaction counts through its conversation's channel; unlinked ones belong to no channel.
  const transactions = (db.prepare('SELECT * FROM transactions WHERE client_id = ? AND created_at BETWEEN ? AND ?').all(clientId, from, to) as Row[])
    .filter((t) => onWebsite(t.website_id) && (!channel || (t.conversation_id !== null && convById.get(t.conversation_id)?.row.channel === channel)));
  const displays = (db.prepare('SELECT * FROM rule_displays WHERE client_id = ? AND at BETWEEN ? AND ?').all(clientId, from, to) as Row[])
    .filter((d) => onWebsite(d.website_id) && (!channel || d.channel === channel));
  const operators = (db.prepare('SELECT * FROM operators WHERE client_id = ? ORDER BY id').all(clientId) as Row[])
    .filter((o) => !websites || jsonList<number>(o.website_list).some(onWebsite));
  const opIds = new Set(operators.map((o) => o.id as number));
  const presence = clip((db.prepare('SELECT * FROM operator_presence WHERE client_id = ?').all(clientId) as Array<Row & Period>)
    .map((p) => ({ start: p.start_at, end: p.end_at, state: p.state, operator_id: p.operator_id }))
    .filter((p) => opIds.has(p.operator_id)), from, to);
  return { from, to, convs, transactions, displays, presence, availability: presence, convById, operators, nonProductionBase: [...policy.nonProductionBase] };
}

/** The part of the base scope that belongs to one resource. */
function resourceScope(base: Base, pick: { convs?: (c: Conv) => boolean; operators?: (o: Row) => boolean; displays?: (d: Row) => boolean; trxByOperator?: boolean }): Scope {
  const convs = pick.convs ? base.convs.filter(pick.convs) : [];
  const ops = new Set(pick.operators ? base.operators.filter(pick.operators).map((o) => o.id as number) : []);
  const convIds = new Set(convs.map((c) => c.row.id as number));
  const transactions = base.transactions.filter((t) => (pick.trxByOperator ? ops.has(t.operator_id) : convIds.has(t.conversation_id)));
  return {
    ...base, convs, transactions,
    displays: pick.displays ? base.displays.filter(pick.displays) : [],
    presence: base.presence.filter((p) => ops.has(p.operator_id)),
  };
}

interface ResourceRow { type: ResourceType; id: number | string; scope: Scope }

function resourceRows(app: FastifyInstance, req: FastifyRequest, base: Base, type: ResourceType, wantId: string | undefined): ResourceRow[] {
  const db = app.ces.db;
  const ids = (sql: string) => (db.prepare(sql).all(req.client.id) as Row[]).map((r) => r.id as number | string);
  let rows: ResourceRow[];
  switch (type) {
    case 'operator':
      rows = base.operators.map((o) => ({ type, id: o.id, scope: resourceScope(base, { convs: (c) => c.row.operator_id === o.id, operators: (x) => x.id === o.id, trxByOperator: true }) }));
      break;
    case 'group':
      rows = ids('SELECT id FROM groups WHERE client_id = ? ORDER BY id').map((g) => ({ type, id: g, scope: resourceScope(base, {
        convs: (c) => base.operators.some((o) => o.id === c.row.operator_id && o.group_id === g), operators: (o) => o.group_id === g, trxByOperator: true }) }));
      break;
    case 'skill':
      rows = ids('SELECT id FROM skills WHERE client_id = ? ORDER BY id').map((s) => ({ type, id: s, scope: resourceScope(base, {
        convs: (c) => c.row.skill_id === s, operators: (o) => jsonList<number>(o.skill_list).includes(s as number) }) }));
      break;
    case 'rule':
      rows = ids('SELECT id FROM rules WHERE client_id = ? ORDER BY id').map((r) => ({ type, id: r, scope: resourceScope(base, {
        convs: (c) => c.row.rule_id === r, displays: (d) => d.rule_id === r }) }));
      break;
    case 'contact_type':
    case 'page_type':
      rows = ids(`SELECT DISTINCT ${type} AS id FROM conversations WHERE client_id = ? ORDER BY ${type}`).map((v) => ({ type, id: v, scope: resourceScope(base, {
        convs: (c) => c.row[type] === v }) }));
      break;
  }
  if (wantId === undefined) return rows;
  const numeric = !['contact_type', 'page_type'].includes(type);
  if (numeric && integerOf(wantId) === null) throw badRequest(`filters[resource_id] must be an integer from 0 to ${Number.MAX_SAFE_INTEGER} for resource '${type}' (got ${shown(wantId)}).`);
  const one = rows.filter((r) => String(r.id) === wantId);
  if (!one.length) throw unknownId(type, numeric ? Number(wantId) : wantId);
  return one;
}

/** Start of the bucket containing ms (UTC). */
function bucketStart(ms: number, g: Granularity): number {
  const d = new Date(ms);
  if (g === 'hour') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours());
  if (g === 'day') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}
function nextBucket(ms: number, g: Granularity): number {
  const d = new Date(ms);
  if (g === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return ms + (g === 'hour' ? 3_600_000 : 86_400_000);
}

/** The scope restricted to [start, end): conversations, transactions and displays by date, presence clipped. */
function bucketScope(s: Scope, start: number, end: number): Scope {
  const from = Math.max(start, s.from); const to = Math.min(end - 1, s.to);
  const inB = (ms: number) => ms >= from && ms <= to;
  return {
    ...s, from, to,
    convs: s.convs.filter((c) => inB(c.row.created_at)),
    transactions: s.transactions.filter((t) => inB(t.created_at)),
    displays: s.displays.filter((d) => inB(d.at)),
    presence: clip(s.presence, from, to),
  };
}

function value(name: string, s: Scope): number {
  return INDICATORS[name]!.compute(s);
}

export function registerStatistic(app: FastifyInstance): void {
  app.get('/statistic', meta({
    summary: 'Statistic indicators computed over the period, grouped by resource or by date (granularity)',
    list: true, filters: STATISTIC_FILTERS, deprecatedFilters: ['website_id'], response: 'rest/statistic.json', unknownIds: true,
    values: { channel: STATISTIC_CHANNELS, resource: STATISTIC_RESOURCES, granularity: GRANULARITIES },
  }), async (req) => {
    const q = parseList(req, STATISTIC_FILTERS);
    const f = q.filters;
    const channel = f.channel === undefined ? undefined : oneOf('channel', f.channel, STATISTIC_CHANNELS);
    const resource = f.resource === undefined ? undefined : oneOf('resource', f.resource, STATISTIC_RESOURCES);
    if (f.resource_id !== undefined && !resource) throw badRequest('filters[resource_id] needs filters[resource].');
    const granularity = f.granularity === undefined ? undefined : oneOf('granularity', f.granularity, GRANULARITIES);
    const policy = app.ces.deviations.policy.rest;
    const names = indicatorNames(app, f.indicators, channel);
    if (granularity && names.length > policy.granularityIndicatorsMax) throw badRequest(`filters[granularity] needs exactly one indicator in filters[indicators] (got ${names.length}).`);
    if (granularity && resource && f.resource_id === undefined) throw badRequest('filters[granularity] with filters[resource] needs filters[resource_id] (one resource).');
    // Same period rules as the conversation listing, without the 3-month maximum (the spec sets none for statistics).
    const win = conversationWindow(f, { now: app.ces.clock.now(), windows: policy.periodWindows, dateOnlyToCoversMs: policy.dateOnlyToCoversMs, dateTimeToCoversMs: policy.dateTimeToCoversMs });
    const base = baseScope(app, req, f, win.from, win.to);
    const groups: Array<{ resource: { type: string; id: number | string } | null; scope: Scope }> = resource
      ? resourceRows(app, req, base, resource, f.resource_id).map((r) => ({ resource: { type: r.type, id: r.id }, scope: r.scope }))
      : [{ resource: null, scope: base }];

    const start = (q.page - 1) * q.limit;
    let rows: Row[];
    let count: number;
    if (granularity) {
      const scope = groups[0]!.scope;
      const buckets: number[] = [];
      for (let b = bucketStart(win.from, granularity); b <= win.to; b = nextBucket(b, granularity)) buckets.push(b);
      count = buckets.length;
      // Only the requested page is computed: a long period in hours stays cheap.
      rows = buckets.slice(start, start + q.limit).map((b) => ({ date: restDate(b), value: value(names[0]!, bucketScope(scope, b, nextBucket(b, granularity))) }));
    } else {
      count = groups.length;
      rows = groups.slice(start, start + q.limit).map((g) => ({ resource: g.resource, indicators: Object.fromEntries(names.map((n) => [n, value(n, g.scope)])) }));
    }
    return success(rows, { pagination: { page: q.page, pages: Math.ceil(count / q.limit), limit: q.limit, count } });
  });
}
