// Tenant isolation: another client's key never sees, lists or changes this client's rows (by id, in lists, on writes).
import { test, expect } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { PEOPLE, allItems, createOperator, firstItem, otherKey } from './people-helpers.js';

test('another client\'s key gets the unknown-id fail for every resource of this client', clauses('REST-TENANT-01').needs('second_client_key'), async ({ api, target }) => {
  const keyB = otherKey(target);
  const op = await createOperator(api);
  const paths: Array<[string, string, number]> = [];
  for (const res of PEOPLE) {
    const item = res === 'operator' ? op : await firstItem(api, `/${res}`);
    paths.push([`/${res}/${item.id}`, res, item.id]);
  }
  for (const sub of ['live', 'statistic', 'profile']) paths.push([`/operator/${op.id}/${sub}`, 'operator', op.id]);
  for (const [path, resource, id] of paths) {
    const own = await api.rest({ path });
    expect(own.json?.meta?.status, `${path} with its own key`).toBe('success');
    const other = await api.rest({ path, key: keyB });
    expect(other.json?.meta, `${path} with another client's key`).toMatchObject({ status: 'fail', message: `Unknown '${resource}' with 'id' ${id}.` });
    expect(other.json?.data?.id, `${path} with another client's key serves none of the row (data may accompany a fail, REST-ENV-04)`).toBeUndefined();
    const otherHa = await api.rest({ path, key: keyB, base: 'ha' });
    expect(otherHa.json?.meta?.status, `${path} on the HA base with another client's key`).toBe('fail');
  }
});

test('lists never contain another client\'s rows', clauses('REST-TENANT-02').needs('second_client_key'), async ({ api, target }) => {
  const keyB = otherKey(target);
  await createOperator(api);
  for (const path of [...PEOPLE.map((r) => `/${r}`), '/operator/live?connected=0']) {
    const listB = await allItems(api, path, { key: keyB });
    const listA = await allItems(api, path);
    expect(listA.length, `${path} lists something for the default key`).toBeGreaterThan(0);
    const idsA = new Set(listA.map((x) => x.id));
    const leaked = listB.filter((x) => idsA.has(x.id)).map((x) => x.id);
    expect(leaked, `${path}: rows of the default key's client listed with another key`).toEqual([]);
  }
  const websitesB = await allItems(api, '/website?full=1', { key: keyB });
  const clientB = await allItems(api, '/client', { key: keyB });
  expect(clientB.length).toBe(1);
  for (const w of websitesB) expect(w.client_id).toBe(clientB[0].id);
});

test('another client\'s key cannot update, delete or switch live this client\'s operator', clauses('REST-TENANT-03').needs('second_client_key'), async ({ api, target }) => {
  const keyB = otherKey(target);
  const op = await createOperator(api, { call_enabled: true });
  const unknown = { status: 'fail', message: `Unknown 'operator' with 'id' ${op.id}.` };
  const put = await api.rest({ method: 'PUT', path: `/operator/${op.id}`, json: { pseudo: 'hijacked' }, key: keyB });
  expect(put.json?.meta).toMatchObject(unknown);
  const live = await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, json: { 'call[available]': 1 }, key: keyB });
  expect(live.json?.meta).toMatchObject(unknown);
  const del = await api.rest({ method: 'DELETE', path: `/operator/${op.id}`, key: keyB });
  expect(del.json?.meta).toMatchObject(unknown);
  expect((await api.rest({ path: `/operator/${op.id}` })).json.data, 'the operator is unchanged').toEqual(op);
  expect((await api.rest({ path: `/operator/${op.id}/live` })).json.data.call.available).toBe(false);
  // Another client's website, skill or group cannot be attached to this client's operator either.
  const siteB = await firstItem(api, '/website', keyB);
  const attach = await api.rest({ method: 'PUT', path: `/operator/${op.id}`, json: { website_list: [siteB.id] } });
  expect(attach.json?.meta?.status).toBe('fail');
});
