// Operator live availability: the default and connected=0 views, filters, GET/PUT of one operator, the messages and the connected=0 rule.
import { test, expect, type Api } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { expectPayload, step, under } from '../verdicts.js';
import { allItems, createOperator, expectFail, unique } from './people-helpers.js';

const ALL_CHANNELS = { chat_enabled: true, call_enabled: true, video_enabled: true };

/** Two operators of our own under one external_id prefix: `never` never logged in, `offline` logged in once then disconnected. */
async function pair(api: Api) {
  const tag = `ces-live-${unique()}`;
  const never = await createOperator(api, { ...ALL_CHANNELS, external_id: `${tag}-never` });
  const offline = await createOperator(api, { ...ALL_CHANNELS, external_id: `${tag}-offline` });
  // Set-up steps judged under the clause of the call they make (PUT /operator/{id}/live; G10: meta.status is the contract).
  await step('REST-LIVE-05', 'PUT /operator/{id}/live chat[available]=1', async () => {
    const on = await api.rest({ method: 'PUT', path: `/operator/${offline.id}/live`, form: { 'chat[available]': '1' } });
    expect(on.json?.meta?.status, on.text).toBe('success');
  });
  await step('REST-LIVE-06', 'PUT /operator/{id}/live connected=0', async () => {
    const off = await api.rest({ method: 'PUT', path: `/operator/${offline.id}/live`, form: { connected: '0' } });
    expect(off.json?.meta?.status, off.text).toBe('success');
  });
  return { tag, never, offline };
}
const liveIds = async (api: Api, query: string) => (await allItems(api, `/operator/live?${query}`)).map((x) => x.id);

test('GET /operator/live lists only available operators by default', clauses('REST-LIVE-01'), async ({ api }) => {
  const items = await allItems(api, '/operator/live');
  for (const item of items) {
    expectPayload('rest/operator-live.json', item, `live item ${item.id}`);
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
  expectPayload('rest/operator-live.json', item, `live item ${offline.id}`);
  expect(item.connected).toBe(false);
});

test('GET /operator/live accepts the operator filters', clauses('REST-LIVE-03', 'REST-LIST-04'), async ({ api }) => under('REST-LIVE-03', async () => {
  const { tag, offline } = await pair(api);
  // An operator without skills or groups, so no filter is owed for it (G31: "those must be given in the request" instructs the caller).
  const plain = await createOperator(api, { ...ALL_CHANNELS, external_id: `${tag}-plain` });
  await api.rest({ method: 'PUT', path: `/operator/${plain.id}/live`, json: { 'chat[available]': 1 } });
  const skills = await allItems(api, '/skill');
  const skilled = await createOperator(api, { ...ALL_CHANNELS, external_id: `${tag}-skilled`, skill_list: [skills[0].id] });
  await api.rest({ method: 'PUT', path: `/operator/${skilled.id}/live`, json: { 'chat[available]': 1 } });
  const mine = [offline.id, plain.id, skilled.id];
  const tagged = await liveIds(api, `connected=0&filters[external_id]=${tag}-*`);
  // G31: a service may leave out the skilled operator when its skill is not given; nothing else of ours may be missing or added.
  expect(tagged.filter((id) => !mine.includes(id)), 'only operators whose external_id matches').toEqual([]);
  expect(tagged, 'the offline operator of ours (connected=0)').toEqual(expect.arrayContaining([offline.id, plain.id]));
  expect(await liveIds(api, `filters[id]=${plain.id}`)).toEqual([plain.id]);
  expect(await liveIds(api, `filters[name]=${plain.name}`)).toEqual([plain.id]);
  expect(await liveIds(api, `filters[skill_id]=${skills[0].id}&filters[external_id]=${tag}-*`), 'the skill filter keeps the skilled operator only').toEqual([skilled.id]);
  // G10: an unknown filter is refused with a 400 naming it, a decision (REST-LIST-04) and no requirement of the spec.
  const bad = await api.rest({ path: '/operator/live?filters[colour]=red' });
  under('REST-LIST-04', () => { expectFail(bad, 400); expect(bad.json.meta.message).toContain('colour'); });
}));

test('GET /operator/{id}/live answers one operator', clauses('REST-LIVE-04'), async ({ api }) => {
  const op = await createOperator(api, { chat_enabled: true, call_enabled: true, video_enabled: false });
  const res = await api.rest({ path: `/operator/${op.id}/live` });
  expect(res.json?.meta?.status, res.text.slice(0, 200)).toBe('success');
  expectPayload('rest/operator-live.json', res.json.data, `live of operator ${op.id}`);
  // Never logged in: not connected, so no channel is available, whatever is enabled.
  expect(res.json.data).toMatchObject({ id: op.id, connected: false, chat: { enabled: true, available: false }, call: { enabled: true, available: false }, video: { enabled: false, available: false } });
  await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, json: { 'call[available]': 1 } });
  const after = await api.rest({ path: `/operator/${op.id}/live` });
  expect(after.json.data, 'after call[available]=1').toMatchObject({ id: op.id, connected: true, chat: { available: false }, call: { enabled: true, available: true } });
});

/** Whole words of a message (so `available` is not found inside `unavailable`). */
const words = (text: unknown) => String(text ?? '').toLowerCase().split(/[^a-z_]+/).filter(Boolean);

for (const channel of ['chat', 'call', 'video'] as const) {
  for (const way of ['form', 'json'] as const) {
    test(`PUT ${channel}[available] (${way}) changes the channel and answers a message naming the new state and the channel`, clauses('REST-LIVE-05'), async ({ api }) => {
      const op = await createOperator(api, ALL_CHANNELS);
      for (const [value, word, other] of [[1, 'available', 'unavailable'], [0, 'unavailable', 'available']] as const) {
        const field = `${channel}[available]`;
        const res = await api.rest(way === 'form' ? { method: 'PUT', path: `/operator/${op.id}/live`, form: { [field]: String(value) } } : { method: 'PUT', path: `/operator/${op.id}/live`, json: { [field]: value } });
        expect(res.json?.meta?.status, `${field}=${value}: ${res.text.slice(0, 200)}`).toBe('success');
        // The spec's message is "like" `Operator is now available|unavailable for chat channel.`: its shape, not its exact words.
        const said = words(res.json.meta.message);
        expect(said, `${field}=${value}: meta.message "${res.json.meta.message}" names the new state "${word}"`).toContain(word);
        expect(said, `${field}=${value}: meta.message "${res.json.meta.message}" does not name the other state`).not.toContain(other);
        expect(said, `${field}=${value}: meta.message "${res.json.meta.message}" names the channel`).toContain(channel);
        const live = (await api.rest({ path: `/operator/${op.id}/live` })).json.data;
        expect(live[channel].available, `${channel} after ${field}=${value}`).toBe(value === 1);
        expect(live.connected).toBe(true);
      }
    });
  }
}

test('connected=0 alone disconnects; with another field it is refused', clauses('REST-LIVE-06', 'REST-ENV-05'), async ({ api }) => under('REST-LIVE-06', async () => {
  const op = await createOperator(api, ALL_CHANNELS);
  await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, json: { 'chat[available]': 1, 'call[available]': 1 } });
  const mixed = await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, form: { connected: '0', 'video[available]': '1' } });
  expectFail(mixed, 400, 'REST-ENV-05');
  under('REST-ENV-05', () => expect(mixed.json.meta.message, 'the refusal names the field').toContain('connected'));
  const still = (await api.rest({ path: `/operator/${op.id}/live` })).json.data;
  expect(still).toMatchObject({ connected: true, chat: { available: true }, call: { available: true }, video: { available: false } });
  const alone = await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, form: { connected: '0' } });
  expect(alone.json?.meta?.status).toBe('success');
  const after = (await api.rest({ path: `/operator/${op.id}/live` })).json.data;
  expect(after).toMatchObject({ connected: false, chat: { available: false }, call: { available: false }, video: { available: false } });
}));

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
