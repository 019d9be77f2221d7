// The statistic indicators of the spec's table, each computed from stored data over a scope (conversations, messages, waiting, displays, presence, transactions).
import type { Row } from '../list.js';

/** The spec's channel groups (their channels: rest/policy.ts CHANNEL_GROUPS). */
export type ChannelGroup = 'G1' | 'G2' | 'G3' | 'G4';

/** Channels the `channel` filter of /statistic accepts, in the spec's order. */
export const STATISTIC_CHANNELS = ['chat', 'call', 'social_a', 'social_b', 'social_c', 'social_d', 'sms', 'social_e', 'video'] as const;

/** Indicators the spec lists as removed (no longer served by REST). */
export const REMOVED_INDICATORS = ['satisfaction_delay_rate', 'satisfaction_global_rate', 'satisfaction_resolution_rate', 'satisfaction_respondent_number',
  'satisfaction_respondent_rate', 'satisfaction_welcome_rate', 'occupation_duration'] as const;

export interface Conv { row: Row; entries: Array<{ code: number; at: number }> }
export interface Period { start: number; end: number; state: string; operator_id: number }

/** What an indicator is computed over: the rows of one resource (or all), in one period (or one granularity bucket). */
export interface Scope {
  from: number;
  to: number;
  convs: Conv[];
  transactions: Row[];
  displays: Row[];
  /** Presence periods of the scope's operators, clipped to [from, to]. */
  presence: Period[];
  /** Presence of every operator of the request (not only the resource's): who could have answered a display. */
  availability: Period[];
  /** Every conversation of the client by id (a transaction's conversation may predate the period). */
  convById: { get(id: number): Conv | undefined };
  /** Deviation rest-statistic-rate-wrong-base: non_production_rate over production time instead of connection time. */
  /** Presence states the non-production rate is over (undefined: all of them). */
  nonProductionBase?: string[];
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
const avg = (xs: number[]) => (xs.length ? r2(xs.reduce((a, b) => a + b, 0) / xs.length) : 0);
const ratio = (a: number, b: number) => (b > 0 ? r4(a / b) : 0);
const per = (a: number, b: number) => (b > 0 ? r2(a / b) : 0);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const secs = (ms: number) => r2(ms / 1000);

const BUSY = ['partial', 'full'];
const PRODUCTION = ['available', 'partial', 'full'];

function lengthOf(ps: Period[], states?: string[]): number {
  return sum(ps.filter((p) => !states || states.includes(p.state)).map((p) => p.end - p.start));
}
/** Length of the union of periods: time during which at least one operator was in one of the states. */
function unionOf(ps: Period[], states?: string[]): number {
  const xs = ps.filter((p) => !states || states.includes(p.state)).map((p) => [p.start, p.end] as const).sort((a, b) => a[0] - b[0]);
  let total = 0; let cs = -Infinity; let ce = -Infinity;
  for (const [s, e] of xs) {
    if (s > ce) { if (ce > cs) total += ce - cs; cs = s; ce = e; } else ce = Math.max(ce, e);
  }
  if (ce > cs) total += ce - cs;
  return total;
}

const firstAt = (c: Conv, code: number, after = -Infinity) => c.entries.find((e) => e.code === code && e.at >= after)?.at;
const lastAt = (c: Conv, code: number) => [...c.entries].reverse().find((e) => e.code === code)?.at;
const countCodes = (cs: Conv[], codes: number[]) => sum(cs.map((c) => c.entries.filter((e) => codes.includes(e.code)).length));

/** A display that generated no contact while no operator was available: missed, because busy or because nobody was there. */
function missed(s: Scope): { busy: number; none: number } {
  let busy = 0; let none = 0;
  for (const d of s.displays) {
    if (!d.triggered || d.contacted) continue;
    const at = d.at as number;
    const states = s.availability.filter((p) => p.start <= at && at < p.end).map((p) => p.state);
    if (states.includes('available')) continue;
    if (states.some((st) => BUSY.includes(st))) busy++; else none++;
  }
  return { busy, none };
}

const linked = (s: Scope) => s.transactions.filter((t) => t.conversation_id !== null);
const amount = (ts: Row[]) => r2(sum(ts.map((t) => Number(t.amount))));
const conversionRate = (s: Scope) => {
  const withTrx = new Set(linked(s).map((t) => t.conversation_id));
  return ratio(s.convs.filter((c) => withTrx.has(c.row.id)).length, s.convs.length);
};
const hours = (ms: number) => ms / 3_600_000;

export interface Indicator { unit: 's' | 'n' | 'rate' | 'amt' | 'not shown'; group: ChannelGroup; compute: (s: Scope) => number }

export const INDICATORS: Record<string, Indicator> = {
  contact_answered_after_first_message_duration: { unit: 's', group: 'G1', compute: (s) => avg(s.convs.flatMap((c) => {
    const q = firstAt(c, 2); const a = q === undefined ? undefined : firstAt(c, 1, q);
    return q !== undefined && a !== undefined ? [secs(a - q)] : [];
  })) },
  contact_answered_duration: { unit: 's', group: 'G1', compute: (s) => avg(s.convs.flatMap((c) => {
    const a = firstAt(c, 1);
    return a !== undefined ? [secs(a - c.row.created_at)] : [];
  })) },
  contact_closed_after_last_message_duration: { unit: 's', group: 'G1', compute: (s) => avg(s.convs.flatMap((c) => {
    const v = lastAt(c, 2);
    return v !== undefined && c.row.closed_at ? [secs(c.row.closed_at - v)] : [];
  })) },
  contact_duration: { unit: 's', group: 'G1', compute: (s) => avg(s.convs.filter((c) => c.row.closed_at).map((c) => secs(c.row.closed_at - c.row.created_at))) },
  contact_number: { unit: 'n', group: 'G1', compute: (s) => s.convs.length },
  contact_sent_message_number: { unit: 'n', group: 'G1', compute: (s) => countCodes(s.convs, [1, 6]) },
  contact_received_message_number: { unit: 'n', group: 'G1', compute: (s) => countCodes(s.convs, [2, 7]) },
  contact_unanswered_number: { unit: 'n', group: 'G1', compute: (s) => s.convs.filter((c) => !c.row.operator_answer).length },
  contact_missed_number: { unit: 'n', group: 'G2', compute: (s) => { const m = missed(s); return m.busy + m.none; } },
  contact_missed_with_busy_operators_number: { unit: 'n', group: 'G2', compute: (s) => missed(s).busy },
  contact_missed_with_no_operators_number: { unit: 'n', group: 'G2', compute: (s) => missed(s).none },
  contact_simultaneous_number: { unit: 'n', group: 'G2', compute: (s) => per(
    sum(s.convs.filter((c) => c.row.operator_id !== null && c.row.closed_at).map((c) => c.row.closed_at - c.row.created_at)), lengthOf(s.presence, PRODUCTION)) },
  contact_waiting_abort_number: { unit: 'n', group: 'G3', compute: (s) => s.convs.filter((c) => c.row.waitinglist && c.row.waiting_aborted).length },
  contact_waiting_answered_number: { unit: 'n', group: 'G3', compute: (s) => s.convs.filter((c) => c.row.waitinglist && !c.row.waiting_aborted).length },
  contact_waiting_before_quit_duration: { unit: 's', group: 'G3', compute: (s) => avg(s.convs.filter((c) => c.row.waitinglist && c.row.waiting_aborted).map((c) => secs(c.row.waiting_ms))) },
  contact_waiting_duration: { unit: 's', group: 'G3', compute: (s) => avg(s.convs.filter((c) => c.row.waitinglist).map((c) => secs(c.row.waiting_ms))) },
  contact_waiting_number: { unit: 'n', group: 'G3', compute: (s) => s.convs.filter((c) => c.row.waitinglist).length },
  contact_per_hour_average_number: { unit: 'n', group: 'G4', compute: (s) => per(s.convs.length, hours(unionOf(s.presence, PRODUCTION))) },
  contact_per_hour_number: { unit: 'n', group: 'G4', compute: (s) => per(s.convs.length, hours(lengthOf(s.presence, PRODUCTION))) },
  rule_contact_rate: { unit: 'rate', group: 'G4', compute: (s) => ratio(s.displays.filter((d) => d.contacted).length, s.displays.length) },
  rule_display_number: { unit: 'n', group: 'G4', compute: (s) => s.displays.length },
  targeting_rule_triggered: { unit: 'n', group: 'G4', compute: (s) => s.displays.filter((d) => d.triggered).length },
  max_and_partial_occupation_duration: { unit: 's', group: 'G4', compute: (s) => secs(lengthOf(s.presence, BUSY)) },
  max_occupation_duration: { unit: 's', group: 'G4', compute: (s) => secs(lengthOf(s.presence, ['full'])) },
  max_occupation_rate: { unit: 'rate', group: 'G4', compute: (s) => ratio(lengthOf(s.presence, ['full']), lengthOf(s.presence, PRODUCTION)) },
  non_production_duration: { unit: 's', group: 'G4', compute: (s) => secs(lengthOf(s.presence, ['unavailable'])) },
  non_production_rate: { unit: 'rate', group: 'G4', compute: (s) => ratio(lengthOf(s.presence, ['unavailable']), lengthOf(s.presence, s.nonProductionBase)) },
  presentation_duration: { unit: 's', group: 'G4', compute: (s) => secs(unionOf(s.presence, ['available'])) },
  production_smoothed_duration: { unit: 's', group: 'G4', compute: (s) => secs(unionOf(s.presence, PRODUCTION)) },
  presence_duration: { unit: 'not shown', group: 'G1', compute: (s) => secs(lengthOf(s.presence)) },
  presence_smoothed_duration: { unit: 'not shown', group: 'G1', compute: (s) => secs(unionOf(s.presence)) },
  occupation_rate: { unit: 'not shown', group: 'G1', compute: (s) => ratio(lengthOf(s.presence, ['partial']), lengthOf(s.presence, PRODUCTION)) },
  non_occupation_duration: { unit: 'not shown', group: 'G1', compute: (s) => secs(lengthOf(s.presence, ['available'])) },
  non_occupation_rate: { unit: 'not shown', group: 'G1', compute: (s) => ratio(lengthOf(s.presence, ['available']), lengthOf(s.presence, PRODUCTION)) },
  max_and_partial_occupation_rate: { unit: 'not shown', group: 'G1', compute: (s) => ratio(lengthOf(s.presence, BUSY), lengthOf(s.presence, PRODUCTION)) },
  production_duration: { unit: 'not shown', group: 'G1', compute: (s) => secs(lengthOf(s.presence, PRODUCTION)) },
  conversion_rate: { unit: 'rate', group: 'G1', compute: conversionRate },
  cart_after_contact_amount: { unit: 'n', group: 'G1', compute: (s) => avg(linked(s).map((t) => Number(t.amount))) },
  cart_global_amount: { unit: 'amt', group: 'G1', compute: (s) => avg(s.transactions.map((t) => Number(t.amount))) },
  transaction_after_contact_amount: { unit: 'amt', group: 'G1', compute: (s) => amount(linked(s)) },
  transaction_after_contact_number: { unit: 'n', group: 'G1', compute: (s) => linked(s).length },
  transaction_total_amount: { unit: 'amt', group: 'G1', compute: (s) => amount(s.transactions) },
  transaction_total_number: { unit: 'n', group: 'G1', compute: (s) => s.transactions.length },
  transaction_after_contact_duration: { unit: 's', group: 'G1', compute: (s) => avg(linked(s).flatMap((t) => {
    const c = s.convById.get(t.conversation_id);
    const first = c?.entries.find((e) => e.code === 1 || e.code === 2)?.at;
    // A transaction recorded before the first exchange counts as immediate.
    return first === undefined ? [] : [secs(Math.max(0, t.created_at - first))];
  })) },
  transaction_after_conversation_amount_per_hour: { unit: 'amt', group: 'G1', compute: (s) => per(amount(linked(s)), hours(lengthOf(s.presence, PRODUCTION))) },
  transaction_missed_with_busy_operators_amount: { unit: 'amt', group: 'G1', compute: (s) => r2(missed(s).busy * conversionRate(s) * INDICATORS.cart_after_contact_amount!.compute(s)) },
  transaction_missed_with_busy_operators_number: { unit: 'n', group: 'G1', compute: (s) => r2(missed(s).busy * conversionRate(s)) },
  transaction_missed_with_no_operators_amount: { unit: 'amt', group: 'G1', compute: (s) => r2(missed(s).none * conversionRate(s) * INDICATORS.cart_after_contact_amount!.compute(s)) },
  transaction_missed_with_no_operators_number: { unit: 'n', group: 'G1', compute: (s) => r2(missed(s).none * conversionRate(s)) },
  transaction_amount_per_conversation: { unit: 'amt', group: 'G1', compute: (s) => per(amount(linked(s)), s.convs.length) },
};

export const INDICATOR_NAMES = Object.keys(INDICATORS);
