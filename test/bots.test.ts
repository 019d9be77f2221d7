// Unit tests of the bot runtime: zoned dates, strategies, routing-rule availability, and conversation state plus pending timers surviving a restart (SQLite).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { generateTls } from '../lib/tls.js';
import { buildApp } from '../reference-impl/app.js';
import { startFakeConnector } from '../fake-connector/server.js';
import { zonedDateTime } from '../reference-impl/bots/connector-calls.js';
import { routingRuleAvailability } from '../reference-impl/bots/availability.js';
import { getAjv } from '../lib/schemas.js';

const tls = generateTls();
const secret = 'bots-unit-test-secret';
const fake = await startFakeConnector({ tls: tls.server, secret });
after(() => fake.close());
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-bots-'));
const dbFile = path.join(dir, 'ces.db');
const build = () => buildApp({ db: dbFile, connectorUrl: fake.url, connectorSecret: secret, outboundCa: [tls.ca.cert] });

/** Polls `fn` until it returns a truthy value, or fails at the deadline. */
async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const sim = (app: FastifyInstance) => ({ authorization: `Bearer ${app.ces.settings.simToken}` });
const get = async (app: FastifyInstance, url: string) => (await app.inject({ url, headers: sim(app) })).json();

test('zonedDateTime gives <timestamp>[<zone_id>] with the zone offset', () => {
  const ms = Date.UTC(2026, 0, 15, 12, 0, 0);
  assert.equal(zonedDateTime(ms, 'Europe/Paris'), '2026-01-15T13:00:00.000+01:00[Europe/Paris]');
  assert.equal(zonedDateTime(ms, 'UTC'), '2026-01-15T12:00:00.000Z[UTC]');
  const fmt = getAjv().formats['zoned-date-time'] as RegExp;
  assert.ok(fmt.test(zonedDateTime(ms, 'America/New_York')));
});

test('seeded bots are created on the connector, polled, and a scheduled message survives a restart', async () => {
  let app = await build();
  const bots = await until('two ready available bots', async () => {
    const b = (await get(app, '/sim/bots')).bots;
    return b.filter((x: any) => x.status === 'ready' && x.available).length >= 2 ? b : null;
  });
  assert.equal(bots[0].idBot, 'demo');
  assert.equal(bots[1].idBot, 'lab');
  const rule = bots[0].routingRules[0];
  assert.deepEqual(routingRuleAvailability(app.ces, app.ces.bots.poller, bots[0].clientId, rule.id), { chat: true, call: false, video: false });
  assert.equal(routingRuleAvailability(app.ces, app.ces.bots.poller, bots[0].clientId, 'no-such-rule'), null);
  assert.equal(routingRuleAvailability(app.ces, app.ces.bots.poller, bots[0].clientId + 1, rule.id), null, 'another client never sees the rule');

  const created = await app.inject({ method: 'POST', url: '/sim/conversations', headers: sim(app), payload: { channel: 'chat', text: 'schedule a minute' } });
  assert.equal(created.statusCode, 201);
  const id = created.json().conversationId;
  await until('the message before the await', async () => (await get(app, `/sim/conversations/${id}`)).transcript.some((e: any) => e.payload.value === 'I will write again in a minute.'));
  const before = await get(app, `/sim/conversations/${id}`);
  assert.deepEqual(before.pendingTimers.map((t: any) => t.kind).sort(), ['inactivity', 'replies']);
  await app.close();

  app = await build();
  const again = await get(app, `/sim/conversations/${id}`);
  assert.equal(again.state, 'started');
  assert.deepEqual(again.pendingTimers, before.pendingTimers, 'timers persisted');
  await app.inject({ method: 'POST', url: '/sim/clock/advance', headers: sim(app), payload: { ms: 61_000 } });
  await until('the scheduled message after the restart', async () => (await get(app, `/sim/conversations/${id}`)).transcript.some((e: any) => e.payload.value === 'A minute has passed.'));
  await app.inject({ method: 'POST', url: '/sim/clock/advance', headers: sim(app), payload: { ms: 5 * 60_000 } });
  const closed = await get(app, `/sim/conversations/${id}`);
  assert.equal(closed.state, 'closed');
  assert.equal(closed.closeReason, 'inactivity');
  await app.close();
});

test('platform API refuses requests without the API key', async () => {
  const app = await build();
  const res = await app.inject({ url: '/platform/bots' });
  assert.equal(res.statusCode, 403);
  assert.deepEqual(res.json(), { meta: { status: 'error', message: 'Forbidden' } });
  await app.close();
});

test('a waiting transfer is performed as soon as an operator of the rule becomes available', async () => {
  const app = await build();
  await until('the seeded bot available', async () => (await get(app, '/sim/bots')).bots.find((b: any) => b.websiteId === 1 && b.available));
  const created = await app.inject({ method: 'POST', url: '/sim/conversations', headers: sim(app), payload: { channel: 'chat', text: 'example transfer' } });
  const id = created.json().conversationId;
  await until('the transfer waits', async () => (await get(app, `/sim/conversations/${id}`)).phase === 'transferring');
  const night = (await get(app, '/sim/bots')).bots[0].distributionRules.find((r: any) => r.label.startsWith('Night shift'));
  const op = night.operatorIds[0];
  app.ces.db.prepare('INSERT OR REPLACE INTO operator_live (operator_id, connected, chat_available, call_available, video_available) VALUES (?, 1, 1, 0, 0)').run(op);
  const v = await until('transferred to the operator who became available', async () => { const x = await get(app, `/sim/conversations/${id}`); return x.phase === 'human' ? x : null; }, 4_000);
  assert.equal(v.operatorId, op);
  assert.ok(!v.transcript.some((e: any) => e.payload.value === 'Sorry, nobody could take your conversation.'), 'replies after a successful transfer dropped');
  await app.close();
});
