// Unit tests of the REST activity area: period arithmetic, the 3-month window rules, indicator computations, and routes through inject().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../reference-impl/app.js';
import { addMonths, conversationWindow, parseRestDate } from '../reference-impl/rest/activity/period.js';
import { INDICATORS, type Scope } from '../reference-impl/rest/activity/indicators.js';
import { RestFail, TEXT } from '../reference-impl/rest/envelope.js';

const U = (s: string) => Date.parse(s.replace(' ', 'T') + 'Z');

test('addMonths uses calendar months in UTC and clamps to the last day of the month', () => {
  assert.equal(addMonths(U('2026-01-31 10:00:00'), 1), U('2026-02-28 10:00:00'));
  assert.equal(addMonths(U('2024-01-31 10:00:00'), 1), U('2024-02-29 10:00:00'));
  assert.equal(addMonths(U('2026-11-30 00:00:00'), -3), U('2026-08-30 00:00:00'));
  assert.equal(addMonths(U('2026-05-31 00:00:00'), -3), U('2026-02-28 00:00:00'));
});

test('parseRestDate accepts both spec forms, rejects impossible dates, and end bounds cover their second or day', () => {
  assert.equal(parseRestDate('from', '2026-03-04', 'start'), U('2026-03-04 00:00:00'));
  assert.equal(parseRestDate('to', '2026-03-04', 'end'), U('2026-03-05 00:00:00') - 1);
  assert.equal(parseRestDate('to', '2026-03-04 05:06:07', 'end'), U('2026-03-04 05:06:07') + 999);
  for (const bad of ['2026-02-30', '2026-3-4', '2026-03-04T05:06:07', '2026-03-04 24:00:00', 'yesterday']) {
    assert.throws(() => parseRestDate('from', bad, 'start'), (e: unknown) => e instanceof RestFail && e.statusCode === 400 && e.message.includes('filters[from]'), bad);
  }
});

test('conversationWindow: none, only from, only to, both within and beyond 3 months', () => {
  const now = U('2026-11-22 12:00:00');
  const o = { now, maxMonths: 3 };
  assert.deepEqual(conversationWindow({}, o), { from: U('2026-08-22 12:00:00'), to: now });
  assert.deepEqual(conversationWindow({ from: '2026-05-10 08:00:00' }, o), { from: U('2026-05-10 08:00:00'), to: U('2026-08-10 08:00:00') + 999 });
  assert.deepEqual(conversationWindow({ to: '2026-05-10 08:00:00' }, o), { from: U('2026-02-10 08:00:00'), to: U('2026-05-10 08:00:00') + 999 });
  assert.deepEqual(conversationWindow({ from: '2026-01-10', to: '2026-04-10' }, o), { from: U('2026-01-10 00:00:00'), to: U('2026-04-11 00:00:00') - 1 });
  assert.throws(() => conversationWindow({ from: '2026-01-10', to: '2026-04-11' }, o), (e: unknown) => e instanceof RestFail && e.statusCode === 400 && e.message === TEXT.periodTooLong);
  assert.throws(() => conversationWindow({ from: '2026-01-10 00:00:00', to: '2026-04-10 00:00:01' }, o), RestFail);
  assert.deepEqual(conversationWindow({ from: '2026-01-10', to: '2026-06-10' }, { now }), { from: U('2026-01-10 00:00:00'), to: U('2026-06-11 00:00:00') - 1 });
  assert.throws(() => conversationWindow({ from: '2026-04-10', to: '2026-01-10' }, o), /must not be after/);
});

test('presence indicators: sums, unions and ratios over overlapping periods', () => {
  const h = 3_600_000;
  const s: Scope = {
    from: 0, to: 10 * h, convs: [], transactions: [], displays: [], availability: [], convById: new Map(),
    presence: [
      { operator_id: 1, state: 'available', start: 0, end: 2 * h },
      { operator_id: 2, state: 'available', start: 1 * h, end: 3 * h },
      { operator_id: 1, state: 'full', start: 2 * h, end: 3 * h },
      { operator_id: 2, state: 'unavailable', start: 3 * h, end: 4 * h },
    ],
  };
  const v = (n: string) => INDICATORS[n]!.compute(s);
  assert.equal(v('presence_duration'), 6 * 3600);
  assert.equal(v('presence_smoothed_duration'), 4 * 3600);
  assert.equal(v('production_duration'), 5 * 3600);
  assert.equal(v('production_smoothed_duration'), 3 * 3600);
  assert.equal(v('presentation_duration'), 3 * 3600);
  assert.equal(v('max_occupation_rate'), 0.2);
  assert.equal(v('non_production_rate'), Math.round((1 / 6) * 10_000) / 10_000);
});

test('routes: default window follows the service clock; statistic contact_number equals the stored count', async () => {
  const app = await buildApp({});
  try {
    const { id, api_key } = app.ces.db.prepare('SELECT id, api_key FROM clients ORDER BY id LIMIT 1').get() as { id: number; api_key: string };
    const get = async (url: string) => (await app.inject({ method: 'GET', url, headers: { 'x-api-key': api_key } })).json();
    const count = (from: number, to: number) => (app.ces.db.prepare('SELECT COUNT(*) AS n FROM conversations WHERE client_id = ? AND created_at BETWEEN ? AND ?').get(id, from, to) as { n: number }).n;

    const now = app.ces.clock.now();
    const before = await get('/api/2/conversation.json-unicode?formatHistory=0&limit=1');
    assert.equal(before.pagination.count, count(addMonths(now, -3), now));
    app.ces.clock.advance(30 * 86_400_000);
    const later = app.ces.clock.now();
    const after = await get('/api/2/conversation.json-unicode?formatHistory=0&limit=1');
    assert.equal(after.pagination.count, count(addMonths(later, -3), later));
    assert.ok(after.pagination.count < before.pagination.count, 'a month later, fewer seeded conversations are in the last 3 months');

    const stat = await get('/api/2/statistic?filters[indicators]=contact_number');
    assert.deepEqual(stat.data, [{ resource: null, indicators: { contact_number: after.pagination.count } }]);
    const other = await get('/api/2/conversation.json-unicode/1?formatHistory=0');
    assert.equal(other.meta.status, 'success');
    assert.ok(Array.isArray(other.data.history));
  } finally {
    await app.close();
  }
});

test("statistic refusals: removed, unknown, outside the channel group, granularity with several indicators, another client's website", async () => {
  const app = await buildApp({});
  try {
    const keys = app.ces.db.prepare('SELECT id, api_key FROM clients ORDER BY id').all() as Array<{ id: number; api_key: string }>;
    const get = async (q: string) => {
      const res = await app.inject({ method: 'GET', url: '/api/2/statistic?' + q, headers: { 'x-api-key': keys[0]!.api_key } });
      return { status: res.statusCode, body: res.json() };
    };
    const cases: Array<[string, number, RegExp]> = [
      ['filters[indicators]=satisfaction_global_rate', 400, /no longer served/],
      ['filters[indicators]=occupation_duration', 400, /no longer served/],
      ['filters[indicators]=contact_happiness', 400, /Unknown indicator 'contact_happiness'/],
      ['filters[indicators]=contact_missed_number&filters[channel]=video', 400, /'contact_missed_number' is not available for channel 'video'/],
      ['filters[indicators]=contact_number&filters[channel]=social_d', 400, /not available for channel 'social_d'/],
      ['filters[indicators]=contact_number,rule_display_number&filters[granularity]=day', 400, /exactly one indicator/],
      ['filters[granularity]=week&filters[indicators]=contact_number', 400, /granularity/],
      ['filters[resource_id]=1', 400, /needs filters\[resource\]/],
    ];
    for (const [q, status, message] of cases) {
      const { status: got, body } = await get(q);
      assert.equal(got, status, q);
      assert.equal(body.meta.status, 'fail', q);
      assert.match(body.meta.message, message, q);
    }
    const other = app.ces.db.prepare('SELECT id FROM websites WHERE client_id = ? LIMIT 1').get(keys[1]!.id) as { id: number };
    const { status, body } = await get(`filters[website_list]=${other.id}`);
    assert.equal(status, 404);
    assert.equal(body.meta.message, `Unknown 'website' with 'id' ${other.id}.`);
    const ok = await get('filters[indicators]=contact_waiting_number&filters[channel]=video');
    assert.equal(ok.body.meta.status, 'success');
  } finally {
    await app.close();
  }
});
