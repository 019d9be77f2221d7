// REST date filters (`YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`, UTC) and the conversation listing's 3-month window rules (REST-PERIOD-*).
import { LIMITS } from '../../../lib/limits.js';
import { badRequest, periodTooLong } from '../envelope.js';

/** Years (4 digits) that are leap years in the Gregorian calendar: divisible by 4, centuries only when divisible by 400. */
const LEAP_YEAR = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)';
/**
 * A REST date filter: `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`, and only dates of the calendar (no 2023-02-29, no 25:00:00). The
 * OpenAPI document states this very pattern, so the document and the server accept the same strings. Fixed-length alternatives
 * with no nested repetition: matching cannot backtrack.
 */
export const DATE_PATTERN = '^(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))'
  + `|${LEAP_YEAR}-02-29)(?: (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9])?$`;
const DATE_RE = new RegExp(DATE_PATTERN);

/** Epoch ms of a UTC date and time; years 0-99 stay those years (Date.UTC would read them as 1900-1999). */
export function utcMs(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number {
  const t = new Date(0);
  t.setUTCFullYear(y, mo, d);
  t.setUTCHours(h, mi, s, ms);
  return t.getTime();
}

/** What a `to` bound covers after the moment it writes: a date-only one its whole day (REST-PERIOD-07), a date-time one its whole second. */
export interface ToCovers { dateOnlyToCoversMs: number; dateTimeToCoversMs: number }
export const TO_COVERS: ToCovers = { dateOnlyToCoversMs: 86_400_000 - 1, dateTimeToCoversMs: 999 };

/**
 * Parses a REST date filter as UTC epoch ms. An end bound covers what `covers` says after the moment written: a date-only `to`
 * its whole day (so `from=D&to=D` covers day D), a date-time `to` its whole second (stored dates carry milliseconds).
 */
export function parseRestDate(name: string, raw: string, edge: 'start' | 'end', covers: ToCovers = TO_COVERS): number {
  if (!DATE_RE.test(raw)) throw badRequest(`filters[${name}] must be a date 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS' of the calendar (got ${JSON.stringify(raw)}).`);
  const [y, mo, d, h, mi, s] = [raw.slice(0, 4), raw.slice(5, 7), raw.slice(8, 10), raw.slice(11, 13), raw.slice(14, 16), raw.slice(17, 19)].map(Number);
  const dateOnly = raw.length === 10;
  const ms = utcMs(y!, mo! - 1, d!, dateOnly ? 0 : h, dateOnly ? 0 : mi, dateOnly ? 0 : s);
  if (edge === 'start') return ms;
  return ms + (dateOnly ? covers.dateOnlyToCoversMs : covers.dateTimeToCoversMs);
}

/** Calendar months added in UTC; the day is clamped to the target month's last day (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  const day = d.getUTCDate();
  const target = new Date(utcMs(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
  const last = new Date(utcMs(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, last));
  return target.getTime();
}

export interface Window { from: number; to: number }
/** The first and the last moment a REST date (`YYYY-MM-DD HH:MM:SS`, 4-digit years) names. */
const FIRST_REST_MS = utcMs(0, 0, 1);
const LAST_REST_MS = utcMs(9999, 11, 31, 23, 59, 59, 999);

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
  /** Days the period without from and to covers before `windows.none`'s months (the policy's defaultWindowExtraDays; 0 by default). */
  defaultWindowExtraDays?: number;
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
  // The end of the second holding ms (computed, not written and read again: a date past year 9999 has no REST spelling).
  const endOf = (ms: number) => ms - (((ms % 1000) + 1000) % 1000) + covers.dateTimeToCoversMs;
  // A one-sided period near year 0 or 9999 stops at the first or last moment a REST date can name (its answers' dates stay writable).
  const named = (w: Window): Window => ({ from: Math.max(w.from, FIRST_REST_MS), to: Math.min(w.to, LAST_REST_MS) });
  const span = (anchor: number, [a, b]: readonly [number, number]) => ({ from: addMonths(anchor, a), to: addMonths(anchor, b) });
  if (from === undefined && to === undefined) { const w = span(o.now, windows.none); return { from: w.from - (o.defaultWindowExtraDays ?? 0) * 86_400_000, to: w.to }; }
  if (to === undefined) { const w = span(from!, windows.from); return named({ from: w.from, to: endOf(w.to) }); }
  // Only to: the window ends at `to` itself (its whole second or day) when it ends where `to` is written.
  if (from === undefined) { const w = span(toAsWritten!, windows.to); return named({ from: w.from, to: w.to === toAsWritten ? to! : endOf(w.to) }); }
  // Compared as written: `from=2026-01-10&to=2026-04-10` is exactly 3 months even though `to` covers its whole day.
  if (o.maxMonths !== undefined && toAsWritten! > addMonths(from, o.maxMonths)) throw periodTooLong();
  return { from, to };
}
