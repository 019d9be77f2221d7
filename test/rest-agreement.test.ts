// What issue 28 made the REST server accept as its OpenAPI document states it, through inject(): G26's repeated list form in queries and
// form bodies, dates of the calendar only, granularity buckets counted rather than listed, and 405 + Allow for QUERY and /operator/live.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../reference-impl/app.js';

let app: FastifyInstance;
let key: string;
let clientId: number;

before(async () => {
  app = await buildApp({});
  await app.ready();
  ({ id: clientId, api_key: key } = app.ces.db.prepare('SELECT id, api_key FROM clients ORDER BY id LIMIT 1').get() as { id: number; api_key: string });
});
after(async () => { await app?.close(); });

const call = async (method: string, url: string, o: { body?: string; type?: string; headers?: Record<string, string> } = {}) => {
  const res = await app.inject({
    method: method as 'GET', url: `/api/2${url}`, payload: o.body,
    headers: { 'x-api-key': key, ...(o.type ? { 'content-type': o.type } : {}), ...o.headers },
  });
  return { status: res.statusCode, headers: res.headers, json: res.json() };
};
const get = (url: string) => call('GET', url);
const form = (method: string, url: string, body: string) => call(method, url, { body, type: 'application/x-www-form-urlencoded' });
const ids = (a: { json: any }) => (a.json.data as Array<{ id: number }>).map((r) => r.id).sort((x, y) => x - y);

test('G26 in a query: the repeated filters[x]=a&filters[x]=b is the comma list, as are x[]= and x[0]=', async () => {
  const websites = (app.ces.db.prepare('SELECT id FROM websites WHERE client_id = ? ORDER BY id').all(clientId) as Array<{ id: number }>).map((w) => w.id);
  assert.ok(websites.length >= 2, 'the seed gives the client two websites');
  const [a, b] = websites as [number, number];
  const comma = await get(`/operator?limit=100&filters[website_list]=${a},${b}`);
  assert.equal(comma.status, 200);
  // The comma list is the union of its members (so the forms below are compared with a list that means both).
  const union = [...new Set([...ids(await get(`/operator?limit=100&filters[website_list]=${a}`)), ...ids(await get(`/operator?limit=100&filters[website_list]=${b}`))])].sort((x, y) => x - y);
  assert.deepEqual(ids(comma), union);
  assert.ok(union.length > 0);
  for (const q of [`filters[website_list]=${a}&filters[website_list]=${b}`, `filters[website_list][]=${a}&filters[website_list][]=${b}`, `filters[website_list][0]=${a}&filters[website_list][1]=${b}`,
    `filters%5Bwebsite_list%5D=${a}&filters%5Bwebsite_list%5D=${b}`]) {
    const r = await get(`/operator?limit=100&${q}`);
    assert.equal(r.status, 200, `${q}: ${JSON.stringify(r.json).slice(0, 200)}`);
    assert.deepEqual(ids(r), ids(comma), q);
  }
  // The statistic's list filters read the same forms: two indicators asked by repetition answer both.
  const stat = await get('/statistic?filters[indicators]=contact_number&filters[indicators]=rule_display_number');
  assert.equal(stat.status, 200, JSON.stringify(stat.json).slice(0, 300));
  assert.deepEqual(Object.keys(stat.json.data[0].indicators).sort(), ['contact_number', 'rule_display_number']);
  const statComma = await get('/statistic?filters[indicators]=contact_number,rule_display_number');
  assert.deepEqual(stat.json.data, statComma.json.data);
});

test('G26 in a query: a filter that is not a list, given twice, is refused naming it; so is a list given in two forms at once', async () => {
  for (const q of ['filters[name]=a&filters[name]=b', 'filters[id]=1&filters[id]=2', 'filters[website_list]=1&filters[website_list][]=2']) {
    const r = await get(`/operator?${q}`);
    assert.equal(r.status, 400, `${q}: ${JSON.stringify(r.json).slice(0, 200)}`);
    assert.equal(r.json.meta.status, 'fail');
    assert.match(r.json.meta.message, /Filter '(name|id|website_list)' must be given once/, q);
  }
});

test('G26 in a form body: roles=operator&roles=admin creates an operator with both roles; one roles= is a list of one', async () => {
  const both = await form('POST', '/operator', 'name=Repeat&first_name=Roles&email=repeat-roles@probe.example&roles=operator&roles=admin');
  assert.equal(both.status, 201, JSON.stringify(both.json).slice(0, 300));
  assert.deepEqual(both.json.data.roles, ['operator', 'admin']);
  const read = await get(`/operator/${both.json.data.id}`);
  assert.deepEqual(read.json.data.roles, ['operator', 'admin'], 'stored, not only echoed');
  const one = await form('POST', '/operator', 'name=Single&first_name=Role&email=single-role@probe.example&roles=admin');
  assert.equal(one.status, 201, JSON.stringify(one.json).slice(0, 300));
  assert.deepEqual(one.json.data.roles, ['admin']);
  // The other list fields read the repeated form as well, and the spec's bracket form is unchanged.
  const langs = await form('PUT', `/operator/${one.json.data.id}`, 'language_list=fr&language_list=de');
  assert.equal(langs.status, 200, JSON.stringify(langs.json).slice(0, 300));
  assert.deepEqual(langs.json.data.language_list, ['fr', 'de']);
  const brackets = await form('PUT', `/operator/${one.json.data.id}`, 'roles[]=operator&roles[]=manager');
  assert.deepEqual(brackets.json.data.roles, ['operator', 'manager']);
  // A role repeated is still refused, by the rule that applies to every list form.
  const twice = await form('PUT', `/operator/${one.json.data.id}`, 'roles=admin&roles=admin');
  assert.equal(twice.status, 400);
  assert.match(twice.json.meta.message, /'roles' lists a role twice/);
});

test('dates: only dates of the calendar, in both spec forms; impossible ones are the documented 400 naming the filter', async () => {
  for (const d of ['2024-02-29', '2000-02-29 23:59:59', '2023-12-31 00:00:00']) {
    const r = await get(`/transaction?filters[from]=${encodeURIComponent(d)}`);
    assert.equal(r.status, 200, `${d}: ${JSON.stringify(r.json).slice(0, 200)}`);
  }
  for (const d of ['2023-02-29', '1900-02-29', '2024-04-31', '2024-13-01', '2024-00-10', '2024-01-01 24:00:00', '2024-01-01 23:60:00', '2024-01-01 23:59:60', '8113-81-49 02:54:74', '2024-1-01', '2024-01-01T10:00:00']) {
    for (const path of ['/transaction', '/statistic', '/conversation.json-unicode']) {
      const r = await get(`${path}?filters[from]=${encodeURIComponent(d)}`);
      assert.equal(r.status, 400, `${path} ${d}: ${JSON.stringify(r.json).slice(0, 200)}`);
      assert.match(r.json.meta.message, /filters\[from\] must be a date 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS'/, `${path} ${d}`);
    }
  }
});

test('granularity buckets are counted, not listed: 9,999 years in hours is one cheap page, with the right count and dates', async () => {
  const from = '0000-01-01';
  const to = '9999-12-31 23:59:59';
  const hours = (Date.UTC(9999, 11, 31, 23) - new Date('0000-01-01T00:00:00Z').getTime()) / 3_600_000 + 1;
  const first = await get(`/statistic?filters[indicators]=contact_number&filters[granularity]=hour&filters[from]=${from}&filters[to]=${encodeURIComponent(to)}&limit=3`);
  assert.equal(first.status, 200, JSON.stringify(first.json).slice(0, 300));
  assert.equal(first.json.pagination.count, hours);
  assert.equal(first.json.pagination.pages, Math.ceil(hours / 3));
  assert.deepEqual(first.json.data.map((r: { date: string }) => r.date), ['0000-01-01 00:00:00', '0000-01-01 01:00:00', '0000-01-01 02:00:00']);
  const last = await get(`/statistic?filters[indicators]=contact_number&filters[granularity]=hour&filters[from]=${from}&filters[to]=${encodeURIComponent(to)}&limit=3&page=${Math.ceil(hours / 3)}`);
  assert.equal(last.json.data.at(-1).date, '9999-12-31 23:00:00');
  // Months across a year end: the bucket holding `from` to the one holding `to`, each month once.
  const months = await get('/statistic?filters[indicators]=contact_number&filters[granularity]=month&filters[from]=2023-11-15&filters[to]=2024-02-01');
  assert.equal(months.json.pagination.count, 4);
  assert.deepEqual(months.json.data.map((r: { date: string }) => r.date), ['2023-11-01 00:00:00', '2023-12-01 00:00:00', '2024-01-01 00:00:00', '2024-02-01 00:00:00']);
  // Days: a leap February counted whole, values summing to the period's total.
  const days = await get('/statistic?filters[indicators]=contact_number&filters[granularity]=day&filters[from]=2024-02-01&filters[to]=2024-02-29&limit=100');
  assert.equal(days.json.pagination.count, 29);
  assert.equal(days.json.data.at(-1).date, '2024-02-29 00:00:00');
  const whole = await get('/statistic?filters[indicators]=contact_number&filters[from]=2024-02-01&filters[to]=2024-02-29');
  assert.equal(days.json.data.reduce((s: number, r: { value: number }) => s + r.value, 0), whole.json.data[0].indicators.contact_number);
});

test('a path served as written answers its own methods: PUT and DELETE /operator/live are 405 with GET and HEAD, not a bad id', async () => {
  for (const method of ['PUT', 'DELETE', 'POST']) {
    const r = await call(method, '/operator/live', { body: '{}', type: 'application/json' });
    assert.equal(r.status, 405, `${method}: ${JSON.stringify(r.json).slice(0, 200)}`);
    assert.equal(r.headers.allow, 'GET, HEAD', method);
    assert.equal(r.json.meta.status, 'fail');
  }
  // The parametric route still serves real ids on the same prefix.
  const op = app.ces.db.prepare('SELECT id FROM operators WHERE client_id = ? ORDER BY id LIMIT 1').get(clientId) as { id: number };
  assert.equal((await get(`/operator/${op.id}/live`)).status, 200);
  assert.equal((await get('/operator/live')).status, 200);
});

test('QUERY on a known path is 405 with Allow, with or without a body and its content type; without a key it is the 403', async () => {
  for (const o of [{}, { body: '{"limit":1}', type: 'application/json' }, { body: 'limit=1', type: 'application/x-www-form-urlencoded' }, { body: 'x', type: 'text/plain' }]) {
    const r = await call('QUERY', '/operator', o);
    assert.equal(r.status, 405, `${JSON.stringify(o)}: ${JSON.stringify(r.json).slice(0, 200)}`);
    assert.equal(r.headers.allow, 'GET, HEAD, POST');
    assert.match(r.json.meta.message, /Method QUERY is not allowed on \/api\/2\/operator/);
  }
  const item = await call('QUERY', '/operator/1');
  assert.equal(item.headers.allow, 'DELETE, GET, HEAD, PUT');
  const anonymous = await app.inject({ method: 'QUERY', url: '/api/2/operator' });
  assert.equal(anonymous.statusCode, 403);
  assert.equal(anonymous.headers.allow, undefined);
});
