// List endpoints: page/limit/full validation, `filters[name]=value` parsing with `*` wildcards, pagination and item shaping.
import type { FastifyRequest } from 'fastify';
import { LIMITS } from '../../lib/limits.js';
import { badRequest, success, type Pagination } from './envelope.js';
import { integerOf, shown } from './request.js';
import { wildcard } from './wildcard.js';


export type Row = Record<string, any>;
/** A filter over a row; `q` (optional) carries the list options, e.g. whether `*` is a wildcard. */
export type FilterFn = (row: Row, value: string, q?: ListQuery) => boolean;

/** Query parameters every REST route accepts besides filters (authentication and the spec's list options). */
const COMMON_PARAMS = new Set(['page', 'limit', 'full', 'key']);

/** No deviation switched on (a ListQuery built without parseList). */
const NO_DEVIATIONS = { has: (_id: string) => false };
const devOf = (q?: ListQuery) => q?.deviations ?? NO_DEVIATIONS;

export interface ListQuery {
  page: number; limit: number; full: boolean; filters: Record<string, string>;
  /** The service's deviation switches, read where a list is answered (selftest). */
  deviations?: { has(id: string): boolean };
}

function positiveInt(name: string, raw: unknown, min: number): number {
  const n = integerOf(raw);
  if (n === null || n < min) throw badRequest(`'${name}' must be an integer from ${min} to ${Number.MAX_SAFE_INTEGER} (got ${shown(raw)}).`);
  return n;
}

/** Parses and validates list options and filters; unknown filters or parameters are refused naming what is accepted. */
export function parseList(req: FastifyRequest, filterNames: string[], extraParams: string[] = []): ListQuery {
  const q = (req.query ?? {}) as Record<string, unknown>;
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
  const deviations = req.server.ces.deviations;
  const page = q.page === undefined ? 1 : positiveInt('page', q.page, 1);
  const asked = q.limit === undefined ? (deviations.has('rest-default-page-size-10') ? 10 : LIMITS.restPageDefault) : positiveInt('limit', q.limit, 1);
  // Above the maximum the limit is clamped, not refused (G11).
  const limit = deviations.has('rest-limit-not-clamped') ? asked : Math.min(asked, LIMITS.restPageMax);
  if (q.full !== undefined && q.full !== '0' && q.full !== '1') throw badRequest(`'full' must be 0 or 1 (got ${JSON.stringify(q.full)}).`);
  return { page, limit, full: q.full === '1' && !deviations.has('rest-full-ignored'), filters, deviations };
}

/** An id filter value: decimal digits within Number.MAX_SAFE_INTEGER (ids are never negative). */
export function intValue(name: string, v: string): number {
  const n = integerOf(v);
  if (n === null) throw badRequest(`filters[${name}] must be an integer from 0 to ${Number.MAX_SAFE_INTEGER} (got ${shown(v)}).`);
  return n;
}
export function intList(name: string, v: string): number[] {
  const parts = v.split(',').map((s) => s.trim()).filter(Boolean);
  const ids = parts.map((p) => integerOf(p));
  if (!parts.length || ids.some((n) => n === null)) throw badRequest(`filters[${name}] must be a comma list of integers from 0 to ${Number.MAX_SAFE_INTEGER} (got ${shown(v)}).`);
  return ids as number[];
}
const asList = (x: unknown): unknown[] => (Array.isArray(x) ? x : typeof x === 'string' && x.startsWith('[') ? JSON.parse(x) : []);

/** Filter builders over a row field. */
export const F = {
  /** Integer equality on a column. */
  int: (col: string): FilterFn => (row, v) => row[col] === intValue(col, v),
  /** String match with `*` wildcards. */
  text: (col: string): FilterFn => (row, v, q) => { const dev = devOf(q); return wildcard(v, dev.has('rest-wildcard-ignored'))(row[col]); },
  /** An integer contained in a list column. */
  listHas: (col: string, name = col): FilterFn => (row, v) => asList(row[col]).includes(intValue(name, v)),
  /** Any of a comma list of integers contained in a list column. */
  listAny: (col: string, name = col): FilterFn => (row, v) => { const want = intList(name, v); return asList(row[col]).some((x) => want.includes(x as number)); },
};

/** Applies filters (all must match), paginates, and shapes items (full or the documented summary). */
export function listAnswer(rows: Row[], q: ListQuery, filters: Record<string, FilterFn>, shape: (row: Row, full: boolean) => Row) {
  // Validate every filter value once before matching, so an invalid value fails even on an empty table.
  for (const [name, value] of Object.entries(q.filters)) filters[name]!({}, value, q);
  const matching = rows.filter((r) => Object.entries(q.filters).every(([name, value]) => filters[name]!(r, value, q)));
  const dev = devOf(q);
  let start = (q.page - 1) * q.limit;
  if (start >= matching.length && matching.length > 0 && dev.has('rest-page-past-end')) start = Math.floor((matching.length - 1) / q.limit) * q.limit;
  const page = matching.slice(start, start + q.limit);
  const count = dev.has('rest-pagination-count-page') ? page.length : matching.length;
  const pagination: Pagination = { page: q.page, pages: Math.ceil(count / q.limit), limit: q.limit, count };
  const noLink = dev.has('rest-envelope-no-link');
  return success(page.map((r) => { const item = shape(r, q.full); if (noLink) delete item._link; return item; }), { pagination });
}

/** Picks the listed fields of a full resource (the list view without `full=1`), always keeping id and _link. */
export function pick(full: Row, fields: readonly string[]): Row {
  const out: Row = { id: full.id };
  for (const f of fields) if (f in full) out[f] = full[f];
  out._link = full._link;
  return out;
}
