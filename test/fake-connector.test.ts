// Unit tests of the fake connector: signature verdicts and refusals, schema violations recorded, placeholders, the 240x120 picture, faults, the lock, waitForRequest.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { imageSize } from 'image-size';
import { generateTls } from '../lib/tls.js';
import { sign } from '../lib/signature.js';
import { http, type HttpAnswer } from '../lib/http.js';
import { Agent } from 'undici';
import { startFakeConnector, materialize } from '../fake-connector/server.js';
import { cardPng } from '../fake-connector/image.js';
import { check } from '../lib/schemas.js';

const tls = generateTls();
const secret = 'fake-connector-test-secret';
const fake = await startFakeConnector({ tls: tls.server, secret });
const agent = new Agent({ connect: { ca: [tls.ca.cert] } });
after(async () => { await fake.close(); await agent.close(); });
const V = '0b6e5c2e-51a3-4e7c-9d8a-2c4b7f0e1a11';

async function call(method: string, path: string, query: string, body?: unknown, signWith = secret): Promise<HttpAnswer> {
  const raw = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { 'x-service-signature': sign(signWith, method === 'GET' ? query : raw ?? '') };
  if (raw) headers['content-type'] = 'application/json';
  return http({ method, url: `${fake.url}${path}?${query}`, headers, body: raw }, agent);
}

test('a signed GET /external-bots answers scenarios that match the schema; the log says the signature verified', async () => {
  const res = await call('GET', '/external-bots', `idConnectorVersion=${V}&idWebsite=1`);
  assert.equal(res.status, 200);
  assert.equal(check('connector/scenarios.json', res.json), null);
  const rec = fake.state.log.at(-1)!;
  assert.deepEqual(rec.signature, { ok: true });
  assert.deepEqual(rec.violations, []);
});

test('a wrong signature is refused with 401 and recorded; a missing idWebsite is a violation', async () => {
  const bad = await call('GET', '/external-bots', `idConnectorVersion=${V}&idWebsite=1`, undefined, 'other-secret');
  assert.equal(bad.status, 401);
  assert.equal(fake.state.log.at(-1)!.signature.ok, false);
  const noSite = await call('GET', '/external-bots', `idConnectorVersion=${V}`);
  assert.equal(noSite.status, 200);
  assert.match(fake.state.log.at(-1)!.violations.join(';'), /idWebsite/);
});

test('PUT /bots binds a scenario; endpoint 7 answers per visitor text, ignores operator messages, and scripts bind conversations', async () => {
  const write = { name: 'B', pseudo: 'B', language: 'en', distributionRules: [{ id: '2f4a4b52-94e4-4a0c-a3e4-4c3d2b1a0f99', label: 'Support (asynchronous)' }], external: { idBot: 'demo' } };
  const put = await call('PUT', '/bots/7', `idConnectorVersion=${V}&idWebsite=1`, write);
  assert.equal(put.status, 200);
  assert.equal(check('connector/bot.json', put.json), null);
  const conv = 'a3f1c2d4-1111-4aaa-8bbb-123456789abc';
  const created = await call('POST', '/conversations', `idConnectorVersion=${V}&idWebsite=1`, { idOperator: '7', idConversation: conv, history: [] });
  assert.deepEqual(created.json.replies, []);
  const msg = (role: string, value: string) => ({ idOperator: '7', message: { idMessage: 'b3f1c2d4-1111-4aaa-8bbb-123456789abc', author: { role }, payload: { contentType: 'text', value }, createdAt: '2026-01-01T10:00:00.000+01:00[Europe/Paris]' } });
  const visitor = await call('POST', `/conversations/${conv}/messages`, `idConnectorVersion=${V}&idWebsite=1`, msg('visitor', 'transfer support'));
  assert.equal(check('connector/conversation.json', visitor.json), null);
  assert.equal(visitor.json.replies[1].distributionRule, '2f4a4b52-94e4-4a0c-a3e4-4c3d2b1a0f99', '@rule: placeholder resolved from the write body');
  const operator = await call('POST', `/conversations/${conv}/messages`, `idConnectorVersion=${V}&idWebsite=1`, msg('operator', 'transfer support'));
  assert.deepEqual(operator.json.replies, [], 'operator messages get no replies');
  assert.deepEqual(fake.state.log.at(-1)!.violations, []);
});

test('faults: status, malformed JSON and delay; waitFor resolves on arrival', async () => {
  fake.state.faults.unshift({ endpoint: 'availability', idOperator: '9', fault: { status: 503, times: 1 } });
  const q = `idConnectorVersion=${V}&idWebsite=1&idOperator=9`;
  assert.equal((await call('GET', '/availability-strategies', q)).status, 503);
  assert.equal((await call('GET', '/availability-strategies', q)).status, 200, 'times: 1 consumed');
  fake.state.faults.unshift({ endpoint: 'availability', idOperator: '9', fault: { malformed: true, times: 1 } });
  const m = await call('GET', '/availability-strategies', q);
  assert.equal(m.json, undefined);
  const since = fake.state.log.at(-1)!.seq;
  const waiting = fake.state.waitFor((r) => r.endpoint === 'availability', since, 2_000);
  await call('GET', '/availability-strategies', q);
  assert.ok(await waiting);
  assert.equal(await fake.state.waitFor(() => false, since, 50), null, 'deadline resolves null');
});

test('materialize replaces @rule:, @uuid and {{connector_url}}', () => {
  const out = materialize({ a: '@rule:Night', b: '@uuid', c: '{{connector_url}}/x' }, { rules: [{ id: 'r1', label: 'Night shift' }], connectorUrl: 'https://c' });
  assert.equal(out.a, 'r1');
  assert.match(out.b, /^[0-9a-f-]{36}$/);
  assert.equal(out.c, 'https://c/x');
});

test('the card picture is a 240x120 PNG served over HTTPS', async () => {
  assert.deepEqual({ ...imageSize(cardPng()) }, { height: 120, width: 240, type: 'png' });
  const res = await http({ url: `${fake.url}/images/card.png` }, agent);
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'image/png');
});

test('the control API lists a copy of a scenario under another idBot (one bot agent per scenario: load runs need many), refuses an unknown original, and a reset forgets the copy', async () => {
  const control = (body: unknown) => http({ method: 'POST', url: `${fake.url}/_control/scenario`, headers: { authorization: `Bearer ${fake.controlToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }, agent);
  const made = await control({ idBot: 'load-7', copyOf: 'demo' });
  assert.equal(made.status, 200, made.text);
  const listed = (await call('GET', '/external-bots', `idConnectorVersion=${V}&idWebsite=1`)).json as Array<{ idBot: string; name: string }>;
  assert.ok(listed.some((s) => s.idBot === 'load-7' && s.name.includes('load-7')), JSON.stringify(listed));
  assert.equal(check('connector/scenarios.json', listed), null);
  const unknown = await control({ idBot: 'load-8', copyOf: 'no-such-scenario' });
  assert.equal(unknown.status, 400);
  assert.match(unknown.text, /copyOf: no scenario/);
  assert.equal((await control({ idBot: 'bad id!', copyOf: 'demo' })).status, 400);
  fake.state.reset();
  const after = (await call('GET', '/external-bots', `idConnectorVersion=${V}&idWebsite=1`)).json as Array<{ idBot: string }>;
  assert.ok(!after.some((s) => s.idBot === 'load-7'), 'a reset lists the folder\'s scenarios only');
});
