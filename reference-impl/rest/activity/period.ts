// REST date filters (`YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`, UTC) and the conversation listing's 3-month window rules (REST-PERIOD-*).
import { LIMITS } from '../../../lib/limits.js';
import { badRequest, restDate, RestFail, TEXT } from '../envelope.js';

const restDateOf = (ms: number) => restDate(ms)!;

export const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/;

/** What a `to` bound covers after the moment it writes: a date-only one its whole day (REST-PERIOD-07), a date-time one its whole second. */
export interface ToCovers { dateOnlyToCoversMs: number; dateTimeToCoversMs: number }
export const TO_COVERS: ToCovers = { dateOnlyToCoversMs: 86_400_000 - 1, dateTimeToCoversMs: 999 };

/**
 * Parses a REST date filter as UTC epoch ms. An end bound covers what `covers` says after the moment written: a date-only `to`
 * its whole day (so `from=D&to=D` covers day D), a date-time `to` its whole second (stored dates carry milliseconds).
 */
export function parseRestDate(name: string, raw: string, edge: 'start' | 'end', covers: ToCovers = TO_COVERS): number {
  const m = DATE_RE.exec(raw);
  const bad = () => badRequest(`filters[${name}] must be a date 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS' (got ${JSON.stringify(raw)}).`);
  if (!m) throw bad();
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => (x === undefined ? undefined : Number(x)));
  const dateOnly = h === undefined;
  const ms = Date.UTC(y!, mo! - 1, d!, h ?? 0, mi ?? 0, s ?? 0);
  const back = new Date(ms);
  // Reject 2024-02-30 and 25:00:00 instead of letting Date roll them over.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo! - 1 || back.getUTCDate() !== d || (!dateOnly && (back.getUTCHours() !== h || back.getUTCMinutes() !== mi || back.getUTCSeconds() !== s))) throw bad();
  if (edge === 'start') return ms;
  return ms + (dateOnly ? covers.dateOnlyToCoversMs : covers.dateTimeToCoversMs);
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
export function bounds(filters: Record<string, string>, covers: ToCovers = TO_COVERS): { from?: number; to?: number } {
  const from = filters.from !== undefined ? parseRestDate('from', filters.from, 'start', covers) : undefined;
  const to = filters.to !== undefined ? parseRestDate('to', filters.to, 'end', covers) : undefined;
  if (from !== undefined && to !== undefined && from > to) throw badRequest("filters[from] must not be after filters[to].");
  return { from, to };
}

/** The listing's periods in months from their anchor: none → before now, only from → after it, only to → before it (spec: 3 months). */
export type PeriodWindows = Readonly<Record<'none' | 'from' | 'to', readonly [number, number]>>;
const M = LIMITS.conversationPeriodMonths;
export const PERIOD_WINDOWS: PeriodWindows = { none: [-M, 0], from: [0, M], to: [-M, 0] };

export interface WindowOptions extends Partial<ToCovers> {
  /** Service clock time (`ces.clock.now()`). */
  now: number;
  /** Refuse from/to more than this many months apart (conversation listing, REST-PERIOD-04/05); statistics set none. */
  maxMonths?: number;
  windows?: PeriodWindows;
}

/**
 * The conversation listing period: none → the last 3 months; only from → the 3 months after it; only to → the 3 months
 * before it; both → as given, at most 3 months apart (else 400 fail, G13).
 */
export function conversationWindow(filters: Record<string, string>, o: WindowOptions): Window {
  const covers = { ...TO_COVERS, ...o };
  const windows = o.windows ?? PERIOD_WINDOWS;
  const { from, to } = bounds(filters, covers);
  // Month arithmetic uses the dates as written; an end then covers its whole second (or day), as an explicit `to` would.
  const toAsWritten = filters.to !== undefined ? parseRestDate('to', filters.to, 'start') : undefined;
  const endOf = (ms: number) => parseRestDate('to', restDateOf(ms), 'end', covers);
  const span = (anchor: number, [a, b]: readonly [number, number]) => ({ from: addMonths(anchor, a), to: addMonths(anchor, b) });
  if (from === undefined && to === undefined) return span(o.now, windows.none);
  if (to === undefined) { const w = span(from!, windows.from); return { from: w.from, to: endOf(w.to) }; }
  // Only to: the window ends at `to` itself (its whole second or day) when it ends where `to` is written.
  if (from === undefined) { const w = span(toAsWritten!, windows.to); return { from: w.from, to: w.to === toAsWritten ? to! : endOf(w.to) }; }
  // Compared as written: `from=2026-01-10&to=2026-04-10` is exactly 3 months even though `to` covers its whole day.
  if (o.maxMonths !== undefined && toAsWritten! > addMonths(from, o.maxMonths)) throw new RestFail(400, TEXT.periodTooLong);
  return { from, to };
}
