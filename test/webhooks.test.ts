// Webhook area unit tests with inject(): subscription validation, the --webhook-url start subscription, the --insecure flag, payload shapes per kind, correlation ids.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../reference-impl/app.js';
import { payloadsFor } from '../reference-impl/webhooks/payloads.js';
import { check } from '../lib/schemas.js';
import { subscriptionProblem } from '../suites/webhooks/subscription-step.js';

const keyOf = (app: Awaited<ReturnType<typeof buildApp>>, i = 0) =>
  (app.ces.db.prepare('SELECT api_key FROM clients ORDER BY id').all() as Array<{ api_key: string }>)[i]!.api_key;

test('subscriptions: HTTPS only, a secret, known kinds, deprecated kinds only with includeDeprecated', async () => {
  const app = await buildApp();
  try {
    const key = keyOf(app);
    const post = (payload: object) => app.inject({ method: 'POST', url: '/platform/webhooks', headers: { 'x-api-key': key }, payload });
    const base = { url: 'https://hooks.example/x', secret: 'long-enough-secret', events: ['user.created'] };
    assert.equal((await post(base)).statusCode, 201);
    const http = await post({ ...base, url: 'http://hooks.example/x' });
    assert.equal(http.statusCode, 400);
    assert.match(http.json().message, /HTTPS/);
    assert.equal((await post({ ...base, secret: 'short' })).statusCode, 400);
    assert.equal((await post({ ...base, events: ['no.such.kind'] })).statusCode, 400);
    assert.equal((await post({ ...base, events: ['conversation.closed'] })).statusCode, 400);
    assert.equal((await post({ ...base, events: ['conversation.closed'], includeDeprecated: true })).statusCode, 201);
    assert.equal((await app.inject({ method: 'POST', url: '/platform/webhooks', payload: base })).statusCode, 403);
  } finally { await app.close(); }
});

test('a platform API that answers a created subscription 200 (webhooks-subscription-created-200, G17 decided otherwise): the checks\' set-up step still takes it, so only WH-SUB-01 reports', async () => {
  const app = await buildApp({ deviate: ['webhooks-subscription-created-200'] });
  try {
    const payload = { url: 'https://hooks.example/x', secret: 'long-enough-secret', events: ['user.created'] };
    const res = await app.inject({ method: 'POST', url: '/platform/webhooks', headers: { 'x-api-key': keyOf(app) }, payload });
    assert.equal(res.statusCode, 200);
    assert.equal(typeof res.json().id, 'string', 'still the subscription');
    // The step (suites/webhooks/helpers.ts subscribe) needs a 2xx with an id: this answer is one, and so is the reference's 201.
    assert.equal(subscriptionProblem({ status: res.statusCode, json: res.json(), text: res.body }), undefined);
    assert.equal(subscriptionProblem({ status: 201, json: res.json(), text: res.body }), undefined);
    // What it is not: a refusal, or a 2xx without the subscription's id (the check's own clauses are then NOT JUDGED naming the step).
    assert.match(String(subscriptionProblem({ status: 400, json: { message: 'no' }, text: '{"message":"no"}' })), /^subscription refused: 400 /);
    assert.match(String(subscriptionProblem({ status: 204, json: undefined, text: '' })), /no id/);
  } finally { await app.close(); }
});

test('--insecure accepts plain-HTTP callbacks; --webhook-url subscribes every current kind of every client once', async () => {
  const app = await buildApp({ insecure: true, webhookUrl: 'https://vendor.example/hook', webhookSecret: 'vendor-secret-1' });
  try {
    const res = await app.inject({ method: 'POST', url: '/platform/webhooks', headers: { 'x-api-key': keyOf(app) }, payload: { url: 'http://localhost:9/x', secret: 'long-enough-secret', events: ['*'] } });
    assert.equal(res.statusCode, 201);
    const rows = app.ces.db.prepare("SELECT client_id, events FROM webhook_subscriptions WHERE url = 'https://vendor.example/hook'").all() as Array<{ client_id: number; events: string }>;
    const clients = app.ces.db.prepare('SELECT COUNT(*) AS n FROM clients').get() as { n: number };
    assert.equal(rows.length, clients.n, 'one subscription per client');
    for (const r of rows) assert.ok(JSON.parse(r.events).includes('v2.conversation.closed') && !JSON.parse(r.events).includes('conversation.closed'));
  } finally { await app.close(); }
});

test('every payload the service builds matches its schema', async () => {
  const app = await buildApp();
  try {
    const { db, deviations } = app.ces;
    const at = Date.UTC(2026, 10, 22, 1, 2, 3, 456);
    const clientId = (db.prepare('SELECT id FROM clients ORDER BY id LIMIT 1').get() as { id: number }).id;
    const convOf = (channel: string) => (db.prepare('SELECT id FROM conversations WHERE client_id = ? AND channel = ? AND operator_id IS NOT NULL LIMIT 1').get(clientId, channel) as { id: number }).id;
    const events = [
      { kind: 'user.created', clientId, userId: 5, at }, { kind: 'user.disconnected', clientId, userId: 5, at },
      { kind: 'visitor.updated', clientId, visitorId: 'abc', operatorId: 4, at },
      { kind: 'conversation.pushed', clientId, conversationId: convOf('chat'), viaTransfer: false, at },
      { kind: 'conversation.pushed', clientId, conversationId: convOf('chat'), viaTransfer: true, at },
      { kind: 'conversation.started', clientId, conversationId: convOf('call'), at },
      { kind: 'conversation.closed', clientId, conversationId: convOf('social_a'), at },
      { kind: 'conversation.closed', clientId, conversationId: convOf('chat'), at },
    ] as const;
    const kinds = new Set<string>();
    for (const e of events) {
      for (const p of payloadsFor(db, deviations.policy.webhooks, e, at + 1)) {
        kinds.add(p.kind);
        assert.equal(check(`webhooks/${p.kind}.json`, p.body), null, `${p.kind}: ${JSON.stringify(p.body)}`);
      }
    }
    assert.deepEqual([...kinds].sort(), ['conversation.closed', 'conversation.started', 'conversation.transferred', 'user.created', 'user.disconnected',
      'v2.conversation.closed', 'v2.conversation.pushed', 'visitor.updated']);
    const [v2] = payloadsFor(db, deviations.policy.webhooks, events[3], at);
    assert.equal(v2!.body.createdAt, '2026-11-22T01:02:03.456Z');
    const [old] = payloadsFor(db, deviations.policy.webhooks, events[0], at);
    assert.equal(old!.body.createdAt, '2026-11-22T01:02:03+00:00');
  } finally { await app.close(); }
});

test('correlation ids are UUIDs of version 7, ordered by their time (their UNIQUE index grows at its end)', async () => {
  const { timeOrderedUuid } = await import('../reference-impl/webhooks/dispatcher.js');
  const t = Date.UTC(2026, 10, 23, 17, 0, 0);
  const ids = [t, t + 1, t + 1_000, t + 86_400_000].map((ms) => timeOrderedUuid(ms));
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, `${id} is a UUID v7`);
  assert.deepEqual([...ids].sort(), ids, 'later ids sort after earlier ones');
  assert.equal(parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16), t, 'the first 48 bits are the time in ms');
  assert.notEqual(timeOrderedUuid(t), timeOrderedUuid(t), 'two ids of the same ms differ');
});
