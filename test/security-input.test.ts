// Hostile input against every listener of the embedded stack (issue 14, items 1, 5, 6, 7): wildcard patterns, very long values,
// numbers written to be misread, GraphQL documents built to exhaust the parser, wrong methods and media types. Each case failed on the
// build before the fix (docs/security.md lists what each answered there).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { startStack, type Stack } from '../reference-impl/stack.js';
import { http, agentFor, type HttpAnswer } from '../lib/http.js';
import { LIMITS } from '../lib/limits.js';
import { wildcard } from '../reference-impl/rest/wildcard.js';

let stack: Stack;
let key: string;
let token: string;
const MAX = Number.MAX_SAFE_INTEGER;

const call = (url: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<HttpAnswer> =>
  http({ url, method: o.method ?? 'GET', headers: o.headers, body: o.body, timeoutMs: 30_000 }, agentFor(stack.ready.ca_file));
const rest = (p: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
  call(`${stack.ready.rest_base_url}${p}`, { ...o, headers: { 'x-api-key': key, ...o.headers } });
const gql = (query: string, headers: Record<string, string> = {}) =>
  call(stack.ready.graphql_url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
/** No internals in an answer: SQL errors, stack frames, source paths. */
const noInternals = (a: HttpAnswer) => assert.doesNotMatch(a.text, /SQLITE_|no such (table|column)|\bat .+:\d+:\d+|node_modules|\/work\/|\.ts\b/, a.text.slice(0, 300));

before(async () => {
  stack = await startStack({ workDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ces-security-')) });
  key = stack.ready.api_key;
  const t = await call(`${stack.ready.base_url}/oauth2/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: stack.ready.user.username, password: stack.ready.user.password }).toString(),
  });
  token = t.json.access_token;
});
after(async () => { await stack?.close(); });

// Item 1 ------------------------------------------------------------------------------------------------------------------------
test('item 1: wildcard matching agrees with the anchored case-insensitive pattern it replaces (no regular expression involved)', () => {
  const reference = (p: string, s: string) => new RegExp('^' + p.split('*').map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$', 'is').test(s);
  fc.assert(fc.property(fc.stringMatching(/^[ab*]{0,8}$/), fc.stringMatching(/^[abAB]{0,8}$/), (p, s) => wildcard(p)(s) === reference(p, s)), { numRuns: 2_000, seed: 14 });
});

test('item 1: the worst wildcard patterns (runs of *, one literal) are answered, and match what they should', async () => {
  // With the old `.*`-per-star regular expression each of these took exponential time on a name that does not end in x.
  for (const pattern of [`${'*'.repeat(999)}x`, `${'*a'.repeat(500)}`, `${'a*'.repeat(500)}`, `*${'*a'.repeat(300)}*b`, `A${'*'.repeat(1000)}`]) {
    const a = await rest(`/operator?filters%5Bname%5D=${encodeURIComponent(pattern.slice(0, LIMITS.restFilterValueMaxChars))}`);
    assert.equal(a.status, 200, `${pattern.slice(0, 20)}…: ${a.text.slice(0, 200)}`);
  }
  const all = (await rest('/operator?limit=100')).json.data as Array<{ name: string }>;
  const starting = all.filter((o) => /^a/i.test(o.name)).length;
  const a = await rest(`/operator?limit=100&filters%5Bname%5D=${encodeURIComponent(`A${'*'.repeat(1000)}`)}`);
  assert.equal(a.json.data.length, starting, 'A**…* matches every name starting with a');
});

test('item 1: a filter value over the limit is the documented 400, naming the filter and the limit', async () => {
  const a = await rest(`/operator?filters%5Bname%5D=${'x'.repeat(LIMITS.restFilterValueMaxChars + 1)}`);
  assert.equal(a.status, 400);
  assert.equal(a.json.meta.status, 'fail');
  assert.match(a.json.meta.message, new RegExp(`'name'.*${LIMITS.restFilterValueMaxChars}`));
});

// Item 6 ------------------------------------------------------------------------------------------------------------------------
test('item 6: page, limit, ids and id filters beyond 2^53, negative, fractional or exponent-written are the documented 400', async () => {
  const cases = [
    '/operator?page=9007199254740993', '/operator?page=-1', '/operator?page=1.5', '/operator?page=1e3', '/operator?limit=1e2', '/operator?limit=99999999999999999999',
    '/operator/9007199254740993', '/operator/1e3', '/operator/-1', '/operator/1.0', '/conversation/12345678901234567890',
    '/operator?filters%5Bwebsite_id%5D=99999999999999999999', '/operator?filters%5Bgroup_id%5D=-3', '/operator?filters%5Bwebsite_list%5D=1,2e1',
    '/statistic?filters%5Bresource%5D=operator&filters%5Bresource_id%5D=100000000000000000000000&filters%5Bindicators%5D=conversation_count',
  ];
  for (const p of cases) {
    const a = await rest(p);
    assert.equal(a.status, 400, `${p}: ${a.status} ${a.text.slice(0, 200)}`);
    assert.equal(a.json.meta.status, 'fail', p);
    assert.doesNotMatch(a.text, /e\+\d|null\b|9007199254740992/, `${p} echoes a misread number: ${a.text}`);
  }
});

test('item 6: a well-formed limit above 100 is still clamped (G11)', async () => {
  const a = await rest('/operator?limit=500');
  assert.equal(a.status, 200);
  assert.equal(a.json.pagination.limit, LIMITS.restPageMax);
});

// Item 7 ------------------------------------------------------------------------------------------------------------------------
const hostile: Record<string, { query: string; limit: string }> = {
  'nested 2,000 levels': { query: `{ ${'client { projects { edges { node { '.repeat(500)}id${' } } } }'.repeat(500)} }`, limit: 'graphqlMaxNesting' },
  '10,000 aliases': { query: `{ ${Array.from({ length: 10_000 }, (_, i) => `a${i}: __typename`).join(' ')} }`, limit: 'graphqlMaxAliases' },
  '10,000 fragments': { query: `{ ...F0 } ${Array.from({ length: 10_000 }, (_, i) => `fragment F${i} on Query { __typename }`).join(' ')}`, limit: 'graphqlMaxFragments' },
  '10,000 fragment spreads': { query: `{ ${Array.from({ length: 10_000 }, () => '...F').join(' ')} } fragment F on Query { __typename }`, limit: 'graphqlMaxFragmentSpreads' },
  'a chain of 20,000 fragments': { query: `{ ...F0 } ${Array.from({ length: 20_000 }, (_, i) => `fragment F${i} on Query { __typename ${i + 1 < 20_000 ? `...F${i + 1}` : ''} }`).join(' ')}`, limit: 'graphqlMaxFragments' },
  '9,000 identical selections': { query: `{ ${'__typename '.repeat(9_000)}}`, limit: 'graphqlMaxSelections' },
};
for (const [name, h] of Object.entries(hostile)) {
  test(`item 7: a GraphQL document with ${name} is refused as a GraphQL error naming ${h.limit}`, async () => {
    const a = await gql(h.query);
    assert.ok(a.status < 500, `${a.status}: ${a.text.slice(0, 200)}`);
    const errors = a.json?.errors as Array<{ message: string; extensions?: { code?: string } }>;
    assert.ok(Array.isArray(errors) && errors.length, a.text.slice(0, 200));
    assert.ok(errors.some((e) => e.message.includes(h.limit)), `no error names ${h.limit}: ${a.text.slice(0, 300)}`);
    assert.ok(errors.every((e) => e.extensions?.code !== 'INTERNAL_SERVER_ERROR'), a.text.slice(0, 300));
    assert.equal(a.json.data, undefined);
  });
}

test('item 7: a fragment fan-out (each fragment spreading the next twice) is costed once per fragment, not per expansion', async () => {
  const a = await gql(`{ ...F0 } ${Array.from({ length: 60 }, (_, i) => `fragment F${i} on Query { client { id } ${i + 1 < 60 ? `...F${i + 1} ...F${i + 1}` : ''} }`).join(' ')}`);
  assert.ok(a.status < 500);
  assert.match(a.json.errors[0].extensions.code, /QUERY_TOO_COSTLY|GRAPHQL_VALIDATION_FAILED/, a.text.slice(0, 300));
});

test('item 7: a wrong content type is 415 with a body saying what is accepted', async () => {
  const a = await call(stack.ready.graphql_url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, body: '{ client { id } }' });
  assert.equal(a.status, 415);
  assert.match(a.json.errors[0].message, /application\/json/);
});

// Item 5 ------------------------------------------------------------------------------------------------------------------------
test('item 5: a known path with the wrong method is 405 with Allow, in each listener\'s own shape', async () => {
  const r = stack.ready;
  const simAuth = { authorization: `Bearer ${r.sim_token}` };
  const cases: Array<{ url: string; method: string; headers?: Record<string, string>; allow: string; shape: (j: any) => boolean }> = [
    { url: `${r.rest_base_url}/operator`, method: 'DELETE', headers: { 'x-api-key': key }, allow: 'POST', shape: (j) => j.meta?.status === 'fail' },
    { url: `${r.rest_ha_base_url}/operator/1`, method: 'PATCH', headers: { 'x-api-key': key }, allow: 'PUT', shape: (j) => j.meta?.status === 'fail' },
    { url: r.graphql_url, method: 'PUT', headers: { authorization: `Bearer ${token}` }, allow: 'POST', shape: (j) => Array.isArray(j.errors) },
    { url: `${r.base_url}/oauth2/token`, method: 'GET', allow: 'POST', shape: (j) => typeof j.error === 'string' },
    { url: `${r.sim_url}/clock/advance`, method: 'GET', headers: simAuth, allow: 'POST', shape: (j) => typeof j.error === 'string' && typeof j.message === 'string' },
    { url: `${r.platform_url}/bots`, method: 'DELETE', headers: { 'x-api-key': key }, allow: 'GET', shape: (j) => typeof j.error === 'string' },
  ];
  for (const c of cases) {
    const a = await call(c.url, { method: c.method, headers: c.headers });
    assert.equal(a.status, 405, `${c.method} ${c.url}: ${a.status} ${a.text.slice(0, 200)}`);
    assert.ok((a.headers.allow ?? '').includes(c.allow), `${c.method} ${c.url}: Allow ${a.headers.allow}`);
    assert.ok(c.shape(a.json), `${c.method} ${c.url}: ${a.text.slice(0, 200)}`);
    noInternals(a);
  }
});

test('item 5: bodies the parser refuses are answered in each surface\'s shape, without Fastify codes or internals', async () => {
  const r = stack.ready;
  const bad = { 'content-type': 'application/json' };
  const cases: Array<{ url: string; headers: Record<string, string>; shape: (j: any) => boolean }> = [
    { url: `${r.rest_base_url}/operator`, headers: { 'x-api-key': key, ...bad }, shape: (j) => j.meta?.status === 'fail' },
    { url: `${r.platform_url}/webhooks`, headers: { 'x-api-key': key, ...bad }, shape: (j) => typeof j.error === 'string' && typeof j.message === 'string' },
    { url: `${r.sim_url}/conversations`, headers: { authorization: `Bearer ${r.sim_token}`, ...bad }, shape: (j) => typeof j.error === 'string' && typeof j.message === 'string' },
  ];
  for (const c of cases) {
    const a = await call(c.url, { method: 'POST', headers: c.headers, body: '{"unterminated' });
    assert.equal(a.status, 400, `${c.url}: ${a.status} ${a.text.slice(0, 200)}`);
    assert.ok(c.shape(a.json), `${c.url}: ${a.text.slice(0, 200)}`);
    assert.equal(a.json.code, undefined, `${c.url} shows Fastify's error code: ${a.text}`);
    assert.equal(a.json.statusCode, undefined, `${c.url}: ${a.text}`);
    noInternals(a);
  }
});

test('item 5: an internal error is a 500 in the surface\'s shape with no SQL, stack or path', async () => {
  stack.app.ces.deviations.set(['rest-bad-id-500']);
  try {
    const a = await rest('/operator/abc');
    assert.equal(a.status, 500);
    assert.deepEqual(a.json, { meta: { status: 'error', message: 'Internal error.' } });
    noInternals(a);
  } finally {
    stack.app.ces.deviations.set([]);
  }
});

test('item 5 / 8: a URI over the limit is 414 in the REST shape, before authentication and before the router', async () => {
  const a = await call(`${stack.ready.rest_base_url}/operator/${'1'.repeat(LIMITS.restUriMaxChars)}`);
  assert.equal(a.status, 414);
  assert.equal(a.json.meta.status, 'fail');
  assert.match(a.json.meta.message, new RegExp(String(LIMITS.restUriMaxChars)));
});

test('item 5: the fake connector and the webhook sink answer errors in their shape, 405 with Allow on their control API', async () => {
  const r = stack.ready as typeof stack.ready & { connector_control_url?: string };
  for (const base of [r.connector_control_url, `${r.sink_url}/_control`].filter((u): u is string => !!u)) {
    const a = await call(`${base}/requests`, { method: 'PATCH', headers: { authorization: `Bearer ${r.sim_token}` } });
    assert.ok(a.status === 405 || a.status === 404, `${base}: ${a.status} ${a.text.slice(0, 200)}`);
    if (a.status === 405) assert.ok(a.headers.allow, `${base}: 405 without Allow`);
    assert.equal(typeof a.json?.error, 'string', `${base}: ${a.text.slice(0, 200)}`);
    noInternals(a);
  }
});

test('MAX_SAFE_INTEGER is the documented bound of every id in the OpenAPI document', async () => {
  const doc = (await rest('/openapi.json')).json;
  assert.equal(doc.paths['/operator/{id}'].get.parameters[0].schema.maximum, MAX);
  assert.ok(doc.paths['/operator/{id}'].get.responses['405'] && doc.paths['/operator/{id}'].get.responses['414']);
});
