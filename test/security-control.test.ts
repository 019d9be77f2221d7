// Security of the control surfaces (issue 14 items 2 and 3): /sim needs the sim token, /platform the client's key on every spelling of a path,
// the fakes' /_control the token; a refused clock advance changes nothing; credentials are random off loopback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../reference-impl/app.js';
import { getMeta } from '../reference-impl/store/db.js';
import { isLoopback } from '../reference-impl/stack.js';
import { randomizeCredentials, seededPassword } from '../reference-impl/store/credentials.js';
import { startFakeConnector } from '../fake-connector/server.js';
import { startWebhookSink } from '../webhook-sink/server.js';
import { generateTls } from '../lib/tls.js';
import { agentFor, http } from '../lib/http.js';
import { LIMITS } from '../lib/limits.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SIM_PATHS = ['/sim/clock', '/sim/%63lock', '/sim/clock/', '/sim/deviations', '/sim/bots', '/sim/conversations', '/sim/nothing-here', '/sim/visitors?limit=1'];

test('every /sim route answers 401 in the documented shape without the sim token, whatever the spelling', async () => {
  const app = await buildApp();
  try {
    for (const url of SIM_PATHS) {
      for (const headers of [{}, { authorization: 'Bearer wrong-token' }, { authorization: `Basic ${Buffer.from(app.ces.settings.simToken + ':x').toString('base64')}` }]) {
        const res = await app.inject({ url, headers });
        assert.equal(res.statusCode, 401, `GET ${url} with ${JSON.stringify(Object.keys(headers))}: ${res.body}`);
        assert.equal(res.json().error, 'unauthorized');
        assert.match(res.json().message, /sim_token/);
        assert.match(String(res.headers['www-authenticate']), /^Bearer/);
      }
    }
    const changed = await app.inject({ method: 'POST', url: '/sim/deviations', payload: { ids: ['rest-full-ignored'] } });
    assert.equal(changed.statusCode, 401);
    assert.deepEqual(app.ces.deviations.list(), [], 'an unauthenticated call changed the deviations');
    const ok = await app.inject({ url: '/sim/clock', headers: { authorization: `Bearer ${app.ces.settings.simToken}` } });
    assert.equal(ok.statusCode, 200);
  } finally { await app.close(); }
});

test('every /platform route needs the client key, including percent-encoded spellings, trailing slashes and unknown paths', async () => {
  const app = await buildApp();
  try {
    const key = (app.ces.db.prepare('SELECT api_key FROM clients ORDER BY id LIMIT 1').get() as { api_key: string }).api_key;
    for (const url of ['/platform/bots', '/platform/%62ots', '/platform/bots/', '/platform/%77ebhooks', '/platform/webhooks', '/platform/routing-rules', '/platform/nothing']) {
      const res = await app.inject({ url });
      assert.equal(res.statusCode, 403, `GET ${url} without a key: ${res.statusCode} ${res.body}`);
      assert.deepEqual(res.json(), { meta: { status: 'error', message: 'Forbidden' } });
      const wrong = await app.inject({ url, headers: { 'x-api-key': 'not-a-key' } });
      assert.equal(wrong.statusCode, 403, `GET ${url} with a wrong key`);
    }
    const anonymousWrite = await app.inject({ method: 'POST', url: '/platform/%77ebhooks', payload: { url: 'https://x.example/h', secret: '12345678', events: ['*'] } });
    assert.equal(anonymousWrite.statusCode, 403);
    assert.equal((app.ces.db.prepare('SELECT COUNT(*) AS n FROM webhook_subscriptions').get() as { n: number }).n, 0, 'an anonymous call created a subscription');
    assert.equal((await app.inject({ url: '/platform/%62ots', headers: { 'x-api-key': key } })).statusCode, 200);
    assert.equal((await app.inject({ url: '/platform/nothing', headers: { 'x-api-key': key } })).statusCode, 404);
  } finally { await app.close(); }
});

test('the fakes\' control APIs answer 401 without the token, in any spelling of the path', async () => {
  const tls = generateTls();
  const fake = await startFakeConnector({ tls: tls.server, secret: 'connector-secret', controlToken: 'control-token-1' });
  const sink = await startWebhookSink({ tls: tls.server, secret: 'sink-secret-1', controlToken: 'control-token-1' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-sec-'));
  const ca = path.join(dir, 'ca.pem');
  fs.writeFileSync(ca, tls.ca.cert);
  const agent = agentFor(ca);
  try {
    const calls: Array<[string, string]> = [
      ['POST', `${fake.url}/_control/reset`], ['POST', `${fake.url}/_control/%72eset`], ['POST', `${fake.url}/_control/faults`], ['GET', `${fake.url}/_control/requests`],
      ['POST', `${sink.url}/_control/plan`], ['POST', `${sink.url}/_control/%70lan`], ['GET', `${sink.url}/_control/deliveries`], ['POST', `${sink.url}/_control/reset`],
    ];
    for (const [method, url] of calls) {
      const body = method === 'POST' ? JSON.stringify({ endpoint: 'messages', status: 500, answers: [503] }) : undefined;
      const headers = body ? { 'content-type': 'application/json' } : undefined;
      const res = await http({ method, url, headers, body }, agent);
      assert.equal(res.status, 401, `${method} ${url} without token: ${res.status} ${res.text}`);
      const wrong = await http({ method, url, headers: { ...headers, authorization: 'Bearer control-token-2' }, body }, agent);
      assert.equal(wrong.status, 401, `${method} ${url} with a wrong token`);
    }
    assert.equal(fake.state.faults.length, 0, 'an unauthenticated call programmed a fault');
    const ok = await http({ url: `${fake.url}/_control/requests`, headers: { authorization: 'Bearer control-token-1' } }, agent);
    assert.equal(ok.status, 200);
  } finally {
    await fake.close();
    await sink.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a refused clock advance leaves the clock, the store and the next restart unchanged', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-clock-'));
  const db = path.join(dir, 'ces.db');
  try {
    const app = await buildApp({ db });
    const auth = { authorization: `Bearer ${app.ces.settings.simToken}` };
    const ok = await app.inject({ method: 'POST', url: '/sim/clock/advance', headers: auth, payload: { ms: 60_000 } });
    assert.equal(ok.statusCode, 200);
    const offset = app.ces.clock.offset;
    const stored = getMeta(app.ces.db, 'clock_offset');
    assert.equal(stored, String(offset));
    const bad: unknown[] = [-1, 1.5, '60000', null, true, [1000], { ms: 1 }, 1e300, Number.MAX_SAFE_INTEGER, LIMITS.simClockAdvanceMaxMs + 1];
    for (const ms of bad) {
      const res = await app.inject({ method: 'POST', url: '/sim/clock/advance', headers: auth, payload: { ms } });
      assert.equal(res.statusCode, 400, `ms=${JSON.stringify(ms)}: ${res.statusCode} ${res.body}`);
      assert.equal(res.json().error, 'invalid_request');
      assert.match(res.json().message, /400 days/);
      assert.equal(app.ces.clock.offset, offset, `ms=${JSON.stringify(ms)} moved the clock`);
      assert.equal(getMeta(app.ces.db, 'clock_offset'), stored, `ms=${JSON.stringify(ms)} changed the stored offset`);
    }
    for (const raw of ['{"ms": 1e400}', '{"ms": "Infinity"}', '{}', '[]']) {
      const res = await app.inject({ method: 'POST', url: '/sim/clock/advance', headers: { ...auth, 'content-type': 'application/json' }, payload: raw });
      assert.equal(res.statusCode, 400, `body ${raw}: ${res.statusCode} ${res.body}`);
      assert.equal(app.ces.clock.offset, offset);
    }
    const max = await app.inject({ method: 'POST', url: '/sim/clock/advance', headers: auth, payload: { ms: LIMITS.simClockAdvanceMaxMs } });
    assert.equal(max.statusCode, 200, 'the stated bound itself is accepted');
    const afterMax = app.ces.clock.offset;
    await app.close();
    const again = await buildApp({ db });
    assert.equal(again.ces.clock.offset, afterMax, 'the restart keeps the accepted advances only');
    await again.close();
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});

test('a refused platform or sim write changes nothing', async () => {
  const app = await buildApp();
  try {
    const key = (app.ces.db.prepare('SELECT api_key FROM clients ORDER BY id LIMIT 1').get() as { api_key: string }).api_key;
    const count = (t: string) => (app.ces.db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
    const before = { operators: count('operators'), bots: count('bot_operators'), rules: count('routing_rules') };
    const install = (app.ces.db.prepare('SELECT id FROM connector_installs ORDER BY id LIMIT 1').get() as { id: number } | undefined)?.id ?? 1;
    const bad = await app.inject({ method: 'POST', url: '/platform/bots', headers: { 'x-api-key': key }, payload: { installationId: install, name: 'B', pseudo: 'b', language: 'en', idBot: 42 } });
    assert.equal(bad.statusCode, 400, bad.body);
    const badRule = await app.inject({ method: 'POST', url: '/platform/routing-rules', headers: { 'x-api-key': key }, payload: { websiteId: 1, channels: ['chat', 'fax'], operatorIds: [1] } });
    assert.equal(badRule.statusCode, 400);
    assert.deepEqual({ operators: count('operators'), bots: count('bot_operators'), rules: count('routing_rules') }, before);
    const sim = { authorization: `Bearer ${app.ces.settings.simToken}` };
    const devBefore = app.ces.deviations.list();
    const unknown = await app.inject({ method: 'POST', url: '/sim/deviations', headers: sim, payload: { ids: ['rest-full-ignored', 'no-such-deviation'] } });
    assert.equal(unknown.statusCode, 400);
    assert.deepEqual(app.ces.deviations.list(), devBefore, 'a refused deviation list switched some on');
  } finally { await app.close(); }
});

test('seeded credentials are for loopback only: elsewhere keys and passwords are random per start', async () => {
  for (const h of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) assert.equal(isLoopback(h), true, h);
  for (const h of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'ces.example']) assert.equal(isLoopback(h), false, h);
  const app = await buildApp();
  try {
    const seededKeys = (app.ces.db.prepare('SELECT id, api_key FROM clients ORDER BY id').all() as Array<{ id: number; api_key: string }>);
    const first = randomizeCredentials(app.ces.db);
    const second = randomizeCredentials(app.ces.db);
    for (const c of seededKeys) {
      assert.notEqual(first.get(c.id)!.apiKey, c.api_key);
      assert.notEqual(second.get(c.id)!.apiKey, first.get(c.id)!.apiKey, 'two starts share a key');
      assert.ok(first.get(c.id)!.adminPassword.length >= 16);
    }
    const login = (username: string, password: string) => app.inject({ method: 'POST', url: '/oauth2/token', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'password', username, password }).toString() });
    const c1 = seededKeys[0]!.id;
    assert.equal((await login('admin@client1.example', seededPassword(42, c1))).statusCode, 400, 'the seeded password still opens the account');
    assert.equal((await login('admin@client1.example', second.get(c1)!.adminPassword)).statusCode, 200);
    const rest = await app.inject({ url: '/api/2/operator', headers: { 'x-api-key': seededKeys[0]!.api_key } });
    assert.equal(rest.statusCode, 403, 'the seeded key still opens the REST API');
  } finally { await app.close(); }
});
