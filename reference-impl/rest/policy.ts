// Policy of the REST API: the spec's limits, texts and rules by default; deviations (fixtures/deviations/rest*.json) override fields.
// Functions are the rules a deviation computes wrongly: each has the correct default and its named wrong variants.
import type { FastifyRequest } from 'fastify';
import type { Db } from '../store/db.js';
import { LIMITS } from '../../lib/limits.js';
import type { PolicyModule } from '../policies.js';
import { presentedKey } from '../auth/api-key.js';
import { badRequest, TEXT } from './envelope.js';
import { shown } from './request.js';
import { wellFormed, type HistoryEntry } from './activity/history.js';
import { bounds } from './activity/period.js';
import { wildcard } from './wildcard.js';
import { filterLists, foldLists } from './form-lists.js';
import { CALL_MEETING_MOVES } from './activity/callmeeting-states.js';

/** A plausible e-mail address (REST-OPW: 'email' must be valid). */
export const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

type Row = Record<string, any>;
const throwIt = (e: Error): never => { throw e; };
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

const defaults = {
  /** REST-PAGE-01/02: items per page without `limit`, and the most a `limit` gives (clamped above, G11). */
  pageDefault: LIMITS.restPageDefault,
  pageMax: LIMITS.restPageMax,
  /** Whether list items are full resources, given whether `full=1` was asked. */
  fullShown: (asked: boolean): boolean => asked,
  /** Index of the first item of page `page` (a page past the end is empty). */
  pageStart: (page: number, limit: number, _matching: number): number => (page - 1) * limit,
  /** `pagination.count`: every matching item. */
  paginationCount: (matching: number, _onPage: number): number => matching,
  /** The matcher of a text filter value (`*` is a wildcard). */
  textMatcher: (pattern: string): ((s: unknown) => boolean) => wildcard(pattern),
  /** Filters validated but not applied, as `<resource> <filter>` (none). */
  ignoredFilters: [] as string[],
  /** The API key a request presents (header, `key=` or HTTP Basic user: exactly one way). */
  presentedKey: (req: FastifyRequest): string | null => presentedKey(req),
  /** Whether the high-availability base answers. */
  haBaseServed: true as boolean,
  /** The error of a non-numeric path id. */
  badIdError: (name: string, resource: string, raw: string): Error => badRequest(`'${name}' of ${resource} must be an integer from 0 to ${Number.MAX_SAFE_INTEGER} (got ${shown(raw)}).`),
  openapiDocument: (doc: object): object => doc,
  /** A row of `table` by id, of the key's client only (another client's row is unknown). */
  clientRowById: (db: Db, table: string, id: number, clientId: number): Row | undefined =>
    db.prepare(`SELECT * FROM ${table} WHERE id = ? AND client_id = ?`).get(id, clientId) as Row | undefined,
  /** The operators a key's lists and lookups may show: its client's. */
  operatorRows: (db: Db, clientId: number): Row[] => db.prepare('SELECT * FROM operators WHERE client_id = ? ORDER BY id').all(clientId) as Row[],
  operatorRow: (db: Db, id: number, clientId: number): Row | undefined => db.prepare('SELECT * FROM operators WHERE id = ? AND client_id = ?').get(id, clientId) as Row | undefined,
  createdStatus: 201,
  /** Form lists (`x[]=`) are read. */
  formListKey: (key: string): string | null => key,
  /** G26: the fields of a form with PHP's indexed lists (`x[0]=a`) folded into the spec's `x[]` lists. */
  formFields: (fields: Record<string, unknown>): Record<string, unknown> => foldLists(fields, () => true),
  /** G26: the query with list filters (`filters[x][0]=a`, `filters[x][]=a`) folded into the spec's comma lists. */
  listQuery: (query: Record<string, unknown>): Record<string, unknown> => filterLists(query),
  emailValid: (email: string): boolean => EMAIL.test(email),
  operatorErrors: (errors: string[]): string => errors.join(' '),
  /** `connected=0` must be the sole field of a live change: refuses it with the other fields given. */
  connectedAlone: (others: string[]): void => (others.length ? throwIt(badRequest(`'connected=0' must be the sole field; it cannot be combined with ${others.join(', ')}.`)) : undefined),
  /** A live change creates the live row of an operator who never logged in. */
  ensureLiveRow: (db: Db, operatorId: number): void => { db.prepare('INSERT INTO operator_live (operator_id, connected, chat_available, call_available, video_available) VALUES (?, 0, 0, 0, 0)').run(operatorId); },
  liveChannelText: (available: boolean, channel: string): string => TEXT.liveChannel(available, channel),
  /** Without `connected=0`, /operator/live lists the operators available on some channel. */
  liveListed: (r: Row, available: boolean): boolean => available,
  // ---- conversations (REST-HIST, REST-PERIOD) ----
  historyMode: (path: 'unicode' | 'legacy', formatHistory: unknown): 'entries' | 'formatted' => (path === 'unicode' && formatHistory === '0' ? 'entries' : 'formatted'),
  historyOrder: (entries: unknown[][]): unknown[][] => entries,
  wellFormedHistory: (stored: unknown[][]): HistoryEntry[] => wellFormed(stored),
  channelMatches: (channel: string, value: string): boolean => (value === 'social' ? channel.startsWith('social_') : channel === value),
  periodDefaultMonths: LIMITS.conversationPeriodMonths,
  periodMaxMonths: LIMITS.conversationPeriodMonths,
  /** The window of a `from` without `to`: the months after it (end of the covering second). */
  windowAfterFrom: (from: number, after: (ms: number) => number): [number, number] => [from, after(from)],
  /** The window of a `to` without `from`: the months before it. */
  windowBeforeTo: (to: number, toAsWritten: number, before: (ms: number) => number, _after: (ms: number) => number): [number, number] => [before(toAsWritten), to],
  /** A date-only `to` covers its whole day (REST-PERIOD-07). */
  toEdge: (_raw: string): 'start' | 'end' => 'end',
  /** Whether a record at `at` is inside a `to` bound (inclusive). */
  beforeTo: (at: number, to: number): boolean => at <= to,
  /** The bounds of date filters; a malformed date is refused (400). */
  dateBounds: (filters: Record<string, string>): { from?: number; to?: number } => bounds(filters),
  // ---- statistics ----
  removedIndicator: (name: string, removed: readonly string[]): void => throwIt(badRequest(`Indicator '${name}' is no longer served by the REST API (removed satisfaction indicators: ${removed.join(', ')}).`)),
  unknownIndicator: (name: string, accepted: readonly string[]): void => throwIt(badRequest(`Unknown indicator '${name}'. Accepted indicators: ${accepted.join(', ')}.`)),
  indicatorChannel: (name: string, channel: string, group: string, channels: readonly string[]): void =>
    (channels.includes(channel) ? undefined : throwIt(badRequest(`Indicator '${name}' is not available for channel '${channel}' (its channels, ${group}: ${channels.join(', ')}).`))),
  granularityIndicators: (count: number): void => (count === 1 ? undefined : throwIt(badRequest(`filters[granularity] needs exactly one indicator in filters[indicators] (got ${count}).`))),
  statisticWebsites: (f: Record<string, string>): string | undefined => f.website_list ?? f.website_id,
  websitesOwned: (websites: number[], own: Set<number>): number | undefined => websites.find((w) => !own.has(w)),
  statisticChannel: (f: Record<string, string>): string | undefined => f.channel,
  statisticResourceId: (id: string | undefined): string | undefined => id,
  /** Presence states the non-production rate is over: all of them (null). */
  nonProductionBase: undefined as string[] | undefined,
  indicatorValue: (_name: string, _unit: string, v: number): number => v,
  allResource: null as { type: string; id: number } | null,
  // ---- call meetings ----
  /** G18: the states a call meeting may move to from each state. */
  callMeetingMoves: CALL_MEETING_MOVES as Readonly<Record<string, readonly string[]>>,
  buckets: (starts: number[]): number[] => starts,
};

export const REST_POLICY: PolicyModule<typeof defaults> = {
  defaults,
  variants: {
    fullShown: { never: () => false },
    textMatcher: { literal: (pattern) => wildcard(pattern, true) },
    emailValid: { any: () => true },
    connectedAlone: { unchecked: () => undefined },
    ensureLiveRow: { none: () => undefined },
    dateBounds: { lenient: (filters) => { try { return bounds(filters); } catch { return {}; } } },
    pageStart: { 'last-page-again': (page, limit, matching) => ((page - 1) * limit >= matching && matching > 0 ? Math.floor((matching - 1) / limit) * limit : (page - 1) * limit) },
    paginationCount: { 'page-only': (_m, onPage) => onPage },
    presentedKey: { 'no-basic': (req) => (/^basic/i.test(req.headers.authorization ?? '') ? null : presentedKey(req)) },
    badIdError: { crash: (_n, _r, raw) => new Error(`cannot read id ${raw}`) },
    openapiDocument: { 'no-deprecated': (doc) => JSON.parse(JSON.stringify(doc), (k, v) => (k === 'deprecated' ? undefined : v)) },
    clientRowById: { 'any-client': (db, table, id) => db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id) as Row | undefined },
    operatorRows: { 'every-client': (db) => db.prepare('SELECT * FROM operators ORDER BY id').all() as Row[] },
    operatorRow: { 'any-client': (db, id) => db.prepare('SELECT * FROM operators WHERE id = ?').get(id) as Row | undefined },
    formListKey: { 'lists-dropped': (key) => (key.endsWith('[]') ? null : key) },
    formFields: { 'indexed-unread': (fields) => fields },
    listQuery: { 'lists-unread': (query) => query },
    operatorErrors: { vague: () => 'Invalid operator.' },
    liveChannelText: { 'online-offline': (on, c) => `Operator is now ${on ? 'online' : 'offline'} for ${c} channel.` },
    liveListed: { 'every-logged-in': (r) => r._live !== null },
    historyMode: { 'legacy-entries': (path, raw) => (path === 'legacy' || raw === '0' ? 'entries' : 'formatted'), 'always-formatted': () => 'formatted' },
    historyOrder: { 'newest-first': (entries) => [...entries].reverse() },
    wellFormedHistory: { 'epoch-on-every-code': (stored) => wellFormed(stored, true) },
    channelMatches: { 'social-is-social-a': (channel, value) => (value === 'social' ? channel === 'social_a' : channel === value) },
    windowAfterFrom: { unbounded: (from) => [from, Number.MAX_SAFE_INTEGER] },
    windowBeforeTo: { 'after-to': (to, _w, _before, after) => [to, after(to)] },
    toEdge: { 'date-only-at-start': (raw) => (DATE_ONLY.test(raw) ? 'start' : 'end') },
    beforeTo: { exclusive: (at, to) => at < to - 999 },
    removedIndicator: { served: () => undefined },
    unknownIndicator: { zero: () => undefined },
    indicatorChannel: { unchecked: () => undefined },
    granularityIndicators: { unchecked: () => undefined },
    statisticWebsites: { 'alias-dropped': (f) => f.website_list },
    websitesOwned: { unchecked: () => undefined },
    statisticChannel: { ignored: () => undefined },
    statisticResourceId: { ignored: () => undefined },
    indicatorValue: { 'contact-number-plus-one': (name, _u, v) => (name === 'contact_number' ? v + 1 : v), 'durations-in-ms': (_n, unit, v) => (unit === 's' ? v * 1000 : v) },
    buckets: { 'last-missing': (starts) => starts.slice(0, -1) },
  },
};
