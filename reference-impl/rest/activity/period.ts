// REST date filters (`YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`, UTC) and the conversation listing's 3-month window rules (REST-PERIOD-*).
import { LIMITS } from '../../../lib/limits.js';
import { badRequest, restDate, RestFail, TEXT } from '../envelope.js';
import type { Policies } from '../../policies.js';

const restDateOf = (ms: number) => restDate(ms)!;

export const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/;

/**
 * Parses a REST date filter as UTC epoch ms. A date-only `to` means the end of that day (REST-PERIOD-07),
 * so `from=D&to=D` covers day D; a date-time `to` covers its whole second.
 */
export function parseRestDate(name: string, raw: string, edge: 'start' | 'end'): number {
  const m = DATE_RE.exec(raw);
  const bad = () => badRequest(`filters[${name}] must be a date 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS' (got ${JSON.stringify(raw)}).`);
  if (!m) throw bad();
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => (x === undefined ? undefined : Number(x)));
  const dateOnly = h === undefined;
  const ms = Date.UTC(y!, mo! - 1, d!, h ?? 0, mi ?? 0, s ?? 0);
  const back = new Date(ms);
  // Reject 2024-02-30 and 25:00:00 instead of letting Date roll them over.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo! - 1 || back.getUTCDate() !== d || (!dateOnly && (back.getUTCHours() !== h || back.getUTCMinutes() !== mi || back.getUTCSeconds() !== s))) throw bad();
  // Stored dates carry milliseconds: an end bound covers its whole second (or its whole day when date-only).
  if (edge === 'start') return ms;
  return dateOnly ? ms + 86_400_000 - 1 : ms + 999;
}

/** Calendar months added in UTC; the day is clamped to the target month's last day (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  const day = d.getUTCDate();
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, last));
  return target.getTime();
}

export interface Window { from: number; to: number }

/** Optional bounds of from/to filters (transactions, satisfactions, call meetings, statistics): no window rules. */
export function bounds(filters: Record<string, string>, toEdge: (raw: string) => 'start' | 'end' = () => 'end'): { from?: number; to?: number } {
  const from = filters.from !== undefined ? parseRestDate('from', filters.from, 'start') : undefined;
  const to = filters.to !== undefined ? parseRestDate('to', filters.to, toEdge(filters.to)) : undefined;
  if (from !== undefined && to !== undefined && from > to) throw badRequest("filters[from] must not be after filters[to].");
  return { from, to };
}

export interface WindowOptions {
  /** Service clock time (`ces.clock.now()`). */
  now: number;
  /** Refuse from/to more than this many months apart (conversation listing, REST-PERIOD-04/05); statistics set none. */
  maxMonths?: number;
  /** The period without from and to: the last N months. */
  defaultMonths?: number;
  /** How a one-sided period and a date-only `to` are read (the REST policy's rules). */
  rules: Pick<Policies['rest'], 'windowAfterFrom' | 'windowBeforeTo' | 'toEdge'>;
}

/**
 * The conversation listing period: none → the last 3 months; only from → the 3 months after it; only to → the 3 months
 * before it; both → as given, at most 3 months apart (else 400 fail, G13).
 */
export function conversationWindow(filters: Record<string, string>, o: WindowOptions): Window {
  const months = LIMITS.conversationPeriodMonths;
  const rules = o.rules;
  const { from, to } = bounds(filters, rules.toEdge);
  // Month arithmetic uses the dates as written; `to` then covers its whole second (or day), as an explicit `to` would.
  const toAsWritten = filters.to !== undefined ? parseRestDate('to', filters.to, 'start') : undefined;
  const endOf = (ms: number) => parseRestDate('to', restDateOf(ms), 'end');
  if (from === undefined && to === undefined) return { from: addMonths(o.now, -(o.defaultMonths ?? months)), to: o.now };
  if (to === undefined) { const [f, t] = rules.windowAfterFrom(from!, (ms) => endOf(addMonths(ms, months))); return { from: f, to: t }; }
  if (from === undefined) { const [f, t] = rules.windowBeforeTo(to!, toAsWritten!, (ms) => addMonths(ms, -months), (ms) => addMonths(ms, months)); return { from: f, to: t }; }
  // Compared as written: `from=2026-01-10&to=2026-04-10` is exactly 3 months even though `to` covers its whole day.
  if (o.maxMonths !== undefined && toAsWritten! > addMonths(from, o.maxMonths)) throw new RestFail(400, TEXT.periodTooLong);
  return { from, to };
}
