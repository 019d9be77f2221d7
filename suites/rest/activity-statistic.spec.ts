// REST GET /statistic (G14): row shapes, every indicator, values checked against other endpoints, filters, granularity, refused indicators.
import { test, expect, expectSchema, type Api } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { notJudgedIf, under } from '../verdicts.js';
import { checkTolerant } from '../../lib/schemas.js';
import { DAY, REMOVED, SPEC_GROUPS, SPEC_INDICATORS, day, listAll, otherKey, parse, pastPeriod, qs } from './activity-helpers.js';

const CONV = '/conversation.json-unicode';
type F = Record<string, string | number | undefined>;

async function stat(api: Api, filters: F, p: Record<string, string | number> = {}, key?: string) {
  return api.rest({ path: '/statistic' + qs({ ...p, filters }), key });
}
/**
 * The shape of a statistic answer is decision G14 (the spec: "not shown"): judged under REST-STAT-01 (REF) only. Values
 * in another shape cannot be read, so what the check judges is then NOT JUDGED, never a failure of a spec clause (G34).
 */
function g14(res: { json: any }, def: 'list' | 'dateList', resource?: string): void {
  const { errors } = checkTolerant(`rest/statistic.json#/$defs/${def}`, res.json);
  under('REST-STAT-01', () => expect(errors, `G14: the rows of GET /statistic (${def})`).toBeNull());
  // Another shape of the rows (a resource object where G14 says null) still leaves the values readable: only their absence stops the check.
  const rows: unknown[] | undefined = Array.isArray(res.json?.data) ? res.json.data : undefined;
  const readable = !!rows && rows.every((r: any) => (def === 'list' ? r?.indicators !== null && typeof r?.indicators === 'object' && (!resource || (r.resource !== null && typeof r.resource === 'object' && r.resource.id !== undefined)) : typeof r?.value === 'number'));
  notJudgedIf(!readable, `the answer is not in the shape of G14, so its values cannot be read: ${errors}`);
}
/** The indicators of the single row answered without resource. */
async function totals(api: Api, filters: F): Promise<Record<string, number>> {
  const res = await stat(api, filters);
  expect(res.json?.meta?.status, `statistic ${JSON.stringify(filters)}: ${res.json?.meta?.message}`).toBe('success');
  g14(res, 'list');
  under('REST-STAT-01', () => {
    expect(res.json.data, 'G14: without resource, one row').toHaveLength(1);
    expect(res.json.data[0].resource, 'G14: without resource, the row\'s resource is null').toBeNull();
  });
  notJudgedIf(res.json.data.length !== 1, `${res.json.data.length} rows answered without resource: which one holds the totals cannot be told`);
  return res.json.data[0].indicators;
}
/** Conversations of the past period with full history, and the websites they belong to. */
async function ground(api: Api, filters: F = {}, p = pastPeriod()) {
  const convs = (await listAll(api, CONV, { formatHistory: 0, full: 1, filters: { from: p.from, to: p.to, ...filters } })).items;
  const websites = [...new Set(convs.map((c) => c.website_id as number))].sort((a, b) => a - b);
  return { p, convs, websites };
}
const fail400 = (res: { status: number; json: any }, what: string) => {
  expect(res.status, what).toBe(400);
  expect(res.json?.meta?.status, what).toBe('fail');
};

test('without resource the answer is one row with resource null and the indicators asked for', clauses('REST-STAT-01'), async ({ api }) => {
  const res = await stat(api, { indicators: 'contact_number,transaction_total_number' });
  expectSchema('rest/statistic.json#/$defs/list', res.json);
  expect(res.json.data).toEqual([{ resource: null, indicators: { contact_number: expect.any(Number), transaction_total_number: expect.any(Number) } }]);
  const ha = await api.rest({ path: '/statistic' + qs({ filters: { indicators: 'contact_number,transaction_total_number' } }), base: 'ha' });
  expect(ha.json?.data, 'the high-availability base answers the same').toEqual(res.json.data);
});

test('every indicator of the spec table is served as a number', clauses('REST-STAT-02', 'REST-STAT-01'), async ({ api }) => under('REST-STAT-02', async () => {
  const names = Object.keys(SPEC_INDICATORS);
  const ind = await totals(api, { indicators: names.join(',') });
  expect(Object.keys(ind).sort()).toEqual([...names].sort());
  for (const n of names) expect(Number.isFinite(ind[n]), `${n} is a finite number`).toBe(true);
  const one = await totals(api, { indicators: 'rule_display_number' });
  expect(Object.keys(one)).toEqual(['rule_display_number']);
}));

test('contact and message indicators equal what the conversation listing shows', clauses('REST-STAT-03', 'REST-STAT-01'), async ({ api }) => under('REST-STAT-03', async () => {
  const { p, websites } = await ground(api);
  const w = websites[0]!;
  for (const channel of [undefined, 'chat', 'call', 'social_a']) {
    // The conversation listing filters offsite channels as `social`: the network is picked from its items.
    const listed = (await ground(api, { website_id: w, channel: channel?.startsWith('social_') ? 'social' : channel }, p)).convs;
    const convs = channel?.startsWith('social_') ? listed.filter((c) => c.channel === channel) : listed;
    expect(convs.length, `conversations on website ${w} ${channel ?? 'all channels'}`).toBeGreaterThan(0);
    const ind = await totals(api, { website_list: w, channel, from: p.from, to: p.to,
      indicators: 'contact_number,contact_unanswered_number,contact_sent_message_number,contact_received_message_number' });
    const entries = convs.flatMap((c) => c.history as any[][]);
    const what = `website ${w}, ${channel ?? 'all channels'}, ${p.from}..${p.to}`;
    expect(ind.contact_number, `contact_number = conversations listed (${what})`).toBe(convs.length);
    expect(ind.contact_unanswered_number, `unanswered = conversations with operator_answer false (${what})`).toBe(convs.filter((c) => !c.operator_answer).length);
    expect(ind.contact_sent_message_number, `sent = code 1 and 6 entries (${what})`).toBe(entries.filter((e) => e[0] === 1 || e[0] === 6).length);
    expect(ind.contact_received_message_number, `received = code 2 and 7 entries (${what})`).toBe(entries.filter((e) => e[0] === 2 || e[0] === 7).length);
  }
}));

test('duration and waiting indicators equal the averages computed from the listed conversations', clauses('REST-STAT-03', 'REST-STAT-01'), async ({ api }) => under('REST-STAT-03', async () => {
  const { p, convs } = await ground(api, { channel: 'chat' });
  const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  // By their epochs, whatever order the entries are listed in (their order is REST-HIST-03's decision, not this clause's).
  const epochs = (c: any, code: number, after = -Infinity) => (c.history as any[][]).filter((e) => e[0] === code && e[3] >= after).map((e) => e[3] as number);
  const at = (c: any, code: number, after = -Infinity) => { const xs = epochs(c, code, after); return xs.length ? Math.min(...xs) : undefined; };
  const lastVisitor = (c: any) => { const xs = epochs(c, 2); return xs.length ? Math.max(...xs) : undefined; };
  const ind = await totals(api, { channel: 'chat', from: p.from, to: p.to, indicators: 'contact_duration,contact_answered_duration,contact_answered_after_first_message_duration,contact_closed_after_last_message_duration,contact_waiting_number' });
  const closed = convs.filter((c) => c.closed_at);
  // Listed dates have whole seconds while the service keeps milliseconds: tolerance 1 s on averages built from them.
  expect(Math.abs(ind.contact_duration! - avg(closed.map((c) => (parse(c.closed_at) - parse(c.created_at)) / 1000))), 'contact_duration (tolerance 1 s)').toBeLessThanOrEqual(1);
  const answered = convs.flatMap((c) => { const a = at(c, 1); return a === undefined ? [] : [(a - parse(c.created_at)) / 1000]; });
  expect(Math.abs(ind.contact_answered_duration! - avg(answered)), 'contact_answered_duration (tolerance 1 s)').toBeLessThanOrEqual(1);
  const afterFirst = convs.flatMap((c) => { const q = at(c, 2); const a = q === undefined ? undefined : at(c, 1, q); return q !== undefined && a !== undefined ? [(a - q) / 1000] : []; });
  expect(afterFirst.length).toBeGreaterThan(0);
  expect(Math.abs(ind.contact_answered_after_first_message_duration! - avg(afterFirst)), 'answered after first message (epochs, tolerance 0.01 s)').toBeLessThanOrEqual(0.01);
  const closing = closed.flatMap((c) => { const v = lastVisitor(c); return v === undefined ? [] : [(parse(c.closed_at) - v) / 1000]; });
  expect(Math.abs(ind.contact_closed_after_last_message_duration! - avg(closing)), 'closed after last message (tolerance 1 s)').toBeLessThanOrEqual(1);
  expect(ind.contact_waiting_number, 'queued conversations = waitinglist true').toBe(convs.filter((c) => c.waitinglist).length);
}));

test('transaction indicators equal the counts and sums of /transaction', clauses('REST-STAT-04', 'REST-STAT-01'), async ({ api }) => under('REST-STAT-04', async () => {
  const { p, websites, convs } = await ground(api);
  for (const w of websites) {
    const all = (await listAll(api, '/transaction', { full: 1, filters: { website_id: w, from: p.from, to: p.to } })).items;
    const linked = all.filter((t) => t.conversation_id !== null);
    const ind = await totals(api, { website_list: w, from: p.from, to: p.to,
      indicators: 'transaction_total_number,transaction_total_amount,transaction_after_contact_number,transaction_after_contact_amount' });
    const sum = (ts: any[]) => ts.reduce((a, t) => a + t.amount, 0);
    expect(all.length, `transactions on website ${w}`).toBeGreaterThan(0);
    expect(ind.transaction_total_number).toBe(all.length);
    expect(ind.transaction_total_amount).toBeCloseTo(sum(all), 1);
    expect(ind.transaction_after_contact_number).toBe(linked.length);
    expect(ind.transaction_after_contact_amount).toBeCloseTo(sum(linked), 1);
    const more = await totals(api, { website_list: w, from: p.from, to: p.to, indicators: 'cart_global_amount,cart_after_contact_amount,conversion_rate,transaction_amount_per_conversation,contact_number' });
    expect(more.cart_global_amount, 'average order value').toBeCloseTo(sum(all) / all.length, 1);
    expect(more.cart_after_contact_amount, 'average order value after a contact').toBeCloseTo(linked.length ? sum(linked) / linked.length : 0, 1);
    const convIds = new Set(convs.filter((c) => c.website_id === w).map((c) => c.id));
    const converted = new Set(linked.map((t) => t.conversation_id).filter((id) => convIds.has(id)));
    expect(more.conversion_rate, 'conversations of the period with a transaction / conversations').toBeCloseTo(converted.size / more.contact_number!, 3);
    expect(more.transaction_amount_per_conversation).toBeCloseTo(sum(linked) / more.contact_number!, 1);
  }
}));

test('the channel filter restricts the data to that channel', clauses('REST-STAT-05', 'REST-STAT-01'), async ({ api }) => under('REST-STAT-05', async () => {
  const p = pastPeriod();
  const all = await totals(api, { from: p.from, to: p.to, indicators: 'contact_number,rule_display_number' });
  expect(all.contact_number, 'conversations in the period').toBeGreaterThan(0);
  let onsite = 0;
  for (const channel of ['chat', 'call', 'video']) {
    const ind = await totals(api, { channel, from: p.from, to: p.to, indicators: 'contact_number,rule_display_number' });
    expect(ind.contact_number, `contact_number on ${channel} is part of all channels`).toBeLessThanOrEqual(all.contact_number!);
    expect(ind.rule_display_number).toBeLessThanOrEqual(all.rule_display_number!);
    onsite += ind.contact_number!;
  }
  expect(onsite, 'the channels add up to at most all channels').toBeLessThanOrEqual(all.contact_number!);
  for (const channel of ['social_a', 'social_b', 'social_c', 'sms', 'social_e']) {
    const ind = await totals(api, { channel, from: p.from, to: p.to, indicators: 'contact_number' });
    onsite += ind.contact_number!;
  }
  expect(onsite, 'every G1 channel together is at most all channels').toBeLessThanOrEqual(all.contact_number!);
}));

test('resource groups the data per operator, and resource_id keeps one', clauses('REST-STAT-06', 'REST-STAT-01'), async ({ api }) => under('REST-STAT-06', async () => {
  const { p, convs } = await ground(api);
  const res = await stat(api, { resource: 'operator', from: p.from, to: p.to, indicators: 'contact_number' }, { limit: 100 });
  g14(res, 'list', 'operator');
  const rows = res.json.data as Array<{ resource: { type: string; id: number }; indicators: { contact_number: number } }>;
  expect(rows.length).toBeGreaterThan(1);
  expect(new Set(rows.map((r) => r.resource.id)).size, 'one row per operator').toBe(rows.length);
  // The row's resource object is G14's shape (REF): its type judged there, its id read (g14 made sure it can be).
  under('REST-STAT-01', () => { for (const r of rows) expect(r.resource.type).toBe('operator'); });
  expect(rows.reduce((a, r) => a + r.indicators.contact_number, 0), 'operators share the conversations').toBeLessThanOrEqual(convs.length);
  const busiest = [...rows].sort((a, b) => b.indicators.contact_number - a.indicators.contact_number)[0]!;
  const one = await stat(api, { resource: 'operator', resource_id: busiest.resource.id, from: p.from, to: p.to, indicators: 'contact_number' });
  expect(one.json.data).toEqual([busiest]);
}));

for (const type of ['group', 'skill', 'rule', 'contact_type', 'page_type'] as const) {
  test(`resource=${type} answers one row per ${type}`, clauses('REST-STAT-06', 'REST-STAT-01'), async ({ api }) => under('REST-STAT-06', async () => {
    const { p, convs } = await ground(api);
    const res = await stat(api, { resource: type, from: p.from, to: p.to, indicators: 'contact_number' }, { limit: 100 });
    g14(res, 'list', type);
    const rows = res.json.data as Array<{ resource: { type: string; id: number | string }; indicators: { contact_number: number } }>;
    expect(rows.length).toBeGreaterThan(0);
    under('REST-STAT-01', () => { for (const r of rows) expect(r.resource.type).toBe(type); });
    expect(new Set(rows.map((r) => r.resource.id)).size).toBe(rows.length);
    if (type === 'contact_type' || type === 'page_type') {
      expect(rows.reduce((a, r) => a + r.indicators.contact_number, 0), 'every conversation has one').toBe(convs.length);
    }
    if (type === 'rule') {
      const displays = await stat(api, { resource: type, from: p.from, to: p.to, indicators: 'rule_display_number' }, { limit: 100 });
      const total = await totals(api, { from: p.from, to: p.to, indicators: 'rule_display_number' });
      expect(total.rule_display_number, 'displays in the period').toBeGreaterThan(0);
      expect(displays.json.data.reduce((a: number, r: any) => a + r.indicators.rule_display_number, 0), 'every display belongs to one rule').toBe(total.rule_display_number);
    }
  }));
}

test('per resource, contact_number equals the conversations listed for it', clauses('REST-STAT-03', 'REST-STAT-01'), async ({ api }) => under('REST-STAT-03', async () => {
  const { p, convs } = await ground(api);
  for (const [type, value] of [['operator', (c: any) => c.operator_id], ['skill', (c: any) => c.skill_id], ['rule', (c: any) => c.rule_id], ['page_type', (c: any) => c.page_type]] as const) {
    const res = await stat(api, { resource: type, from: p.from, to: p.to, indicators: 'contact_number' }, { limit: 100 });
    g14(res, 'list', type);
    const rows = res.json.data as Array<{ resource: { id: number | string }; indicators: { contact_number: number } }>;
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.indicators.contact_number, `${type} ${r.resource.id}`).toBe(convs.filter((c) => value(c) === r.resource.id).length);
  }
}));

test('website_list restricts to those websites; website_id gives the same answer', clauses('REST-STAT-07', 'REST-STAT-01'), async ({ api }) => under('REST-STAT-07', async () => {
  const { p, convs, websites } = await ground(api);
  expect(websites.length, 'the client has two websites with conversations').toBeGreaterThan(1);
  const f = { from: p.from, to: p.to, indicators: 'contact_number,transaction_total_number' };
  const all = await totals(api, f);
  let sum = 0;
  for (const w of websites) {
    const a = await totals(api, { ...f, website_list: w });
    expect(a.contact_number, `website ${w} is part of the whole`).toBeLessThan(all.contact_number!);
    expect(a.contact_number, `website ${w} has conversations`).toBeGreaterThan(0);
    const b = await totals(api, { ...f, website_id: w });
    expect(b, 'the deprecated website_id answers as website_list').toEqual(a);
    sum += a.contact_number!;
  }
  const both = await totals(api, { ...f, website_list: websites.join(',') });
  expect(both.contact_number, 'a comma list covers each of its websites').toBe(sum);
  expect(convs.length).toBeGreaterThan(0);
}));

test('granularity day, hour and month answer one {date, value} row per bucket adding up to the total', clauses('REST-STAT-08', 'REST-STAT-01'), async ({ api }) => under('REST-STAT-08', async () => {
  const d1 = Date.now() - 40 * DAY; const d2 = Date.now() - 11 * DAY;
  const f = { from: day(d1), to: day(d2), indicators: 'contact_number' };
  const total = (await totals(api, f)).contact_number!;
  expect(total).toBeGreaterThan(0);
  const byDay = await stat(api, { ...f, granularity: 'day' }, { limit: 100 });
  g14(byDay, 'dateList');
  const rows = byDay.json.data as Array<{ date: string; value: number }>;
  expect(rows.length, 'one row per day of the period').toBe(30);
  rows.forEach((r, i) => expect(r.date).toBe(`${day(parse(day(d1) + ' 00:00:00') + i * DAY)} 00:00:00`));
  expect(rows.reduce((a, r) => a + r.value, 0), 'days add up to the total').toBe(total);

  const h = { from: `${day(d1)} 00:00:00`, to: `${day(d1 + DAY)} 23:59:59`, indicators: 'contact_number' };
  const byHour = await stat(api, { ...h, granularity: 'hour' }, { limit: 100 });
  g14(byHour, 'dateList');
  expect(byHour.json.data.length, 'two days of hours').toBe(48);
  for (const r of byHour.json.data) expect(r.date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:00:00$/);
  expect(byHour.json.data.reduce((a: number, r: any) => a + r.value, 0)).toBe((await totals(api, h)).contact_number);

  const ops = await stat(api, { ...f, resource: 'operator' }, { limit: 100 });
  const op = (ops.json.data as any[]).sort((a, b) => b.indicators.contact_number - a.indicators.contact_number)[0];
  const opDays = await stat(api, { ...f, resource: 'operator', resource_id: op.resource.id, granularity: 'day' }, { limit: 100 });
  g14(opDays, 'dateList');
  expect(opDays.json.data.reduce((a: number, r: any) => a + r.value, 0), `days of operator ${op.resource.id} add up to its total`).toBe(op.indicators.contact_number);

  const byMonth = await stat(api, { ...f, granularity: 'month' }, { limit: 100 });
  g14(byMonth, 'dateList');
  for (const r of byMonth.json.data) expect(r.date).toMatch(/^\d{4}-\d{2}-01 00:00:00$/);
  expect(byMonth.json.data.reduce((a: number, r: any) => a + r.value, 0)).toBe(total);
}));

test('granularity with more than one indicator is a 400 fail', clauses('REST-STAT-09'), async ({ api }) => {
  fail400(await stat(api, { granularity: 'day', indicators: 'contact_number,rule_display_number' }), 'two indicators');
  fail400(await stat(api, { granularity: 'month' }), 'every indicator (none named)');
  const ok = await stat(api, { granularity: 'month', indicators: 'contact_number' });
  expect(ok.json?.meta?.status).toBe('success');
});

for (const name of REMOVED) {
  test(`removed indicator ${name} is not served`, clauses('REST-STAT-10'), async ({ api }) => {
    const res = await stat(api, { indicators: `contact_number,${name}` });
    // Not served: refused (REST-STAT-11 is the reference's 400), or left out of a success; never a value under its name.
    expect(['success', 'fail', 'error'], `neither an answer nor a refusal: ${res.status} ${res.text.slice(0, 200)}`).toContain(res.json?.meta?.status);
    expect(JSON.stringify(res.json?.data ?? null), `${name} is served`).not.toContain(`"${name}"`);
  });
}

test('asking for a removed indicator is a 400 fail saying it is no longer served', clauses('REST-STAT-11'), async ({ api }) => {
  for (const name of REMOVED) {
    const res = await stat(api, { indicators: name });
    fail400(res, name);
    expect(res.json.meta.message).toContain(name);
    expect(res.json.meta.message).toMatch(/no longer served/);
  }
});

test('an unknown indicator is a 400 fail naming it', clauses('REST-STAT-12'), async ({ api }) => {
  const res = await stat(api, { indicators: 'contact_number,contact_happiness_rate' });
  fail400(res, 'unknown indicator');
  expect(res.json.meta.message).toContain('contact_happiness_rate');
});

test('an indicator asked for a channel outside its group is a 400 fail', clauses('REST-STAT-13'), async ({ api }) => {
  const outside: Array<[string, string]> = [];
  const inside: Array<[string, string]> = [];
  for (const [name, g] of Object.entries(SPEC_INDICATORS)) {
    const group: readonly string[] = SPEC_GROUPS[g];
    const out = ['call', 'video', 'social_d', 'sms'].find((c) => !group.includes(c));
    if (out) outside.push([name, out]);
    inside.push([name, group[group.length - 1]!]);
  }
  for (const [name, channel] of outside.filter((_, i) => i % 3 === 0)) {
    const res = await stat(api, { channel, indicators: name });
    fail400(res, `${name} on ${channel}`);
    expect(res.json.meta.message).toContain(name);
    expect(res.json.meta.message).toContain(channel);
  }
  for (const [name, channel] of inside.filter((_, i) => i % 5 === 0)) {
    const res = await stat(api, { channel, indicators: name });
    expect(res.json?.meta?.status, `${name} on ${channel} is in its group`).toBe('success');
  }
});

test('presence, occupation and production indicators are consistent', clauses('REST-STAT-14', 'REST-STAT-01'), async ({ api }) => under('REST-STAT-14', async () => {
  const names = ['presence_duration', 'presence_smoothed_duration', 'production_duration', 'production_smoothed_duration', 'non_production_duration',
    'non_occupation_duration', 'max_occupation_duration', 'max_and_partial_occupation_duration', 'presentation_duration',
    'max_occupation_rate', 'occupation_rate', 'max_and_partial_occupation_rate', 'non_occupation_rate', 'non_production_rate'];
  const i = await totals(api, { indicators: names.join(',') });
  expect(i.production_duration, 'production is measured over the seeded presence').toBeGreaterThan(0);
  const close = (a: number, b: number, what: string) => expect(Math.abs(a - b), `${what}: ${a} vs ${b} (tolerance 1 s / 0.001)`).toBeLessThanOrEqual(1);
  close(i.presence_duration!, i.production_duration! + i.non_production_duration!, 'presence = production + non-production');
  close(i.production_duration!, i.non_occupation_duration! + i.max_and_partial_occupation_duration!, 'production = available + occupied');
  expect(i.presence_smoothed_duration!).toBeLessThanOrEqual(i.presence_duration!);
  expect(i.production_smoothed_duration!).toBeLessThanOrEqual(i.production_duration!);
  expect(i.presentation_duration!).toBeLessThanOrEqual(i.non_occupation_duration!);
  expect(i.max_occupation_duration!).toBeLessThanOrEqual(i.max_and_partial_occupation_duration!);
  for (const r of names.filter((n) => n.endsWith('_rate'))) { expect(i[r]!).toBeGreaterThanOrEqual(0); expect(i[r]!).toBeLessThanOrEqual(1); }
  const ratio = (a: number, b: number, rate: number, what: string) => expect(Math.abs(a / b - rate), what).toBeLessThan(0.001);
  ratio(i.max_occupation_duration!, i.production_duration!, i.max_occupation_rate!, 'max_occupation_rate');
  ratio(i.max_and_partial_occupation_duration!, i.production_duration!, i.max_and_partial_occupation_rate!, 'max_and_partial_occupation_rate');
  ratio(i.non_occupation_duration!, i.production_duration!, i.non_occupation_rate!, 'non_occupation_rate');
  ratio(i.non_production_duration!, i.presence_duration!, i.non_production_rate!, 'non_production_rate');
  ratio(i.max_and_partial_occupation_duration! - i.max_occupation_duration!, i.production_duration!, i.occupation_rate!, 'occupation_rate (partial only)');
}));

test("a website of another client in website_list is refused", clauses('REST-STAT-15').needs('second_client_key'), async ({ api, target }) => {
  const key2 = otherKey(target);
  const theirs = await api.rest({ path: CONV + qs({ limit: 1 }), key: key2 });
  const w = theirs.json.data[0].website_id;
  const res = await stat(api, { website_list: w, indicators: 'contact_number' });
  expect(res.json?.meta).toMatchObject({ status: 'fail', message: `Unknown 'website' with 'id' ${w}.` });
  const mine = await stat(api, { website_list: w, indicators: 'contact_number' }, {}, key2);
  expect(mine.json?.meta?.status, 'the owner may ask for it').toBe('success');
});

test('list filters as PHP sends them (filters[indicators][0]=a, filters[indicators][]=a) mean the comma list', clauses('REST-STAT-16'), async ({ api }) => {
  const names = ['contact_number', 'transaction_total_number'];
  const spec = await api.rest({ path: `/statistic?filters[indicators]=${names.join(',')}` });
  expect(spec.json?.meta?.status, spec.text).toBe('success');
  const indexed = await api.rest({ path: `/statistic?${names.map((n, i) => `filters[indicators][${i}]=${n}`).join('&')}` });
  expect(indexed.json?.meta?.status, `http_build_query's indexed form must be accepted (G26): ${indexed.text}`).toBe('success');
  expect(Object.keys(indexed.json.data[0].indicators).sort()).toEqual([...names].sort());
  const brackets = await api.rest({ path: `/statistic?${names.map((n) => `filters[indicators][]=${n}`).join('&')}` });
  expect(brackets.json?.meta?.status, `the bracket form must be accepted (G26): ${brackets.text}`).toBe('success');
  expect(brackets.json.data).toEqual(spec.json.data);
  expect(indexed.json.data).toEqual(spec.json.data);
});
