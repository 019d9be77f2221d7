// Webhook subscriptions through the platform API (G17): lifecycle, HTTPS only, one client per subscription, only the kinds named.
import { randomUUID } from 'node:crypto';
import { test, expect, clauses, needs, otherKey, PROMPT_MS } from './helpers.js';

/** How long an absent delivery is waited for after a control delivery of the same action arrived. */
const GRACE_MS = 2_000;

test.describe('webhook subscriptions', needs('platform', 'sim', 'sink_url'), () => {

  test('create, read, list and delete a subscription; the secret is never shown; a deleted one receives nothing',
    clauses('WH-SUB-01'), async ({ hooks, api, target }) => {
      const secret = 'whsec-' + randomUUID();
      const url = `${hooks.sinkUrl}/hooks/${randomUUID()}`;
      const created = await api.postJson(`${hooks.platformUrl}/webhooks`, { url, secret, events: ['visitor.updated', 'user.created'] }, { 'x-api-key': target.api_key });
      expect(created.status, created.text).toBe(201);
      expect(created.json, 'the answer describes the subscription').toMatchObject({ url, events: ['visitor.updated', 'user.created'] });
      expect(typeof created.json.id, 'the subscription has an id').toBe('string');
      expect(created.text.includes(secret), 'the secret is never echoed').toBe(false);
      const id = created.json.id as string;
      const read = await api.request({ url: `${hooks.platformUrl}/webhooks/${id}`, headers: { 'x-api-key': target.api_key } });
      expect(read.status).toBe(200);
      expect(read.json).toMatchObject({ id, url });
      expect(read.text.includes(secret), 'the secret is never shown').toBe(false);
      const listed = await api.request({ url: `${hooks.platformUrl}/webhooks`, headers: { 'x-api-key': target.api_key } });
      expect(listed.status).toBe(200);
      expect((listed.json.data as Array<{ id: string }>).some((s) => s.id === id), 'the list holds the subscription').toBe(true);
      const missing = await api.postJson(`${hooks.platformUrl}/webhooks`, { url, events: ['visitor.updated'] }, { 'x-api-key': target.api_key });
      expect(missing.status, 'a subscription without a secret is refused').toBe(400);

      const del = await api.request({ method: 'DELETE', url: `${hooks.platformUrl}/webhooks/${id}`, headers: { 'x-api-key': target.api_key } });
      expect(del.status).toBe(200);
      const gone = await api.request({ url: `${hooks.platformUrl}/webhooks/${id}`, headers: { 'x-api-key': target.api_key } });
      expect(gone.status, 'a deleted subscription is gone').toBe(404);

      // The deleted route gets nothing, while a live subscription shows the event was sent.
      const control = await hooks.subscribe({ events: ['visitor.updated'] });
      const visitorId = await hooks.visitor(8);
      await hooks.updateVisitor(visitorId);
      expect((await hooks.wait(control, { 'body.visitorId': visitorId }, 1, PROMPT_MS)).deliveries.length, 'the live subscription receives the event').toBe(1);
      const deleted = { ...control, path: new URL(url).pathname };
      const after = await hooks.wait(deleted, { 'body.visitorId': visitorId }, 1, GRACE_MS);
      expect(after.deliveries.length, 'a deleted subscription receives no event').toBe(0);
    });

  test('a plain-HTTP callback URL is refused with a message naming HTTPS', clauses('WH-SUB-02'), async ({ hooks, api, target }) => {
    const url = hooks.sinkUrl.replace(/^https:/, 'http:') + `/hooks/${randomUUID()}`;
    const res = await api.postJson(`${hooks.platformUrl}/webhooks`, { url, secret: 'whsec-' + randomUUID(), events: ['visitor.updated'] }, { 'x-api-key': target.api_key });
    expect(res.status, `an http:// callback must be refused: ${res.text}`).toBe(400);
    expect(JSON.stringify(res.json ?? res.text), 'the error says HTTPS is required').toMatch(/https/i);
  });

  test('a subscription receives only its own client\'s events; other clients cannot read or delete it; no key is Forbidden',
    clauses('WH-SUB-03').needs('second_client_key'), async ({ hooks, api, target }) => {
      const [k1, k2] = [target.api_key, otherKey(target)];
      const mine = await hooks.subscribe({ events: ['visitor.updated'], key: k1 });
      const theirs = await hooks.subscribe({ events: ['visitor.updated'], key: k2 });
      for (const method of ['GET', 'DELETE']) {
        const res = await api.request({ method, url: `${hooks.platformUrl}/webhooks/${mine.id}`, headers: { 'x-api-key': k2 } });
        expect(res.status, `${method} of another client's subscription`).toBe(404);
      }
      const list = await api.request({ url: `${hooks.platformUrl}/webhooks`, headers: { 'x-api-key': k2 } });
      expect((list.json.data as Array<{ id: string }>).some((s) => s.id === mine.id), 'another client does not list it').toBe(false);
      const anon = await api.request({ url: `${hooks.platformUrl}/webhooks` });
      expect(anon.status, 'no API key').toBe(403);
      expect(anon.json?.meta, 'Forbidden envelope').toEqual({ status: 'error', message: 'Forbidden' });

      const visitorId = await hooks.visitor(9, k1);
      await hooks.updateVisitor(visitorId, k1);
      expect((await hooks.wait(mine, { 'body.visitorId': visitorId }, 1, PROMPT_MS)).deliveries.length, 'the owner client receives its event').toBe(1);
      const leaked = await hooks.wait(theirs, { 'body.visitorId': visitorId }, 1, GRACE_MS);
      expect(leaked.deliveries.length, 'another client\'s subscription receives none of this client\'s events').toBe(0);
      const log = await hooks.log(theirs);
      expect(log.some((e) => e.payload?.visitorId === visitorId), 'nor is one queued for it').toBe(false);
    });

  test('a subscription receives only the event kinds it names', clauses('WH-SUB-05'), async ({ hooks }) => {
    const other = await hooks.subscribe({ events: ['user.created', 'user.updated'] });
    const control = await hooks.subscribe({ events: ['visitor.updated'] });
    const visitorId = await hooks.visitor(10);
    await hooks.updateVisitor(visitorId);
    expect((await hooks.wait(control, { 'body.visitorId': visitorId }, 1, PROMPT_MS)).deliveries.length, 'visitor.updated is sent').toBe(1);
    expect((await hooks.wait(other, { 'body.visitorId': visitorId }, 1, GRACE_MS)).deliveries.length, 'a subscription without visitor.updated does not get it').toBe(0);
    expect((await hooks.log(other)).some((e) => e.eventType === 'visitor.updated'), 'nor is it queued for it').toBe(false);
  });
});
