// Unit tests of area "auth" through inject(): token issue and 24 h expiry on the service clock, G6 errors, throttle per user and per IP.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../reference-impl/app.js';
import { seededPassword } from '../reference-impl/store/credentials.js';
import { LIMITS } from '../lib/limits.js';

let app: FastifyInstance;
beforeEach(async () => { app = await buildApp({}); });
afterEach(async () => { await app.close(); });

const ADMIN = { username: 'admin@client1.example', password: seededPassword(42, 1001) };
const AGENT = { username: 'agent@client1.example', password: seededPassword(42, 1001) + '-agent' };

function login(fields: Record<string, string>, ip = '127.0.0.1') {
  return app.inject({ method: 'POST', url: '/oauth2/token', remoteAddress: ip, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
}
const check = (token: string) => app.inject({ method: 'GET', url: '/_authenticated', headers: { authorization: `Bearer ${token}` } });

test('a token is valid until 24 h of service-clock time, then answers the spec\'s invalid_token body', async () => {
  const res = await login({ ...ADMIN, grant_type: 'password' });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(Object.keys(res.json()).sort(), ['access_token', 'expires_in', 'refresh_token', 'token_type']);
  assert.equal(res.json().expires_in, LIMITS.tokenLifetimeMs / 1000);
  const token = res.json().access_token;
  assert.deepEqual((await check(token)).json(), { authenticated: true });
  // Real time also runs between the calls (well under 1 s): the probe is 1 s of clock time before the end.
  app.ces.clock.advance(LIMITS.tokenLifetimeMs - 1_000);
  assert.equal((await check(token)).statusCode, 200, 'valid 1 s before 24 h');
  app.ces.clock.advance(1_000);
  const gone = await check(token);
  assert.equal(gone.statusCode, 401);
  assert.deepEqual(gone.json(), { error: 'invalid_token', error_description: 'access token not valid' });
});

test('only a digest of the token is stored', async () => {
  const token = (await login({ ...ADMIN, grant_type: 'password' })).json().access_token as string;
  const rows = app.ces.db.prepare('SELECT * FROM auth_tokens').all();
  assert.ok(!JSON.stringify(rows).includes(token));
});

test('G6 error bodies', async () => {
  assert.equal((await login({ ...ADMIN, password: 'wrong', grant_type: 'password' })).json().error, 'invalid_grant');
  assert.equal((await login({ ...ADMIN, grant_type: 'client_credentials' })).json().error, 'unsupported_grant_type');
  assert.equal((await login({ username: ADMIN.username, grant_type: 'password' })).json().error, 'invalid_request');
  const json = await app.inject({ method: 'POST', url: '/oauth2/token', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ ...ADMIN, grant_type: 'password' }) });
  assert.equal(json.statusCode, 400, 'the spec\'s body is form-encoded');
});

test('per user: 10 logins (failed ones count) then 429 with Retry-After; the sliding window frees a slot', async () => {
  for (let i = 0; i < LIMITS.loginsPerUserPerMinute; i++) {
    const r = await login({ ...AGENT, password: i % 2 ? AGENT.password : 'wrong', grant_type: 'password' }, `10.0.0.${i}`);
    assert.notEqual(r.statusCode, 429, `login ${i + 1}`);
    app.ces.clock.advance(1_000);
  }
  const refused = await login({ ...AGENT, grant_type: 'password' }, '10.0.1.1');
  assert.equal(refused.statusCode, 429);
  assert.deepEqual(Object.keys(refused.json()).sort(), ['error', 'error_description']);
  assert.equal(refused.json().error, 'too_many_requests');
  // The first attempt was 10 s ago: it leaves the 60 s window 50 s from now.
  assert.equal(refused.headers['retry-after'], String((LIMITS.loginWindowMs - 10_000) / 1000));
  // Real time also runs (well under 1 s): probe 1 s of clock time before the slot frees, then at the end.
  app.ces.clock.advance(LIMITS.loginWindowMs - 10_000 - 1_000);
  assert.equal((await login({ ...AGENT, grant_type: 'password' })).statusCode, 429, 'still inside the window');
  app.ces.clock.advance(1_000);
  assert.equal((await login({ ...AGENT, grant_type: 'password' })).statusCode, 200, 'a slot is free');
});

test('per IP: 100 logins then 429, other addresses unaffected; the sim reset clears one address', async () => {
  for (let i = 0; i < LIMITS.loginsPerIpPerMinute; i++) {
    const r = await login({ username: `nobody${i}@x.example`, password: 'x', grant_type: 'password' }, '10.9.9.9');
    assert.equal(r.statusCode, 400, `login ${i + 1}`);
  }
  assert.equal((await login({ ...ADMIN, grant_type: 'password' }, '10.9.9.9')).statusCode, 429);
  assert.equal((await login({ ...ADMIN, grant_type: 'password' }, '10.9.9.10')).statusCode, 200);
  const reset = await app.inject({ method: 'POST', url: '/sim/throttle/reset', headers: { 'content-type': 'application/json', authorization: `Bearer ${app.ces.settings.simToken}` }, payload: JSON.stringify({ ip: '10.9.9.9' }) });
  assert.equal(reset.json().removed, LIMITS.loginsPerIpPerMinute);
  assert.equal((await login({ ...ADMIN, grant_type: 'password' }, '10.9.9.9')).statusCode, 200);
});

test('sim users are real logins of the asked client', async () => {
  const res = await app.inject({ method: 'POST', url: '/sim/users', headers: { 'content-type': 'application/json', authorization: `Bearer ${app.ces.settings.simToken}` }, payload: JSON.stringify({ client_id: 2001 }) });
  assert.equal(res.statusCode, 201);
  const u = res.json();
  const tok = await login({ username: u.username, password: u.password, grant_type: 'password' });
  assert.equal(tok.statusCode, 200);
  const gql = await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', authorization: `Bearer ${tok.json().access_token}` }, payload: JSON.stringify({ query: '{ client { id } }' }) });
  assert.deepEqual(gql.json(), { data: { client: { id: '2001' } } });
});
