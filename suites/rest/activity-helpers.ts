// Helpers of the activity checks (conversations, records, statistics): query strings, paging through lists, UTC date arithmetic written independently of the service.
import { expect, type Api } from '../fixtures/target.js';
import { expectPayload, under } from '../verdicts.js';

export interface Params { filters?: Record<string, string | number | undefined>; [param: string]: string | number | undefined | Record<string, string | number | undefined> }

/** `?a=1&filters[name]=v` with every part encoded. */
export function qs(p: Params = {}): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(p)) {
    if (k === 'filters' || v === undefined) continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v as string | number))}`);
  }
  for (const [k, v] of Object.entries(p.filters ?? {})) if (v !== undefined) parts.push(`${encodeURIComponent(`filters[${k}]`)}=${encodeURIComponent(String(v))}`);
  return parts.length ? '?' + parts.join('&') : '';
}

/** Every item of a list, page by page (limit 100), asserting each page is a success; `count` is the pagination count. */
export async function listAll(api: Api, path: string, p: Params = {}, opts: { key?: string; base?: 'sd' | 'ha' } = {}): Promise<{ items: any[]; count: number }> {
  const items: any[] = [];
  let count = 0;
  for (let page = 1; ; page++) {
    const res = await api.rest({ path: path + qs({ ...p, limit: 100, page }), key: opts.key, base: opts.base });
    expect(res.json?.meta?.status, `${path} page ${page}: ${res.json?.meta?.message ?? res.status}`).toBe('success');
    items.push(...res.json.data);
    count = res.json.pagination.count;
    if (page >= res.json.pagination.pages) break;
    expect(page, 'paging must end').toBeLessThan(50);
  }
  expect(items.length, `${path}: items across pages equal pagination.count`).toBe(count);
  return { items, count };
}

export const DAY = 86_400_000;
const pad = (n: number) => String(n).padStart(2, '0');
/** `YYYY-MM-DD HH:MM:SS` (UTC). */
export function fmt(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}
export const day = (ms: number) => fmt(ms).slice(0, 10);
/** Parses `YYYY-MM-DD HH:MM:SS` as UTC ms. */
export const parse = (s: string) => Date.parse(s.replace(' ', 'T') + 'Z');
/** A noon on a day of month <= 28, `months` calendar months before now (so month arithmetic never clamps). */
export function monthsAgo(months: number, now = Date.now()): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - months, Math.min(d.getUTCDate(), 28), 12, 0, 0);
}
/** Calendar months later, for days <= 28. */
export function plusMonths(ms: number, months: number): number {
  const d = new Date(ms);
  expect(d.getUTCDate(), 'plusMonths is only used on days <= 28').toBeLessThanOrEqual(28);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds());
}

export const ids = (items: Array<{ id: number }>) => items.map((i) => i.id).sort((a, b) => a - b);

export { otherKey } from '../fixtures/target.js';

/** The statistic indicators of the spec's table with their channel group, copied from the spec (not from the service). */
export const SPEC_INDICATORS: Record<string, 'G1' | 'G2' | 'G3' | 'G4'> = {
  contact_answered_after_first_message_duration: 'G1', contact_answered_duration: 'G1', contact_closed_after_last_message_duration: 'G1',
  contact_duration: 'G1', contact_number: 'G1', contact_sent_message_number: 'G1', contact_received_message_number: 'G1', contact_unanswered_number: 'G1',
  contact_missed_number: 'G2', contact_missed_with_busy_operators_number: 'G2', contact_missed_with_no_operators_number: 'G2', contact_simultaneous_number: 'G2',
  contact_waiting_abort_number: 'G3', contact_waiting_answered_number: 'G3', contact_waiting_before_quit_duration: 'G3', contact_waiting_duration: 'G3', contact_waiting_number: 'G3',
  contact_per_hour_average_number: 'G4', contact_per_hour_number: 'G4', rule_contact_rate: 'G4', rule_display_number: 'G4', targeting_rule_triggered: 'G4',
  max_and_partial_occupation_duration: 'G4', max_occupation_duration: 'G4', max_occupation_rate: 'G4', non_production_duration: 'G4', non_production_rate: 'G4',
  presentation_duration: 'G4', production_smoothed_duration: 'G4',
  presence_duration: 'G1', presence_smoothed_duration: 'G1', occupation_rate: 'G1', non_occupation_duration: 'G1', non_occupation_rate: 'G1',
  max_and_partial_occupation_rate: 'G1', production_duration: 'G1',
  conversion_rate: 'G1', cart_after_contact_amount: 'G1', cart_global_amount: 'G1', transaction_after_contact_amount: 'G1', transaction_after_contact_number: 'G1',
  transaction_total_amount: 'G1', transaction_total_number: 'G1', transaction_after_contact_duration: 'G1', transaction_after_conversation_amount_per_hour: 'G1',
  transaction_missed_with_busy_operators_amount: 'G1', transaction_missed_with_busy_operators_number: 'G1', transaction_missed_with_no_operators_amount: 'G1',
  transaction_missed_with_no_operators_number: 'G1', transaction_amount_per_conversation: 'G1',
};
export const SPEC_GROUPS = {
  G1: ['chat', 'call', 'video', 'social_a', 'social_b', 'social_c', 'sms', 'social_e'],
  G2: ['chat'], G3: ['chat', 'video'], G4: ['chat', 'call', 'video'],
} as const;
export const REMOVED = ['satisfaction_delay_rate', 'satisfaction_global_rate', 'satisfaction_resolution_rate', 'satisfaction_respondent_number',
  'satisfaction_respondent_rate', 'satisfaction_welcome_rate', 'occupation_duration'];

/** A past period well clear of today (so conversations created by other checks do not move it): [now-60d, now-1d]. */
export function pastPeriod(now = Date.now()): { from: string; to: string; fromMs: number; toMs: number } {
  const fromMs = Math.floor((now - 60 * DAY) / 1000) * 1000; const toMs = Math.floor((now - DAY) / 1000) * 1000;
  return { from: fmt(fromMs), to: fmt(toMs), fromMs, toMs };
}

/** The channels of the spec's Conversation table; other values (the reference's offsite names) are REST-CONV-14's decision. */
export const SPEC_CHANNELS = ['chat', 'call', 'video'];

/**
 * Asserts conversations (a list answer or one conversation) as the spec lists them: the schema, with each channel's value read
 * as a String only (which name an offsite channel has is REST-CONV-14's decision, judged there under its own clause).
 */
export function expectConversations(schemaId: string, json: any, what: string): void {
  const copy = structuredClone(json);
  const items = Array.isArray(copy?.data) ? copy.data : copy?.data ? [copy.data] : [];
  const names = items.map((c: any) => c?.channel);
  for (const c of items) if (c && typeof c.channel === 'string') c.channel = SPEC_CHANNELS[0];
  expectPayload(schemaId, copy, what);
  under('REST-CONV-14', () => expectPayload(schemaId, json, `${what} (channel names)`));
  for (const n of names) expect(typeof n, 'channel is a String').toBe('string');
}
