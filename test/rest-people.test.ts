// The REST people routes in-process (inject): domain events on operator create/update/live changes, with service-clock times, and none on refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../reference-impl/app.js';
import type { DomainEvent } from '../reference-impl/events.js';

async function setup() {
  const app = await buildApp({});
  await app.ready();
  const keys = (app.ces.db.prepare('SELECT id, api_key FROM clients ORDER BY id').all() as Array<{ id: number; api_key: string }>);
  const events: DomainEvent[] = [];
  app.ces.events.on((e) => events.push(e));
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, key = keys[0]!.api_key) => {
    const res = await app.inject({ method, url: `/api/2${url}`, payload, headers: { 'x-api-key': key } });
    return { status: res.statusCode, body: res.json() };
  };
  return { app, keys, events, call };
}

test('operator create, update and live changes emit user.* events with the service clock', async () => {
  const { app, keys, events, call } = await setup();
  try {
    app.ces.clock.advance(3_600_000);
    const created = await call('POST', '/operator', { name: 'Event', first_name: 'Probe', email: 'event-probe@probe.example', call_enabled: true });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    assert.equal(events.length, 1);
    const e0 = events[0]!;
    assert.equal(e0.kind, 'user.created');
    assert.deepEqual({ clientId: (e0 as any).clientId, userId: (e0 as any).userId }, { clientId: keys[0]!.id, userId: id });
    assert.ok(Math.abs(e0.at - app.ces.clock.now()) < 5_000, 'event time comes from the service clock (advanced one hour)');
    assert.ok(e0.at - Date.now() > 3_000_000, 'event time is the advanced clock, not Date.now()');

    await call('PUT', `/operator/${id}`, { pseudo: 'Changed' });
    assert.equal(events.at(-1)!.kind, 'user.updated');
    await call('PUT', `/operator/${id}/live`, { 'chat[available]': 1 });
    assert.equal(events.at(-1)!.kind, 'user.connected');
    const count = events.length;
    await call('PUT', `/operator/${id}/live`, { 'call[available]': 1 });
    assert.equal(events.length, count, 'no event while connected does not change');
    await call('PUT', `/operator/${id}/live`, { connected: 0 });
    assert.equal(events.at(-1)!.kind, 'user.disconnected');
    assert.equal(events.length, count + 1);
  } finally { await app.close(); }
});

test('refused writes and other clients\' writes emit nothing and change nothing', async () => {
  const { app, keys, events, call } = await setup();
  try {
    const created = await call('POST', '/operator', { name: 'Quiet', first_name: 'Probe', email: 'quiet-probe@probe.example' });
    const id = created.body.data.id;
    events.length = 0;
    const bad = await call('POST', '/operator', { name: 'X', first_name: 'Y', email: 'nope' });
    assert.equal(bad.status, 400);
    const other = await call('PUT', `/operator/${id}`, { pseudo: 'hijack' }, keys[1]!.api_key);
    assert.deepEqual(other.body, { meta: { status: 'fail', message: `Unknown 'operator' with 'id' ${id}.` } });
    const otherLive = await call('PUT', `/operator/${id}/live`, { 'chat[available]': 1 }, keys[1]!.api_key);
    assert.equal(otherLive.status, 404);
    const mixed = await call('PUT', `/operator/${id}/live`, { connected: 0, 'chat[available]': 1 });
    assert.equal(mixed.status, 400);
    assert.deepEqual(events, []);
    const live = await call('GET', `/operator/${id}/live`);
    assert.equal(live.body.data.connected, false);
    const rows = (app.ces.db.prepare('SELECT COUNT(*) AS n FROM operator_live WHERE operator_id = ?').get(id) as { n: number }).n;
    assert.equal(rows, 0, 'a refused live change leaves no live row');
  } finally { await app.close(); }
});

test('a channel that is not enabled cannot be made available', async () => {
  const { app, call } = await setup();
  try {
    const created = await call('POST', '/operator', { name: 'NoVideo', first_name: 'Probe', email: 'novideo-probe@probe.example', video_enabled: false });
    const res = await call('PUT', `/operator/${created.body.data.id}/live`, { 'video[available]': 1 });
    assert.equal(res.status, 400);
    assert.match(res.body.meta.message, /video/);
  } finally { await app.close(); }
});

test('the id of a deleted operator is never given again', async () => {
  const { app, call } = await setup();
  try {
    const a = await call('POST', '/operator', { name: 'Last', first_name: 'Probe', email: 'last-probe@probe.example' });
    const del = await call('DELETE', `/operator/${a.body.data.id}`);
    assert.deepEqual(del.body, { meta: { status: 'success' }, data: { id: a.body.data.id } });
    const b = await call('POST', '/operator', { name: 'Next', first_name: 'Probe', email: 'next-probe@probe.example' });
    assert.ok(b.body.data.id > a.body.data.id, `new id ${b.body.data.id} after deleted ${a.body.data.id}`);
    const gone = await call('GET', `/operator/${a.body.data.id}`);
    assert.equal(gone.status, 404);
  } finally { await app.close(); }
});

test('Content-Type: application/json with no body (what PHP curl wrappers and axios send on DELETE) is a request without a body', async () => {
  const { app, keys, call } = await setup();
  try {
    const created = await call('POST', '/operator', { name: 'Empty', first_name: 'Body', email: 'empty-body@probe.example' });
    assert.equal(created.status, 201);
    const send = (method: 'DELETE' | 'POST', url: string) =>
      app.inject({ method, url: `/api/2${url}`, payload: '', headers: { 'x-api-key': keys[0]!.api_key, 'content-type': 'application/json' } });
    const deleted = await send('DELETE', `/operator/${created.body.data.id}`);
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.equal((await call('GET', `/operator/${created.body.data.id}`)).status, 404);
    // A route that needs a body names what to send.
    const empty = await send('POST', '/operator');
    assert.equal(empty.statusCode, 400);
    assert.match(empty.json().meta.message, /^The request body is empty: send the fields as JSON or as application\/x-www-form-urlencoded\.$/);
    // Bad JSON is still refused as such.
    const bad = await app.inject({ method: 'DELETE', url: '/api/2/operator/1', payload: '{', headers: { 'x-api-key': keys[0]!.api_key, 'content-type': 'application/json' } });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().meta.message, /not valid JSON/);
  } finally { await app.close(); }
});
