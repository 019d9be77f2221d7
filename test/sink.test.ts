// The webhook sink alone: verdicts on signature, headers and payload schema, plans per correlation id (incl. slow answers), waits, reset.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startWebhookSink } from '../webhook-sink/server.js';
import { generateTls } from '../lib/tls.js';
import { sign } from '../lib/signature.js';
import { agentFor, http } from '../lib/http.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const secret = 'sink-unit-secret';
const tls = generateTls();
const caFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ces-sink-test-')), 'ca.pem');
fs.writeFileSync(caFile, tls.ca.cert);
const sink = await startWebhookSink({ tls: tls.server, secret });
after(() => sink.close());
const agent = agentFor(caFile);

const payload = () => ({
  eventId: randomUUID(), eventType: 'user.created', platform: 'sd', clientId: 1001, userId: 7,
  createdAt: '2026-11-22T01:02:03+00:00', sentAt: '2026-11-22T01:02:03+00:00',
});
async function send(p: string, body: string, opts: { signature?: string; correlationId?: string; contentType?: string } = {}) {
  return http({
    method: 'POST', url: sink.url + p, body,
    headers: {
      'content-type': opts.contentType ?? 'application/json', 'x-service-delivery': randomUUID(),
      'x-service-correlationid': opts.correlationId ?? randomUUID(), 'x-service-signature': opts.signature ?? sign(secret, body),
    },
  }, agent);
}

test('a correct delivery gets clean verdicts and a 200 by default', async () => {
  const body = JSON.stringify(payload());
  const res = await send('/hooks/ok', body);
  assert.equal(res.status, 200);
  const [d] = sink.deliveries({ path: '/hooks/ok' });
  assert.ok(d);
  assert.deepEqual(d.verdicts, { contentType: null, deliveryId: null, correlationId: null, signature: { ok: true }, schema: null, extraFields: [] });
  assert.equal(Buffer.from(d.bodyBase64, 'base64').toString('utf8'), body, 'raw bytes kept');
});

test('wrong signature, uppercase hex, wrong field and wrong content type are each flagged', async () => {
  const body = JSON.stringify(payload());
  await send('/hooks/bad', body, { signature: sign('other', body) });
  await send('/hooks/bad', body, { signature: 'sha256=' + sign(secret, body).slice(7).toUpperCase() });
  const wrong = { ...payload(), client_id: 1001 } as Record<string, unknown>;
  delete wrong.clientId;
  const wb = JSON.stringify(wrong);
  await send('/hooks/bad', wb);
  await send('/hooks/bad', body, { contentType: 'text/plain' });
  const ds = sink.deliveries({ path: '/hooks/bad' });
  assert.equal(ds.length, 4);
  assert.equal(ds[0]!.verdicts.signature.ok, false);
  assert.equal(ds[1]!.verdicts.signature.ok, false);
  assert.match(ds[2]!.verdicts.schema ?? '', /client_id|clientId/);
  assert.match(ds[3]!.verdicts.contentType ?? '', /text\/plain/);
});

test('fields beyond those listed are tolerated and named (G25); a listed field missing still fails; G22 kinds are known', async () => {
  await send('/hooks/g25', JSON.stringify({ ...payload(), visitorId: 'v-1' }));
  const missing = { ...payload() } as Record<string, unknown>;
  delete missing.clientId;
  await send('/hooks/g25', JSON.stringify(missing));
  for (const kind of ['user.availability.updated', 'satisfaction.answered', 'transaction.attributed']) {
    await send('/hooks/g25', JSON.stringify({ eventId: randomUUID(), eventType: kind, platform: 'sd', clientId: 1, createdAt: '2024-05-01T10:00:00.000Z', sentAt: '2024-05-01T10:00:00.000Z', anything: 1 }));
  }
  const ds = sink.deliveries({ path: '/hooks/g25' });
  assert.equal(ds[0]!.verdicts.schema, null, 'an extra field is no error');
  assert.deepEqual(ds[0]!.verdicts.extraFields, ['/visitorId']);
  assert.match(ds[1]!.verdicts.schema ?? '', /clientId/);
  for (const d of ds.slice(2)) assert.equal(d.verdicts.schema, null, `${d.eventType} is a known kind`);
});

test('a plan answers per correlation id in order, then `then`; a delayed answer is held', async () => {
  sink.plan({ path: '/hooks/plan' }, [503, { status: 200, delayMs: 300 }], 204);
  const corr = randomUUID();
  const body = JSON.stringify(payload());
  assert.equal((await send('/hooks/plan', body, { correlationId: corr })).status, 503);
  const slow = await send('/hooks/plan', body, { correlationId: corr });
  assert.equal(slow.status, 200);
  assert.ok(slow.ms >= 290, `the answer was held ${slow.ms} ms (planned 300 ms)`);
  assert.equal((await send('/hooks/plan', body, { correlationId: corr })).status, 204, 'past the list: then');
  assert.equal((await send('/hooks/plan', body)).status, 503, 'another event starts the list again');
});

test('a stall accepts TCP and never answers the TLS handshake; its connections are recorded', async () => {
  const stall = await sink.stall();
  const started = Date.now();
  const res = await http({ method: 'POST', url: stall.url, body: '{}', timeoutMs: 300 }, agent).catch((e: Error) => e);
  assert.ok(res instanceof Error, 'no answer ever comes');
  const got = await sink.waitForStall(stall.id, 1, 1_000);
  assert.equal(got.connections.length, 1);
  assert.ok(got.connections[0]! >= started - 5);
});

test('wait resolves on arrival, or at its deadline with what it has; reset clears a path', async () => {
  const waiting = sink.waitFor({ path: '/hooks/wait' }, 1, 5_000);
  await send('/hooks/wait', JSON.stringify(payload()));
  const got = await waiting;
  assert.equal(got.timedOut, false);
  assert.equal(got.deliveries.length, 1);
  const none = await sink.waitFor({ path: '/hooks/wait' }, 2, 50);
  assert.equal(none.timedOut, true);
  const viaApi = await http({ url: `${sink.controlUrl}/deliveries?path=/hooks/wait&body.userId=7`, headers: { authorization: `Bearer ${sink.controlToken}` } }, agent);
  assert.equal(viaApi.json.deliveries.length, 1);
  await http({ method: 'POST', url: `${sink.controlUrl}/reset`, headers: { 'content-type': 'application/json', authorization: `Bearer ${sink.controlToken}` }, body: JSON.stringify({ path: '/hooks/wait' }) }, agent);
  assert.equal(sink.deliveries({ path: '/hooks/wait' }).length, 0);
});
