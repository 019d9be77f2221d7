// Named reads of the store: a read is a table, criteria and an order, turned into one SELECT here; the store-read seam edits a named read's criteria.
import type { Core } from '../core.js';

export type Row = Record<string, any>;

/**
 * Criteria of a read, all of which must hold: `{ client_id: 7 }` is `client_id = 7` (null: `IS NULL`), an operator after the column
 * name compares (`'closed_at >=': t`, `'id !=': null`), `'<col> in': [..]` is membership in a list, `'<col> has': v` is a JSON list
 * column containing v. Keys are the service's own (never a caller's); values are always bound parameters.
 */
export type Criteria = Record<string, unknown>;

export interface Read {
  table: string;
  where: Criteria;
  /** Columns or aggregates selected (default `*`). */
  columns?: string;
  group?: string;
  order?: string;
  limit?: number;
  offset?: number;
}

const KEY = /^([a-z_]+)(?: (=|!=|>=|<=|>|<|in|has))?$/;
/** An order: columns, each optionally DESC or ASC. */
const ORDER = /^[a-z_]+( (ASC|DESC))?(, [a-z_]+( (ASC|DESC))?)*$/;

function whereSql(where: Criteria): { text: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  for (const [key, value] of Object.entries(where)) {
    const m = KEY.exec(key);
    if (!m) throw new Error(`store read: malformed criterion ${JSON.stringify(key)}`);
    const [, col, op = '='] = m;
    const c = `"${col}"`;
    if (op === 'in') { parts.push(`${c} IN (SELECT value FROM json_each(?))`); params.push(JSON.stringify(value)); }
    else if (op === 'has') { parts.push(`EXISTS (SELECT 1 FROM json_each(${c}) WHERE value = ?)`); params.push(value); }
    else if (value === null && (op === '=' || op === '!=')) parts.push(`${c} IS ${op === '=' ? '' : 'NOT '}NULL`);
    else { parts.push(`${c} ${op} ?`); params.push(value); }
  }
  return { text: parts.length ? ` WHERE ${parts.join(' AND ')}` : '', params };
}

/** The criteria and order of read `name` as the store-read seam leaves them (deviations at `store.read` edit `{where, order}`). */
function seam(ces: Core, name: string, q: Read): { where: Criteria; order?: string } {
  return ces.deviations.edited('store.read', { where: q.where, order: q.order }, name);
}

/** Every row of a named read. */
export function rows(ces: Core, name: string, q: Read): Row[] {
  const { where, order } = seam(ces, name, q);
  if (order !== undefined && !ORDER.test(order)) throw new Error(`store read: malformed order ${JSON.stringify(order)}`);
  const w = whereSql(where);
  const tail = `${q.group ? ` GROUP BY ${q.group}` : ''}${order ? ` ORDER BY ${order}` : ''}${q.limit !== undefined ? ' LIMIT ? OFFSET ?' : ''}`;
  const params = q.limit !== undefined ? [...w.params, q.limit, q.offset ?? 0] : w.params;
  return ces.db.prepare(`SELECT ${q.columns ?? '*'} FROM ${q.table}${w.text}${tail}`).all(...params) as Row[];
}

/** The first row of a named read, or undefined. */
export function row(ces: Core, name: string, q: Read): Row | undefined {
  return rows(ces, name, { ...q, limit: 1 })[0];
}

/** How many rows a named read finds (without its order, limit and offset). */
export function count(ces: Core, name: string, q: Read): number {
  const w = whereSql(seam(ces, name, q).where);
  return (ces.db.prepare(`SELECT COUNT(*) AS n FROM ${q.table}${w.text}`).get(...w.params) as { n: number }).n;
}
