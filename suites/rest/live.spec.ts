// Operator live availability: the default and connected=0 views, filters, GET/PUT of one operator, the exact messages and the connected=0 rule.
import { test, expect, expectSchema, type Api } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { allItems, createOperator, expectFail, unique } from './people-helpers.js';

const ALL_CHANNELS = { chat_enabled: true, call_enabled: true, video_enabled: true };

/** Two operators of our own under one external_id prefix: `never` never logged in, `offline` logged in once then disconnected. */
async function pair(api: Api) {
  const tag = `ces-live-${unique()}`;
  const never = await createOperator(api, { ...ALL_CHANNELS, external_id: `${tag}-never` });
  const offline = await createOperator(api, { ...ALL_CHANNELS, external_id: `${tag}-offline` });
  const on = await api.rest({ method: 'PUT', path: `/operator/${offline.id}/live`, form: { 'chat[available]': '1' } });
  expect(on.json?.meta?.status, on.text).toBe('success');
  const off = await api.rest({ method: 'PUT', path: `/operator/${offline.id}/live`, form: { connected: '0' } });
  expect(off.json?.meta?.status, off.text).toBe('success');
  return { tag, never, offline };
}
const liveIds = async (api: Api, query: string) => (await allItems(api, `/operator/live?${query}`)).map((x) => x.id);

test('GET /operator/live lists only available operators by default', clauses('REST-LIVE-01'), async ({ api }) => {
  const items = await allItems(api, '/operator/live');
  for (const item of items) {
    expectSchema('rest/operator-live.json', item);
    expect(item.chat.available || item.call.available || item.video.available, `operator ${item.id} in the default view is available`).toBe(true);
  }
  const { tag, never, offline } = await pair(api);
  const avail = await createOperator(api, { ...ALL_CHANNELS, external_id: `${tag}-available` });
  await api.rest({ method: 'PUT', path: `/operator/${avail.id}/live`, json: { 'video[available]': 1 } });
  const ids = await liveIds(api, `filters[external_id]=${tag}-*`);
  expect(ids).toEqual([avail.id]);
  expect(ids).not.toContain(offline.id);
  expect(ids).not.toContain(never.id);
  await api.rest({ method: 'PUT', path: `/operator/${avail.id}/live`, json: { 'video[available]': 0 } });
  expect(await liveIds(api, `filters[external_id]=${tag}-*`), 'connected but unavailable on every channel: not listed').toEqual([]);
});

test('connected=0 also lists offline operators that logged in once, never the others', clauses('REST-LIVE-02'), async ({ api }) => {
  const { tag, never, offline } = await pair(api);
  const ids = await liveIds(api, `connected=0&filters[external_id]=${tag}-*`);
  expect(ids).toContain(offline.id);
  expect(ids).not.toContain(never.id);
  const item = (await allItems(api, `/operator/live?connected=0&filters[id]=${offline.id}`))[0];
  expectSchema('rest/operator-live.json', item);
  expect(item.connected).toBe(false);
});

test('GET /operator/live accepts the operator filters', clauses('REST-LIVE-03'), async ({ api }) => {
  const { tag, offline } = await pair(api);
  const skills = await allItems(api, '/skill');
  const op = await createOperator(api, { ...ALL_CHANNELS, external_id: `${tag}-skilled`, skill_list: [skills[0].id] });
  await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, json: { 'chat[available]': 1 } });
  expect(await liveIds(api, `connected=0&filters[external_id]=${tag}-*`)).toEqual([offline.id, op.id].sort((a, b) => a - b));
  expect(await liveIds(api, `filters[id]=${op.id}`)).toEqual([op.id]);
  expect(await liveIds(api, `filters[name]=${op.name}`)).toEqual([op.id]);
  expect(await liveIds(api, `filters[skill_id]=${skills[0].id}&filters[external_id]=${tag}-*`)).toEqual([op.id]);
  const bad = await api.rest({ path: '/operator/live?filters[colour]=red' });
  expectFail(bad, 400);
});

test('GET /operator/{id}/live answers one operator', clauses('REST-LIVE-04'), async ({ api }) => {
  const op = await createOperator(api, { call_enabled: true });
  const res = await api.rest({ path: `/operator/${op.id}/live` });
  expectSchema('rest/operator-live.json', res.json.data);
  expect(res.json.data).toMatchObject({ id: op.id, connected: false, chat: { enabled: true, available: false }, call: { enabled: true }, video: { enabled: false } });
});

for (const channel of ['chat', 'call', 'video'] as const) {
  for (const way of ['form', 'json'] as const) {
    test(`PUT ${channel}[available] (${way}) answers the exact message and changes the channel`, clauses('REST-LIVE-05'), async ({ api }) => {
      const op = await createOperator(api, ALL_CHANNELS);
      for (const [value, word] of [[1, 'available'], [0, 'unavailable']] as const) {
        const field = `${channel}[available]`;
        const res = await api.rest(way === 'form' ? { method: 'PUT', path: `/operator/${op.id}/live`, form: { [field]: String(value) } } : { method: 'PUT', path: `/operator/${op.id}/live`, json: { [field]: value } });
        expect(res.json?.meta).toEqual({ status: 'success', message: `Operator is now ${word} for ${channel} channel.` });
        const live = (await api.rest({ path: `/operator/${op.id}/live` })).json.data;
        expect(live[channel].available, `${channel} after ${field}=${value}`).toBe(value === 1);
        expect(live.connected).toBe(true);
      }
    });
  }
}

test('connected=0 alone disconnects; with another field it is refused', clauses('REST-LIVE-06'), async ({ api }) => {
  const op = await createOperator(api, ALL_CHANNELS);
  await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, json: { 'chat[available]': 1, 'call[available]': 1 } });
  const mixed = await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, form: { connected: '0', 'video[available]': '1' } });
  expectFail(mixed);
  expect(mixed.json.meta.message).toContain('connected');
  const still = (await api.rest({ path: `/operator/${op.id}/live` })).json.data;
  expect(still).toMatchObject({ connected: true, chat: { available: true }, call: { available: true }, video: { available: false } });
  const alone = await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, form: { connected: '0' } });
  expect(alone.json?.meta?.status).toBe('success');
  const after = (await api.rest({ path: `/operator/${op.id}/live` })).json.data;
  expect(after).toMatchObject({ connected: false, chat: { available: false }, call: { available: false }, video: { available: false } });
});

test('the first PUT of an operator who never logged in creates its live row; connected=1 is refused', clauses('REST-LIVE-07'), async ({ api }) => {
  const tag = `ces-first-${unique()}`;
  const op = await createOperator(api, { ...ALL_CHANNELS, external_id: tag });
  expect(await liveIds(api, `connected=0&filters[external_id]=${tag}`)).toEqual([]);
  const res = await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, json: { 'call[available]': 1 } });
  expect(res.json?.meta?.status).toBe('success');
  const live = (await api.rest({ path: `/operator/${op.id}/live` })).json.data;
  expect(live).toMatchObject({ connected: true, call: { available: true } });
  expect(await liveIds(api, `connected=0&filters[external_id]=${tag}`)).toEqual([op.id]);
  const one = await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, form: { connected: '1' } });
  expectFail(one, 400);
  const bad = await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, form: { 'chat[available]': '2' } });
  expectFail(bad, 400);
  expect(bad.json.meta.message).toContain('chat[available]');
  const bogus = await api.rest({ path: '/operator/live?connected=1' });
  expectFail(bogus, 400);
});
