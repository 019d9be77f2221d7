// REST tags, transactions, satisfactions and call meetings: fields, by id, filters, unknown ids and tenant isolation.
import { test, expect, expectSchema } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { expectPayload, step, under } from '../verdicts.js';
import { fmt, ids, listAll, otherKey, parse, qs } from './activity-helpers.js';

interface Kind { path: string; schema: string; list: string; byId?: string; unknown: string; isolation: string; dateField?: string }
const KINDS: Kind[] = [
  { path: 'tag', schema: 'rest/tag.json', list: 'REST-TAG-01', byId: 'REST-TAG-03', unknown: 'REST-TAG-04', isolation: 'REST-TAG-05' },
  { path: 'transaction', schema: 'rest/transaction.json', list: 'REST-TRX-01', byId: 'REST-TRX-02', unknown: 'REST-TRX-06', isolation: 'REST-TRX-07', dateField: 'created_at' },
  { path: 'satisfaction', schema: 'rest/satisfaction.json', list: 'REST-SAT-01', byId: 'REST-SAT-02', unknown: 'REST-SAT-05', isolation: 'REST-SAT-06', dateField: 'created_at' },
  { path: 'callmeeting', schema: 'rest/callmeeting.json', list: 'REST-CALL-01', byId: 'REST-CALL-04', unknown: 'REST-CALL-04', isolation: 'REST-CALL-03', dateField: 'start_at' },
];

for (const k of KINDS) {
  test(`/${k.path} lists the key's ${k.path}s with every field (full=1) and the summary without`, clauses(k.list, 'REST-ENV-05'), async ({ api }) => {
    const full = await api.rest({ path: `/${k.path}${qs({ full: 1, limit: 100 })}` });
    under('REST-ENV-05', () => expect(full.status, 'G10: a success answers 200').toBe(200));
    await under(k.list, async () => {
      expectPayload(`${k.schema}#/$defs/listFull`, full.json, `the ${k.path} list`);
      expect(full.json.data.length, `seeded ${k.path}s`).toBeGreaterThan(0);
      const summary = await api.rest({ path: `/${k.path}${qs({ limit: 100 })}` });
      expect(ids(summary.json.data)).toEqual(ids(full.json.data));
    });
  });

  test(`without full=1 a ${k.path} shows the documented subset`, clauses('REST-LIST-02'), async ({ api }) => {
    const summary = await api.rest({ path: `/${k.path}${qs({ limit: 10 })}` });
    expectSchema(`${k.schema}#/$defs/list`, summary.json);
    expect(summary.json.data.length).toBeGreaterThan(0);
  });

  test(`/${k.path}/{id} answers the ${k.path} and _link resolves to it`, clauses(k.byId!), async ({ api, target }) => {
    const list = await api.rest({ path: `/${k.path}${qs({ full: 1, limit: 3 })}` });
    const item = list.json.data[1] ?? list.json.data[0];
    const one = await api.rest({ path: `/${k.path}/${item.id}` });
    expectPayload(`${k.schema}#/$defs/one`, one.json, `${k.path} ${item.id}`);
    expect(one.json.data).toEqual(item);
    const linked = await api.request({ url: target.rest_base_url + item._link, headers: { 'x-api-key': target.api_key } });
    expect(linked.json?.data).toEqual(item);
  });

  test(`an unknown ${k.path} id is a fail with the spec text`, clauses(k.unknown), async ({ api }) => {
    const res = await api.rest({ path: `/${k.path}/987654321` });
    expect(res.json?.meta).toMatchObject({ status: 'fail', message: `Unknown '${k.path}' with 'id' 987654321.` });
  });

  test(`another client's ${k.path}s are not listed${k.path === 'callmeeting' ? '' : ' nor served by id'}`, clauses(k.isolation, ...(k.path === 'callmeeting' ? ['REST-CALL-04'] : [])).needs('second_client_key'), async ({ api, target }) => {
    const key2 = otherKey(target);
    const theirs = await step(k.isolation, `listing the other client's ${k.path}s`, () => listAll(api, `/${k.path}`, {}, { key: key2 }));
    const mine = await step(k.isolation, `listing this client's ${k.path}s`, () => listAll(api, `/${k.path}`));
    under(k.isolation, () => expect(theirs.items.length, `the other client has ${k.path}s`).toBeGreaterThan(0));
    const their = new Set(ids(theirs.items));
    under(k.isolation, () => expect(mine.items.filter((x) => their.has(x.id)), 'none of theirs in my list').toEqual([]));
    const id = theirs.items[0].id;
    const res = await api.rest({ path: `/${k.path}/${id}` });
    const unknown = () => expect(res.json?.meta, `${k.path} ${id} of another client by id`).toMatchObject({ status: 'fail', message: `Unknown '${k.path}' with 'id' ${id}.` });
    if (k.path !== 'callmeeting') { unknown(); return; }
    // Call meetings have no by-id route in the spec: whatever the path answers, it never serves their call meeting (REST-CALL-03);
    // the reference's route and its unknown-id text are its decision (REST-CALL-04, REF).
    const served = res.json?.meta?.status === 'success' || res.json?.data?.id === id;
    under(k.isolation, () => expect(served, `their call meeting ${id} is not served by id (answered ${res.status} ${res.text.slice(0, 200)})`).toBe(false));
    under('REST-CALL-04', unknown);
  });

  if (k.dateField) {
    const clause = { transaction: 'REST-TRX-05', satisfaction: 'REST-SAT-04', callmeeting: 'REST-CALL-02' }[k.path as 'transaction']!;
    test(`/${k.path} filters from and to keep the ${k.dateField} inside them`, clauses(clause), async ({ api }) => {
      const all = (await listAll(api, `/${k.path}`, { full: 1 })).items;
      const dates = all.map((x) => parse(x[k.dateField!])).sort((a, b) => a - b);
      expect(dates.length).toBeGreaterThan(4);
      const from = dates[Math.floor(dates.length / 4)]!; const to = dates[Math.floor((dates.length * 3) / 4)]!;
      for (const f of [{ from: fmt(from) }, { to: fmt(to) }, { from: fmt(from), to: fmt(to) }]) {
        const got = await listAll(api, `/${k.path}`, { full: 1, filters: f });
        const want = all.filter((x) => (!f.from || parse(x[k.dateField!]) >= from) && (!('to' in f) || parse(x[k.dateField!]) <= to));
        expect(ids(got.items), JSON.stringify(f)).toEqual(ids(want));
        expect(got.items.length).toBeLessThan(all.length);
      }
    });

    test(`/${k.path} refuses a date filter outside the spec's forms with a 400 fail naming it`, clauses('REST-FILTER-01'), async ({ api }) => {
      for (const [name, v] of [['from', '2026-02-30'], ['to', '2026-03-01T10:00:00'], ['from', 'last week']]) {
        const bad = await api.rest({ path: `/${k.path}${qs({ filters: { [name!]: v } })}` });
        expect(bad.status, `${name}=${v}`).toBe(400);
        expect(bad.json?.meta?.status).toBe('fail');
        expect(bad.json?.meta?.message).toContain(`filters[${name}]`);
      }
    });
  }
}

for (const k of KINDS) {
  test(`/${k.path} is served on the high-availability base too`, clauses(k.list), async ({ api }) => {
    const sd = await api.rest({ path: `/${k.path}${qs({ full: 1, limit: 5 })}` });
    const ha = await api.rest({ path: `/${k.path}${qs({ full: 1, limit: 5 })}`, base: 'ha' });
    expectPayload(`${k.schema}#/$defs/listFull`, ha.json, `the ${k.path} list on the HA base`);
    expect(ha.json.data).toEqual(sd.json.data);
  });
}

test('tag filter website_id lists the tags whose website list holds it', clauses('REST-TAG-02'), async ({ api }) => {
  const all = (await listAll(api, '/tag', { full: 1 })).items;
  const websites = [...new Set(all.flatMap((t) => t.website_id))];
  expect(websites.length).toBeGreaterThan(0);
  for (const w of websites) {
    const got = await listAll(api, '/tag', { filters: { website_id: w } });
    expect(ids(got.items), `website ${w}`).toEqual(ids(all.filter((t) => t.website_id.includes(w))));
  }
});

test('transaction filter conversation_id: null, !null and an id', clauses('REST-TRX-03'), async ({ api }) => {
  const all = (await listAll(api, '/transaction', { full: 1 })).items;
  const unlinked = await listAll(api, '/transaction', { full: 1, filters: { conversation_id: 'null' } });
  const linked = await listAll(api, '/transaction', { full: 1, filters: { conversation_id: '!null' } });
  expect(unlinked.items.length, 'unlinked transactions exist').toBeGreaterThan(0);
  expect(linked.items.length, 'linked transactions exist').toBeGreaterThan(0);
  expect(ids(unlinked.items)).toEqual(ids(all.filter((t) => t.conversation_id === null)));
  expect(ids(linked.items)).toEqual(ids(all.filter((t) => t.conversation_id !== null)));
  const conv = linked.items[0].conversation_id;
  const one = await listAll(api, '/transaction', { full: 1, filters: { conversation_id: conv } });
  expect(ids(one.items)).toEqual(ids(all.filter((t) => t.conversation_id === conv)));
});

test('invalid id filter values are a 400 fail naming the filter', clauses('REST-FILTER-01'), async ({ api }) => {
  for (const [path, name, v] of [['/transaction', 'conversation_id', 'none'], ['/transaction', 'operator_id', 'x'], ['/tag', 'website_id', '1.5'], ['/satisfaction', 'conversation_id', 'null'], ['/callmeeting', 'website_id', 'abc']]) {
    const res = await api.rest({ path: `${path}${qs({ filters: { [name!]: v } })}` });
    expect(res.status, `${path} ${name}=${v}`).toBe(400);
    expect(res.json?.meta?.status).toBe('fail');
    expect(res.json?.meta?.message).toContain(name);
  }
});

const EQUALITY: Array<[string, string, string]> = [
  ['transaction', 'website_id', 'REST-TRX-04'], ['transaction', 'operator_id', 'REST-TRX-04'],
  ['satisfaction', 'website_id', 'REST-SAT-03'], ['satisfaction', 'operator_id', 'REST-SAT-03'], ['satisfaction', 'conversation_id', 'REST-SAT-03'],
  ['callmeeting', 'website_id', 'REST-CALL-02'],
];
for (const [path, filter, clause] of EQUALITY) {
  test(`/${path} filter ${filter} lists exactly the matching ${path}s`, clauses(clause), async ({ api }) => {
    const all = (await listAll(api, `/${path}`, { full: 1 })).items;
    const v = all.map((x) => x[filter]).find((x) => x !== null);
    expect(v, `a ${path} with a ${filter}`).toBeDefined();
    const got = await listAll(api, `/${path}`, { filters: { [filter]: v } });
    expect(ids(got.items)).toEqual(ids(all.filter((x) => x[filter] === v)));
    expect(got.items.length).toBeLessThan(all.length);
  });
}

test('satisfaction notes are numbers and the third is spelled node_delay', clauses('REST-SAT-01'), async ({ api }) => {
  const res = await api.rest({ path: '/satisfaction' + qs({ full: 1, limit: 10 }) });
  for (const s of res.json.data) {
    for (const f of ['note_welcome', 'note_resolution', 'node_delay']) expect(typeof s[f], `${f} of satisfaction ${s.id}`).toBe('number');
    expect(s).not.toHaveProperty('note_delay');
  }
});

test('call meeting statuses are the spec values', clauses('REST-CALL-01'), async ({ api }) => {
  const all = (await listAll(api, '/callmeeting', { full: 1 })).items;
  const statuses = new Set(all.map((c) => c.status));
  for (const s of statuses) expect(['pending', 'progress', 'done', 'failed', 'working']).toContain(s);
  expect(statuses.size, 'several statuses to judge').toBeGreaterThan(1);
});
