// List endpoints: page/limit/full validation, `filters[name]=value` parsing with `*` wildcards, pagination and item shaping.
import type { FastifyRequest } from 'fastify';
import { LIMITS } from '../../lib/limits.js';
import { badRequest, success, type Pagination } from './envelope.js';
import type { Policies } from '../policies.js';
import { integerOf, shown } from './request.js';
import { wildcard } from './wildcard.js';
import { filterLists } from './form-lists.js';

type RestPolicy = Policies['rest'];
export type Row = Record<string, any>;

/**
 * What a filter's value is. One definition serves both sides: parsing reads the value by it (and folds G26's list forms of the
 * list kinds), and the OpenAPI document states it (openapi.ts `filterParameter`), so the two cannot disagree.
 */
export type FilterKind =
  /** One id: decimal digits from 0 to 2^53 - 1; no wildcard. */
  | { kind: 'id' }
  /** A list of ids: the spec's comma list `1,2`, or G26's `x[]=1&x[]=2`, `x[0]=1&x[1]=2`, `x=1&x=2`. */
  | { kind: 'ids' }
  /** Text; `*` is a wildcard (matched in linear time). */
  | { kind: 'text' }
  /** `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS` (UTC), a date of the calendar. */
  | { kind: 'date' }
  /** One of the values. */
  | { kind: 'enum'; values: readonly string[] }
  /** A list of the values (same list forms as `ids`). */
  | { kind: 'enums'; values: readonly string[] }
  /** An id, or one of the values (the transaction filter conversation_id also takes `null` and `!null`). */
  | { kind: 'id-or'; values: readonly string[] }
  /** An id, or a text value for the resources named by text (the statistic filter resource_id of contact_type and page_type). */
  | { kind: 'id-or-text' };
/** The filters a route accepts, by name. */
export type FilterKinds = Record<string, FilterKind>;
/** Whether a filter's value is a list (its G26 list forms are read). */
export const isListKind = (k: FilterKind): boolean => k.kind === 'ids' || k.kind === 'enums';

/** A filter over a row, with the kind of value it reads; `q` (optional) carries the list options. */
export type FilterFn = ((row: Row, value: string, q?: ListQuery) => boolean) & { kind: FilterKind };
/** A filter function with the kind of value it reads. */
export const typed = (kind: FilterKind, fn: (row: Row, value: string, q?: ListQuery) => boolean): FilterFn => Object.assign(fn, { kind });
/** The kinds of a route's filters (for parseList and the route's OpenAPI metadata). */
export const kindsOf = (filters: Record<string, FilterFn>): FilterKinds => Object.fromEntries(Object.entries(filters).map(([name, f]) => [name, f.kind]));

/** Query parameters every REST route accepts besides filters (authentication and the spec's list options). */
const COMMON_PARAMS = new Set(['page', 'limit', 'full', 'key']);

export interface ListQuery {
  page: number; limit: number; full: boolean; filters: Record<string, string>;
  /** The REST policy in force when the list was asked for (deviations switch at run time). */
  policy: RestPolicy;
}

/** The resource a route serves, as deviations name it: `/api/2/conversation.json-unicode/:id` → `conversation`. */
export function resourceOf(req: FastifyRequest): string {
  const url = req.routeOptions.url ?? req.url;
  return url.replace(/^(\/ha)?\/api\/2\//, '').split('/')[0]!.replace(/\.json(-unicode)?$/, '');
}

/**
 * The names deviations scope a REST edit with (`where`): the resource, `METHOD resource`, `METHOD /route` (`GET /operator/live`)
 * and the base (`sd`, `ha`).
 */
export function routeNames(req: FastifyRequest): string[] {
  const resource = resourceOf(req);
  const route = (req.routeOptions.url ?? '').replace(/^(\/ha)?\/api\/2/, '');
  return [resource, `${req.method} ${resource}`, `${req.method} ${route}`, req.platform];
}

function positiveInt(name: string, raw: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = integerOf(raw);
  if (n === null || n < min || n > max) throw badRequest(`'${name}' must be an integer from ${min} to ${max} (got ${shown(raw)}).`);
  return n;
}

/** Parses and validates list options and filters; unknown filters or parameters are refused naming what is accepted. */
export function parseList(req: FastifyRequest, kinds: FilterKinds, extraParams: string[] = []): ListQuery {
  const filterNames = Object.keys(kinds);
  // G26: a list filter as `filters[x][0]=a&filters[x][1]=b`, `filters[x][]=a` or `filters[x]=a&filters[x]=b` is the spec's comma list `filters[x]=a,b`.
  const lists = filterNames.filter((n) => isListKind(kinds[n]!));
  const q = filterLists((req.query ?? {}) as Record<string, unknown>, lists);
  const filters: Record<string, string> = {};
  for (const [k, v] of Object.entries(q)) {
    if (k.startsWith('filters')) {
      const m = /^filters\[([a-z_]+)\]$/.exec(k);
      if (!m) throw badRequest(`Malformed filter parameter '${k}': use filters[<name>]=<value>.`);
      const name = m[1]!;
      if (!filterNames.includes(name)) {
        throw badRequest(`Unknown filter '${name}'. Accepted filters: ${filterNames.length ? filterNames.join(', ') : 'none'}.`);
      }
      if (typeof v !== 'string') throw badRequest(`Filter '${name}' must be given once.`);
      if (v.length > LIMITS.restFilterValueMaxChars) throw badRequest(`Filter '${name}' is ${v.length} characters long; at most ${LIMITS.restFilterValueMaxChars} are accepted.`);
      filters[name] = v;
    } else if (!COMMON_PARAMS.has(k) && !extraParams.includes(k)) {
      throw badRequest(`Unknown parameter '${k}'. Accepted: page, limit, full, filters[<name>]${extraParams.length ? ', ' + extraParams.join(', ') : ''}.`);
    } else if (Array.isArray(v)) {
      throw badRequest(`Parameter '${k}' must be given once.`);
    }
  }
  const policy = req.server.ces.policy.rest;
  const page = q.page === undefined ? 1 : positiveInt('page', q.page, 1);
  const asked = q.limit === undefined ? policy.pageDefault : positiveInt('limit', q.limit, 1, policy.limitAcceptedMax);
  // Above the maximum the limit is clamped, not refused (G11): every limit is accepted unless a deviation bounds it.
  const limit = Math.min(asked, policy.pageMax);
  if (q.full !== undefined && q.full !== '0' && q.full !== '1') throw badRequest(`'full' must be 0 or 1 (got ${JSON.stringify(q.full)}).`);
  return { page, limit, full: q.full === '1' || policy.listItemsAlwaysFull, filters, policy };
}

/** An id filter value: decimal digits within Number.MAX_SAFE_INTEGER (ids are never negative). */
export function intValue(name: string, v: string): number {
  const n = integerOf(v);
  if (n === null) throw badRequest(`filters[${name}] must be an integer from 0 to ${Number.MAX_SAFE_INTEGER} (got ${shown(v)}).`);
  return n;
}
/** A list of ids: a comma list of decimal integers, each within Number.MAX_SAFE_INTEGER, none empty (`1,,2` and `1,` are refused). */
export function intList(name: string, v: string): number[] {
  const ids = v.split(',').map((p) => integerOf(p));
  if (ids.some((n) => n === null)) throw badRequest(`filters[${name}] must be a comma list of integers from 0 to ${Number.MAX_SAFE_INTEGER} (got ${shown(v)}).`);
  return ids as number[];
}
const asList = (x: unknown): unknown[] => (Array.isArray(x) ? x : typeof x === 'string' && x.startsWith('[') ? JSON.parse(x) : []);

/** Filter builders over a row field. */
export const F = {
  /** Integer equality on a column. */
  int: (col: string): FilterFn => typed({ kind: 'id' }, (row, v) => row[col] === intValue(col, v)),
  /** String match with `*` wildcards. */
  text: (col: string): FilterFn => typed({ kind: 'text' }, (row, v) => wildcard(v)(row[col])),
  /** An integer contained in a list column. */
  listHas: (col: string, name = col): FilterFn => typed({ kind: 'id' }, (row, v) => asList(row[col]).includes(intValue(name, v))),
  /** Any of a comma list of integers contained in a list column. */
  listAny: (col: string, name = col): FilterFn => typed({ kind: 'ids' }, (row, v) => { const want = intList(name, v); return asList(row[col]).some((x) => want.includes(x as number)); }),
};

/** Applies filters (all must match), paginates, and shapes items (full or the documented summary). */
export function listAnswer(rows: Row[], q: ListQuery, filters: Record<string, FilterFn>, shape: (row: Row, full: boolean) => Row) {
  // Validate every filter value once before matching, so an invalid value fails even on an empty table.
  for (const [name, value] of Object.entries(q.filters)) filters[name]!({}, value, q);
  const matching = rows.filter((r) => Object.entries(q.filters).every(([name, value]) => filters[name]!(r, value, q)));
  const count = matching.length;
  const pages = Math.ceil(count / q.limit);
  // A page past the end is empty (G11); deviation rest-page-past-end answers the last page again.
  const start = Math.max(0, (q.page > pages && q.policy.lastPageRepeated ? Math.max(pages, 1) - 1 : q.page - 1) * q.limit - (q.page > 1 ? q.policy.pageOverlap : 0));
  const pagination: Pagination = { page: q.page, pages, limit: q.limit, count };
  const page = matching.slice(start, start + q.limit);
  return success(page.map((r) => shape(r, q.full)), { pagination });
}

/** Picks the listed fields of a full resource (the list view without `full=1`), always keeping id and _link. */
export function pick(full: Row, fields: readonly string[]): Row {
  const out: Row = { id: full.id };
  for (const f of fields) if (f in full) out[f] = full[f];
  out._link = full._link;
  return out;
}
