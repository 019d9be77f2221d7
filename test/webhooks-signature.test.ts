// A delivery signed by the reference implementation verifies with an independent, widely used verifier of the `sha256=<hex>` HMAC scheme (@octokit/webhooks-methods).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { buildApp } from '../reference-impl/app.js';
import { startWebhookSink } from '../webhook-sink/server.js';
import { generateTls } from '../lib/tls.js';

test('the reference implementation\'s X-Service-Signature verifies with @octokit/webhooks-methods; a changed byte does not', async () => {
  const secret = 'octokit-cross-check-secret';
  const tls = generateTls();
  const sink = await startWebhookSink({ tls: tls.server, secret });
  const app = await buildApp({ outboundCa: [tls.ca.cert] });
  try {
    const key = (app.ces.db.prepare('SELECT api_key FROM clients ORDER BY id LIMIT 1').get() as { api_key: string }).api_key;
    const sub = await app.inject({ method: 'POST', url: '/platform/webhooks', headers: { 'x-api-key': key, authorization: `Bearer ${app.ces.settings.simToken}` }, payload: { url: `${sink.url}/hooks/octokit`, secret, events: ['visitor.updated'] } });
    assert.equal(sub.statusCode, 201, sub.body);
    const uid = (await app.inject({ method: 'GET', url: '/sim/visitors?limit=1', headers: { 'x-api-key': key, authorization: `Bearer ${app.ces.settings.simToken}` } })).json().visitors[0].uniqueId;
    const up = await app.inject({ method: 'POST', url: `/sim/visitors/${uid}`, headers: { 'x-api-key': key, authorization: `Bearer ${app.ces.settings.simToken}` }, payload: { city: 'Nantes — été' } });
    assert.equal(up.statusCode, 200, up.body);
    const { deliveries } = await sink.waitFor({ path: '/hooks/octokit' }, 1, 10_000);
    assert.equal(deliveries.length, 1, 'the delivery arrives');
    const d = deliveries[0]!;
    const signature = d.headers['x-service-signature']!;
    assert.match(signature, /^sha256=[0-9a-f]{64}$/);
    const raw = Buffer.from(d.bodyBase64, 'base64').toString('utf8');
    assert.equal(await octokitVerify(secret, raw, signature), true, 'octokit verifies the signature over the raw body');
    assert.equal(await octokitVerify(secret, raw + ' ', signature), false, 'one extra byte breaks it');
    assert.equal(await octokitVerify('another-secret', raw, signature), false, 'another secret breaks it');
    assert.deepEqual(d.verdicts.signature, { ok: true }, 'the sink agrees');
  } finally {
    await app.close();
    await sink.close();
  }
});
