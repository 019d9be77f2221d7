// GET /statistic (G14): filters, channel groups, resource grouping, granularity; every value computed from stored data by indicators.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { list as jsonList } from '../../store/db.js';
import { badRequest, restDate, success, unknownId } from '../envelope.js';
import { integerOf, shown } from '../request.js';
import { parseList, type FilterKinds, type Row } from '../list.js';
import { meta } from './common.js';
import { rows as storeRows } from '../../store/read.js';
import type { BusinessRule } from '../openapi.js';
import { conversationWindow, utcMs } from './period.js';
import { CHANNEL_GROUPS } from '../policy.js';
import { INDICATORS, INDICATOR_NAMES, REMOVED_INDICATORS, STATISTIC_CHANNELS, type Conv, type Period, type Scope } from './indicators.js';

export const STATISTIC_RESOURCES = ['operator', 'group', 'skill', 'rule', 'contact_type', 'page_type'] as const;
export const GRANULARITIES = ['hour', 'day', 'month'] as const;
/** The filters of /statistic (parsed below, not by FilterFns: they shape the computation rather than select rows). */
export const STATISTIC_FILTERS: FilterKinds = {
  website_list: { kind: 'ids' },
  website_id: { kind: 'ids' },
  channel: { kind: 'enum', values: STATISTIC_CHANNELS },
  resource: { kind: 'enum', values: STATISTIC_RESOURCES },
  resource_id: { kind: 'id-or-text' },
  indicators: { kind: 'enums', values: INDICATOR_NAMES },
  from: { kind: 'date' },
  to: { kind: 'date' },
  granularity: { kind: 'enum', values: GRANULARITIES },
};
type ResourceType = (typeof STATISTIC_RESOURCES)[number];
type Granularity = (typeof GRANULARITIES)[number];

/** Rules between the statistic filters, documented with the 400 they answer (the texts of the checks below). */
const STATISTIC_RULES: readonly BusinessRule[] = [
  { name: 'from-after-to', summary: 'from is not after to', message: 'filters[from] must not be after filters[to].' },
  { name: 'indicator-channel', summary: "with channel, each indicator named is served for that channel (its channel group G1-G4 of the spec's table; social_d is in none)", message: "Indicator 'contact_missed_number' is not available for channel 'call' (its channels, G2: chat)." },
  { name: 'granularity-one-indicator', summary: 'granularity needs exactly one indicator in indicators', message: 'filters[granularity] needs exactly one indicator in filters[indicators] (got 2).' },
  { name: 'granularity-one-resource', summary: 'granularity with resource needs resource_id', message: 'filters[granularity] with filters[resource] needs filters[resource_id] (one resource).' },
  { name: 'resource-id-needs-resource', summary: 'resource_id needs resource', message: 'filters[resource_id] needs filters[resource].' },
  { name: 'resource-id-integer', summary: 'resource_id of operator, group, skill and rule is an id (contact_type and page_type take their text value)', message: "filters[resource_id] must be an integer from 0 to 9007199254740991 for resource 'operator' (got \"a\")." },
];

const oneOf = <T extends string>(name: string, v: string, allowed: readonly T[]): T => {
  if (!(allowed as readonly string[]).includes(v)) throw badRequest(`filters[${name}] must be one of ${allowed.join(', ')} (got ${JSON.stringify(v)}).`);
  return v as T;
};

/** The indicator names asked for, validated: removed → fail saying it is no longer served; unknown → fail naming it; outside the channel's group → fail. */
function indicatorNames(app: FastifyInstance, raw: string | undefined, channel: string | undefined): string[] {
  const policy = app.ces.policy.rest;
  // Without indicators: every indicator served for the channel asked for (an indicator outside its channel group is refused only
  // when named), so a channel alone never fails; social_d is in no channel group and gets none.
  if (raw === undefined) return channel === undefined ? INDICATOR_NAMES : INDICATOR_NAMES.filter((n) => (policy.channelGroups[INDICATORS[n]!.group] ?? []).includes(channel));
  const names = raw.split(',');
  const isRemoved = (n: string) => (REMOVED_INDICATORS as readonly string[]).includes(n);
  // Removed indicators answered as zeroes: a deviation's only (REST-STAT-10: they are not served).
  const zeroes = policy.removedIndicatorsServedAsZero ? names.filter(isRemoved) : [];
  const removed = names.find((n) => isRemoved(n) && !zeroes.includes(n));
  if (removed) throw badRequest(`Indicator '${removed}' is no longer served by the REST API (removed satisfaction indicators: ${REMOVED_INDICATORS.join(', ')}).`);
  const unknown = names.find((n) => !INDICATORS[n] && !zeroes.includes(n));
  if (unknown && policy.unknownIndicatorsRefused) throw badRequest(`Unknown indicator '${unknown}'. Accepted indicators: ${INDICATOR_NAMES.join(', ')}.`);
  for (const n of names.filter((x) => INDICATORS[x])) {
    const group = INDICATORS[n]!.group;
    const channels = policy.channelGroups[group] ?? [];
    if (channel && !channels.includes(channel)) throw badRequest(`Indicator '${n}' is not available for channel '${channel}' (its channels, ${group}: ${channels.join(', ')}).`);
  }
  // Only known indicators are computed.
  return names.filter((n) => INDICATORS[n] || zeroes.includes(n));
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
  const policy = app.ces.policy.rest;
  const websitesRaw = f.website_list ?? f.website_id;
  let websites: number[] | undefined;
  if (websitesRaw !== undefined) {
    const name = f.website_list !== undefined ? 'website_list' : 'website_id';
    const parts = websitesRaw.split(',');
    if (parts.some((p) => integerOf(p) === null)) throw badRequest(`filters[${name}] must be a comma list of website ids (got ${shown(websitesRaw)}).`);
    websites = parts.map(Number);
    const own = new Set(storeRows(app.ces, 'statistic websites', { table: 'websites', columns: 'id', where: { client_id: clientId } }).map((r) => r.id));
    const foreign = websites.find((w) => !own.has(w));
    if (foreign !== undefined) throw unknownId('website', foreign);
  }
  const onWebsite = (w: number) => !websites || websites.includes(w);
  const channel = f.channel;
  // A conversation's history is parsed when a figure needs it (those of the period, those a transaction links to): a client has
  // hundreds of conversations and most requests ask for a period holding a few of them.
  const all = db.prepare('SELECT * FROM conversations WHERE client_id = ?').all(clientId) as Row[];
  const rowById = new Map(all.map((r) => [r.id as number, r]));
  const parsed = new Map<number, Conv>();
  const conv = (row: Row): Conv => { let c = parsed.get(row.id as number); if (!c) { c = toConv(row); parsed.set(row.id as number, c); } return c; };
  const convById = { get: (id: number) => { const row = rowById.get(id); return row && conv(row); } };
  const convs = all.filter((r) => r.created_at >= from && r.created_at <= to && onWebsite(r.website_id) && (!channel || r.channel === channel)).map(conv);
  // With a channel, a transaction counts through its conversation's channel; unlinked ones belong to no channel.
  const transactions = (db.prepare('SELECT * FROM transactions WHERE client_id = ? AND created_at BETWEEN ? AND ?').all(clientId, from, to) as Row[])
    .filter((t) => onWebsite(t.website_id) && (!channel || (t.conversation_id !== null && rowById.get(t.conversation_id)?.channel === channel)));
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
  if (g === 'hour') return utcMs(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours());
  if (g === 'day') return utcMs(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return utcMs(d.getUTCFullYear(), d.getUTCMonth(), 1);
}
/** The start of the i-th bucket after `first` (a bucket start). */
function nthBucket(first: number, i: number, g: Granularity): number {
  if (g !== 'month') return first + i * (g === 'hour' ? 3_600_000 : 86_400_000);
  const d = new Date(first);
  return utcMs(d.getUTCFullYear(), d.getUTCMonth() + i, 1);
}
/** How many buckets from the one holding `from` to the one holding `to`: counted, not listed (a period of 9,999 years in hours is 87 million). */
function bucketCount(from: number, to: number, g: Granularity): number {
  if (to < from) return 0;
  const first = bucketStart(from, g);
  if (g !== 'month') return Math.floor((to - first) / (g === 'hour' ? 3_600_000 : 86_400_000)) + 1;
  const a = new Date(first); const b = new Date(to);
  return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth() + 1;
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
  return INDICATORS[name]?.compute(s) ?? 0;
}

export function registerStatistic(app: FastifyInstance): void {
  app.get('/statistic', meta({
    summary: 'Statistic indicators computed over the period, grouped by resource or by date (granularity)',
    list: true, filters: STATISTIC_FILTERS, deprecatedFilters: ['website_id'], response: 'rest/statistic.json', unknownIds: true, rules: STATISTIC_RULES,
    // The rule indicator-channel as data: the channels each indicator is served for.
    extensions: { 'x-indicator-channels': Object.fromEntries(INDICATOR_NAMES.map((n) => [n, CHANNEL_GROUPS[INDICATORS[n]!.group]])) },
  }), async (req) => {
    const q = parseList(req, STATISTIC_FILTERS);
    const f = q.filters;
    const channel = f.channel === undefined ? undefined : oneOf('channel', f.channel, STATISTIC_CHANNELS);
    const resource = f.resource === undefined ? undefined : oneOf('resource', f.resource, STATISTIC_RESOURCES);
    if (f.resource_id !== undefined && !resource) throw badRequest('filters[resource_id] needs filters[resource].');
    const granularity = f.granularity === undefined ? undefined : oneOf('granularity', f.granularity, GRANULARITIES);
    const policy = app.ces.policy.rest;
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
      const first = bucketStart(win.from, granularity);
      count = Math.max(0, bucketCount(win.from, win.to, granularity) - policy.bucketsLeftOut);
      // Only the requested page is computed: a long period in hours stays cheap.
      const onPage = Array.from({ length: Math.max(0, Math.min(q.limit, count - start)) }, (_, i) => nthBucket(first, start + i, granularity));
      rows = onPage.map((b) => ({ date: restDate(b), value: value(names[0]!, bucketScope(scope, b, nthBucket(b, 1, granularity))) }));
    } else {
      count = groups.length;
      rows = groups.slice(start, start + q.limit).map((g) => ({ resource: g.resource, indicators: Object.fromEntries(names.map((n) => [n, value(n, g.scope)])) }));
    }
    return success(rows, { pagination: { page: q.page, pages: Math.ceil(count / q.limit), limit: q.limit, count } });
  });
}
