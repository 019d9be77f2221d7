// REST conversations (conversation.json-unicode): fields, filters, well-formed and legacy history, the 3-month listing window.
import { test, expect, expectSchema } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { SimDriver } from '../fixtures/sim.js';
import { withClockLock } from '../fixtures/clock.js';
import { expectPayload, notJudgedIf, step, under } from '../verdicts.js';
import { DAY, day, expectConversations, fmt, ids, listAll, monthsAgo, otherKey, parse, pastPeriod, plusMonths, qs } from './activity-helpers.js';

const LIST = '/conversation.json-unicode';
const WELL = { formatHistory: 0 } as const;

for (const base of ['sd', 'ha'] as const) {
  test(`conversations are listed in the envelope on the ${base} base`, clauses('REST-CONV-01', 'REST-ENV-05', 'REST-CONV-14'), async ({ api }) => {
    const res = await api.rest({ path: LIST + qs({ ...WELL, limit: 5 }), base });
    under('REST-ENV-05', () => expect(res.status, 'G10: a success answers 200').toBe(200));
    under('REST-CONV-01', () => {
      expectConversations('rest/conversation.json#/$defs/list', res.json, 'the conversation list');
      expect(res.json.data.length, 'the seeded last 3 months hold conversations').toBeGreaterThan(0);
      for (const c of res.json.data) expect(c._link, 'the path of the resource').toMatch(new RegExp(`^/conversation(\\.json-unicode)?/${c.id}$`));
    });
  });
}

test('one conversation by id has every field and _link resolves to it', clauses('REST-CONV-02', 'REST-ENV-05', 'REST-CONV-14'), async ({ api, target }) => {
  // A past period: conversations that other checks create (and change) are not in it.
  const p = pastPeriod();
  const list = await api.rest({ path: LIST + qs({ ...WELL, limit: 3, filters: { from: p.from, to: p.to } }) });
  const first = list.json.data[0];
  const res = await api.rest({ path: `${LIST}/${first.id}${qs(WELL)}` });
  under('REST-ENV-05', () => expect(res.status, 'G10: a success answers 200').toBe(200));
  await under('REST-CONV-02', async () => {
    expectConversations('rest/conversation.json#/$defs/oneWellFormed', res.json, `conversation ${first.id}`);
    const c = res.json.data;
    for (const k of Object.keys(first)) expect(c[k], `list item field ${k} equals the resource's`).toEqual(first[k]);
    const linked = await api.request({ url: target.rest_base_url + c._link + qs(WELL), headers: { 'x-api-key': target.api_key } });
    expect(linked.json?.data?.id, '_link answers the same conversation').toBe(c.id);
  });
});

/** Every conversation of a past period, full, with well-formed history: the ground truth the filter checks compare against. */
async function pastConversations(api: Parameters<Parameters<typeof test>[2]>[0]['api']) {
  const p = pastPeriod();
  const all = await listAll(api, LIST, { ...WELL, full: 1, filters: { from: p.from, to: p.to } });
  expect(all.items.length, 'the past period holds conversations to filter').toBeGreaterThan(10);
  return { p, all: all.items };
}

for (const channel of ['chat', 'call', 'video'] as const) {
  test(`filter channel=${channel} lists only ${channel} conversations`, clauses('REST-CONV-03'), async ({ api }) => {
    const { p, all } = await pastConversations(api);
    const got = await listAll(api, LIST, { ...WELL, filters: { from: p.from, to: p.to, channel } });
    expect(ids(got.items)).toEqual(ids(all.filter((c) => c.channel === channel)));
    expect(got.items.length, `some ${channel} conversations exist`).toBeGreaterThan(0);
  });
}

test('filter channel=social lists offsite social conversations, none of chat, call or video', clauses('REST-CONV-04'), async ({ api }) => {
  const { p, all } = await pastConversations(api);
  const got = await listAll(api, LIST, { ...WELL, filters: { from: p.from, to: p.to, channel: 'social' } });
  expect(got.items.length, 'social conversations exist in the period').toBeGreaterThan(0);
  const known = new Set(ids(all));
  for (const c of got.items) {
    expect(['chat', 'call', 'video'], `conversation ${c.id} is not onsite`).not.toContain(c.channel);
    expect(known.has(c.id), `conversation ${c.id} is one of the period's`).toBe(true);
  }
  expect(got.items.length).toBeLessThan(all.length);
});

test('channel=social finds every social_a..social_e conversation; offsite channels keep their names', clauses('REST-CONV-04', 'REST-CONV-14'), async ({ api }) => {
  const { p, all } = await step('REST-CONV-04', 'listing the past period (the ground truth)', () => pastConversations(api));
  const got = await step('REST-CONV-04', 'listing channel=social', () => listAll(api, LIST, { ...WELL, filters: { from: p.from, to: p.to, channel: 'social' } }));
  under('REST-CONV-14', () => {
    for (const c of all) expect(['chat', 'call', 'video', 'social_a', 'social_b', 'social_c', 'social_d', 'social_e', 'sms'], `conversation ${c.id}`).toContain(c.channel);
    expect(ids(got.items), 'channel=social lists exactly the social_a..social_e conversations').toEqual(ids(all.filter((c) => /^social_[a-e]$/.test(c.channel))));
    expect(new Set(got.items.map((c) => c.channel)).size, 'several social networks are found').toBeGreaterThan(1);
  });
  // Whatever a service calls its offsite channels (REST-CONV-14 is the reference's decision), a conversation named after a
  // social network (social_a..social_e, or social) is one that channel=social must find.
  const social = all.filter((c) => /^social(_[a-e])?$/.test(c.channel));
  notJudgedIf(social.length === 0, 'no conversation of the period names a social network in its channel, so which ones channel=social must find cannot be told');
  const found = new Set(ids(got.items));
  under('REST-CONV-04', () => expect(social.filter((c) => !found.has(c.id)).map((c) => `${c.id} (${c.channel})`), 'social conversations of the period missing from channel=social').toEqual([]));
});

const FILTERS: Array<[string, string, string, (c: any) => unknown]> = [
  ['website_id', 'REST-CONV-05', 'website_id', (c) => c.website_id],
  ['operator_id', 'REST-CONV-06', 'operator_id', (c) => c.operator_id],
  ['visitor_id', 'REST-CONV-07', 'visitor_uid', (c) => c.visitor_uid],
  ['skill_id', 'REST-CONV-08', 'skill_id', (c) => c.skill_id],
  ['rule_id', 'REST-CONV-10', 'rule_id', (c) => c.rule_id],
];
for (const [filter, clause, field, value] of FILTERS) {
  test(`filter ${filter} lists exactly the conversations with that ${field}`, clauses(clause), async ({ api }) => {
    const { p, all } = await pastConversations(api);
    const v = all.map(value).find((x) => x !== null && x !== undefined);
    expect(v, `a conversation with a ${field}`).toBeDefined();
    const got = await listAll(api, LIST, { ...WELL, filters: { from: p.from, to: p.to, [filter]: String(v) } });
    expect(ids(got.items)).toEqual(ids(all.filter((c) => value(c) === v)));
    expect(got.items.length).toBeLessThan(all.length);
  });
}

test('filter tag_id lists exactly the conversations tagged so', clauses('REST-CONV-09'), async ({ api }) => {
  const { p, all } = await pastConversations(api);
  const tag = all.flatMap((c) => c.tag_list)[0];
  expect(tag, 'a tagged conversation in the period').toBeDefined();
  const got = await listAll(api, LIST, { ...WELL, filters: { from: p.from, to: p.to, tag_id: tag } });
  expect(ids(got.items)).toEqual(ids(all.filter((c) => c.tag_list.includes(tag))));
  expect(got.items.length).toBeLessThan(all.length);
});

test('an unknown conversation id is a fail with the spec text', clauses('REST-CONV-11'), async ({ api }) => {
  const res = await api.rest({ path: `${LIST}/987654321${qs(WELL)}` });
  expect(res.json?.meta).toMatchObject({ status: 'fail', message: "Unknown 'conversation' with 'id' 987654321." });
});

for (const path of ['/conversation.json-unicode', '/conversation', '/tag', '/transaction', '/satisfaction', '/callmeeting']) {
  test(`GET ${path}/{unknown} answers 404 and ${path}/{not a number} 400`, clauses('REST-ID-02', 'REST-ID-03'), async ({ api }) => {
    const unknown = await api.rest({ path: `${path}/987654321` });
    under('REST-ID-02', () => {
      expect(unknown.json?.meta?.status).toBe('fail');
      expect(unknown.status).toBe(404);
    });
    const bad = await api.rest({ path: `${path}/12ab` });
    under('REST-ID-03', () => {
      expect(bad.json?.meta?.status).toBe('fail');
      expect(bad.json?.meta?.message).toContain('id');
      expect(bad.status).toBe(400);
    });
  });
}

test("another client's conversation is neither listed nor served by id", clauses('REST-CONV-12').needs('second_client_key'), async ({ api, target }) => {
  const key2 = otherKey(target);
  const theirs = await api.rest({ path: LIST + qs({ ...WELL, limit: 20 }), key: key2 });
  expect(theirs.json.data.length, 'the other client has conversations').toBeGreaterThan(0);
  const id = theirs.json.data[0].id;
  const res = await api.rest({ path: `${LIST}/${id}${qs(WELL)}` });
  expect(res.json?.meta).toMatchObject({ status: 'fail', message: `Unknown 'conversation' with 'id' ${id}.` });
  const mine = await listAll(api, LIST, WELL);
  const theirIds = new Set(theirs.json.data.map((c: any) => c.id));
  expect(mine.items.filter((c) => theirIds.has(c.id)), 'none of theirs in my list').toEqual([]);
});

test('invalid conversation filter values are a 400 fail naming them', clauses('REST-CONV-13'), async ({ api }) => {
  for (const [p, name] of [[{ filters: { channel: 'sms' } }, 'channel'], [{ filters: { from: '2026-13-01' } }, 'from'], [{ filters: { to: 'yesterday' } }, 'to'], [{ formatHistory: 2 }, 'formatHistory']] as const) {
    const res = await api.rest({ path: LIST + qs(p as any) });
    expect(res.status, `${name} invalid`).toBe(400);
    expect(res.json?.meta?.status).toBe('fail');
    expect(res.json?.meta?.message).toContain(name);
  }
});

test('with formatHistory=0 every history is a well-formed array of entries', clauses('REST-HIST-01'), async ({ api }) => {
  const { all } = await pastConversations(api);
  for (const c of all) {
    expect(Array.isArray(c.history), `conversation ${c.id} history is an array`).toBe(true);
    expectPayload('rest/conversation.json#/$defs/history', c.history, `history of conversation ${c.id}`);
    for (const e of c.history) {
      expect([1, 2, 3, 5, 6, 7]).toContain(e[0]);
      expect(e[1]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(typeof e[2]).toBe('string');
    }
  }
});

test('only codes 1 and 2 carry the fourth (epoch) element', clauses('REST-HIST-02'), async ({ api }) => {
  const { all } = await pastConversations(api);
  const entries = all.flatMap((c) => c.history as any[][]);
  const seen = new Set(entries.map((e) => e[0]));
  for (const code of [1, 2, 3]) expect(seen.has(code), `entries of code ${code} to judge`).toBe(true);
  for (const e of entries) {
    expect(e.length, `entry ${JSON.stringify(e)}`).toBe([1, 2].includes(e[0]) ? 4 : 3);
    if (e.length === 4) expect(Number.isInteger(e[3])).toBe(true);
  }
});

test('epoch millis match the datetime and entries are chronological', clauses('REST-HIST-03'), async ({ api }) => {
  const { all } = await pastConversations(api);
  for (const c of all) {
    let prev = -Infinity;
    for (const e of c.history) {
      const at = parse(e[1]);
      if (e.length === 4) expect(Math.abs(e[3] - at), `epoch of ${JSON.stringify(e)} within 1 s of its datetime`).toBeLessThan(1000);
      expect(at, `conversation ${c.id} entries in order`).toBeGreaterThanOrEqual(prev);
      prev = at;
    }
  }
});

test('without formatHistory=0, and on the plain path, history is the legacy transcript string', clauses('REST-HIST-04'), async ({ api }) => {
  const p = pastPeriod();
  const list = await api.rest({ path: LIST + qs({ ...WELL, limit: 1, full: 1, filters: { from: p.from, to: p.to } }) });
  const c = list.json.data[0];
  for (const path of [`${LIST}/${c.id}`, `${LIST}/${c.id}?formatHistory=1`, `/conversation/${c.id}`, `/conversation/${c.id}?formatHistory=0`]) {
    const res = await api.rest({ path });
    expect(res.json?.meta?.status, path).toBe('success');
    // The channel's name for an offsite conversation is REST-CONV-14's decision (REF), judged under it; the rest is this clause's.
    const data = structuredClone(res.json.data);
    if (typeof data?.channel === 'string') data.channel = 'chat';
    expectSchema('rest/conversation.json#/$defs/legacy', data);
    under('REST-CONV-14', () => expectSchema('rest/conversation.json#/$defs/legacy', res.json.data));
    const lines = (res.json.data.history as string).split('\n');
    expect(lines.length, `${path}: one line per entry`).toBe(c.history.length);
    c.history.forEach((e: any[], i: number) => {
      expect(lines[i]).toContain(`[${e[1]}]`);
      expect(lines[i]).toContain(e[2]);
    });
  }
  const plain = await api.rest({ path: '/conversation' + qs({ limit: 5, filters: { from: p.from, to: p.to } }) });
  const unicode = await api.rest({ path: LIST + qs({ limit: 5, filters: { from: p.from, to: p.to } }) });
  expect(plain.json.data.map((x: any) => x.id), 'the plain path lists the same conversations').toEqual(unicode.json.data.map((x: any) => x.id));
});

/** Calendar months before `ms` in UTC, the day clamped to the target month's last day (May 31 - 3 months = Feb 28). */
function monthsBefore(ms: number, months: number): number {
  const d = new Date(ms);
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
  t.setUTCDate(Math.min(d.getUTCDate(), new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 0)).getUTCDate()));
  return t.getTime();
}
/** Every reading of "3 months" lies between these many days (three months hold 89 to 92 days). */
const THREE_MONTHS_DAYS = { least: 89, most: 92 };
/** How far this runner's clock may be from a service's that exposes none (NTP time on both sides). */
const CLOCK_SKEW_MS = 60_000;

test('without from and to the listing covers the last 3 months, up to now', clauses('REST-PERIOD-01', 'REST-PERIOD-07'), async ({ api, target }) => {
  // The service clock when the target exposes it (sim), else this runner's; held still meanwhile (no check moves it).
  const sim = target.capabilities.includes('sim') ? new SimDriver(target) : undefined;
  // Every assertion outside REST-PERIOD-07's own is REST-PERIOD-01's (the listing calls included).
  await withClockLock(target, 'shared', () => under('REST-PERIOD-01', async () => {
    const now = async () => (sim ? (await sim.clock({ quiet: true })).nowMs : Date.now());
    // A conversation of our own at the end of the window (the simulation API), so "up to now" is judged on what just happened.
    const own = sim ? (await sim.ok('POST', '/conversations', { channel: 'call', text: 'ces: default listing period' })).conversationId as string : undefined;
    const before = await now();
    const listed = await listAll(api, LIST, { ...WELL, full: 1 });
    const after = await now();
    const skew = (sim ? 1_000 : CLOCK_SKEW_MS) + (after - before);
    // The ground truth: every conversation of the last 3 months and a few days more, in windows of under 3 months (REST-PERIOD-06).
    const mid = Math.floor((before - 46 * DAY) / 1000) * 1000;
    const truth = new Map<number, any>();
    for (const [from, to] of [[before - (THREE_MONTHS_DAYS.most + 3) * DAY, mid], [mid, after + DAY]] as const) {
      for (const c of (await listAll(api, LIST, { ...WELL, full: 1, filters: { from: fmt(from), to: fmt(to) } })).items) truth.set(c.id, c);
    }
    const inDefault = new Set(ids(listed.items));
    const at = (c: any) => parse(c.created_at);
    // REST-PERIOD-01: from at most 92 and at least 89 days ago (every reading of 3 months) up to now.
    for (const c of listed.items) {
      expect(at(c), `conversation ${c.id} (${c.created_at}) is within the last ${THREE_MONTHS_DAYS.most} days`).toBeGreaterThanOrEqual(after - THREE_MONTHS_DAYS.most * DAY - skew);
      expect(at(c), `conversation ${c.id} (${c.created_at}) is not after now`).toBeLessThanOrEqual(after + skew);
    }
    const owed = [...truth.values()].filter((c) => at(c) >= before - THREE_MONTHS_DAYS.least * DAY + skew && at(c) <= before - skew);
    expect(owed.length, 'conversations of the last 89 days to judge').toBeGreaterThan(0);
    expect(owed.filter((c) => !inDefault.has(c.id)).map((c) => `${c.id} (${c.created_at})`), 'conversations of the last 89 days missing from the default listing').toEqual([]);
    if (own) {
      const mine = listed.items.find((c) => c.xmpp_id === own) ?? [...truth.values()].find((c) => c.xmpp_id === own);
      notJudgedIf(!mine, `the conversation started through the simulation API (${own}) is listed by no REST listing of this key`);
      expect(inDefault.has(mine.id), `the conversation started just now (${mine.created_at}) is in the default listing`).toBe(true);
    }
    // REST-PERIOD-07: calendar months in UTC, exactly: from the same instant 3 months ago (day clamped) to now.
    under('REST-PERIOD-07', () => {
      const edge = monthsBefore(before, 3);
      const want = [...truth.values()].filter((c) => at(c) >= edge + skew && at(c) <= before - skew).map((c) => c.id);
      const wrong = [...truth.values()].filter((c) => Math.abs(at(c) - edge) > skew && at(c) < edge && inDefault.has(c.id)).map((c) => `${c.id} (${c.created_at})`);
      expect(want.filter((id) => !inDefault.has(id)), `conversations since ${fmt(edge)} (3 calendar months) missing`).toEqual([]);
      expect(wrong, `conversations before ${fmt(edge)} (3 calendar months) listed`).toEqual([]);
    });
  }));
});

test('with only from the listing covers the 3 months after it', clauses('REST-PERIOD-02'), async ({ api }) => {
  const from = monthsAgo(5);
  const only = await listAll(api, LIST, { ...WELL, filters: { from: fmt(from) } });
  const both = await listAll(api, LIST, { ...WELL, filters: { from: fmt(from), to: fmt(plusMonths(from, 3)) } });
  expect(both.items.length, 'the seeded 6 months hold conversations 5 to 2 months ago').toBeGreaterThan(0);
  expect(ids(only.items)).toEqual(ids(both.items));
  for (const c of only.items) expect(parse(c.created_at)).toBeGreaterThanOrEqual(from);
});

test('with only to the listing covers the 3 months before it', clauses('REST-PERIOD-03'), async ({ api }) => {
  const to = monthsAgo(1);
  const only = await listAll(api, LIST, { ...WELL, filters: { to: fmt(to) } });
  const both = await listAll(api, LIST, { ...WELL, filters: { from: fmt(plusMonths(to, -3)), to: fmt(to) } });
  expect(both.items.length).toBeGreaterThan(0);
  expect(ids(only.items)).toEqual(ids(both.items));
  for (const c of only.items) expect(parse(c.created_at)).toBeLessThanOrEqual(to);
});

const TOO_LONG = (from: number) => [fmt(plusMonths(from, 3) + 1000), fmt(plusMonths(from, 4)), day(plusMonths(from, 3) + DAY)];

test('from and to more than 3 months apart is an error in meta', clauses('REST-PERIOD-04'), async ({ api }) => {
  const from = monthsAgo(5);
  for (const to of TOO_LONG(from)) {
    const res = await api.rest({ path: LIST + qs({ ...WELL, filters: { from: fmt(from), to } }) });
    // "An error is returned in meta": not a success, explained in meta.message (data may accompany it: the spec does not forbid it).
    expect(res.json?.meta?.status, `from ${fmt(from)} to ${to}`).toMatch(/^(fail|error)$/);
    expect(res.json?.meta?.message, 'the error is explained in meta').toBeTruthy();
  }
});

test('that error is a 400 fail with the G13 text', clauses('REST-PERIOD-05'), async ({ api }) => {
  const from = monthsAgo(5);
  for (const to of TOO_LONG(from)) {
    const res = await api.rest({ path: LIST + qs({ ...WELL, filters: { from: fmt(from), to } }) });
    expect(res.status, `from ${fmt(from)} to ${to}`).toBe(400);
    expect(res.json?.meta).toMatchObject({ status: 'fail', message: "The period between 'from' and 'to' must not exceed 3 months." });
  }
});

test('from and to (date-time) list exactly the conversations between them', clauses('REST-PERIOD-06'), async ({ api }) => {
  const wide = { from: Date.now() - 70 * DAY, to: Date.now() - 5 * DAY };
  const all = await listAll(api, LIST, { ...WELL, filters: { from: fmt(wide.from), to: fmt(wide.to) } });
  const inner = { from: wide.from + 20 * DAY + 12_345_000, to: wide.to - 20 * DAY - 54_321_000 };
  const got = await listAll(api, LIST, { ...WELL, filters: { from: fmt(inner.from), to: fmt(inner.to) } });
  const want = all.items.filter((c) => parse(c.created_at) >= Math.floor(inner.from / 1000) * 1000 && parse(c.created_at) <= Math.floor(inner.to / 1000) * 1000);
  expect(want.length).toBeGreaterThan(0);
  expect(ids(got.items)).toEqual(ids(want));
  const dates = await api.rest({ path: LIST + qs({ ...WELL, limit: 1, filters: { from: day(inner.from), to: day(inner.to) } }) });
  expect(dates.json?.meta?.status, 'the YYYY-MM-DD form is accepted').toBe('success');
});

test('calendar months, exactly 3 months accepted, a date-only to covers its day', clauses('REST-PERIOD-07'), async ({ api }) => {
  const from = monthsAgo(4);
  for (const [f, to] of [[fmt(from), fmt(plusMonths(from, 3))], [day(from), day(plusMonths(from, 3))]]) {
    const res = await api.rest({ path: LIST + qs({ ...WELL, limit: 1, filters: { from: f, to } }) });
    expect(res.json?.meta?.status, `from ${f} to ${to} is exactly 3 months`).toBe('success');
  }
  const d1 = day(Date.now() - 40 * DAY); const d2 = day(Date.now() - 30 * DAY);
  const dateOnly = await listAll(api, LIST, { ...WELL, filters: { from: d1, to: d2 } });
  const full = await listAll(api, LIST, { ...WELL, filters: { from: `${d1} 00:00:00`, to: `${d2} 23:59:59` } });
  expect(full.items.length).toBeGreaterThan(0);
  expect(ids(dateOnly.items)).toEqual(ids(full.items));
});
