// Tenant isolation: another client's key never sees, lists or changes this client's rows (by id, in lists, on writes).
import { test, expect } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { note, notJudgedIf } from '../verdicts.js';
import type { Api } from '../fixtures/target.js';
import { PEOPLE, allItems, createOperator, firstItem, otherKey } from './people-helpers.js';

/**
 * Whether this client's own key reads `path` (a success): a route whose own resources cannot be read leaks nothing through it, so
 * isolation is not judged there (a NOTE names it) and the check judges the other routes; never a failure of isolation.
 */
async function readable(api: Api, path: string): Promise<boolean> {
  const own = await api.rest({ path });
  const ok = own.json?.meta?.status === 'success';
  if (!ok) note(`isolation not judged on ${path}: this client's own key cannot read it (${own.status} ${own.text.slice(0, 120).replace(/\s+/g, ' ')}), so nothing can leak through it`);
  return ok;
}

test('another client\'s key gets the unknown-id fail for every resource of this client', clauses('REST-TENANT-01').needs('second_client_key'), async ({ api, target }) => {
  const keyB = otherKey(target);
  const op = await createOperator(api);
  const paths: Array<[string, string, number]> = [];
  for (const res of PEOPLE) {
    if (res !== 'operator' && !(await readable(api, `/${res}?limit=1`))) continue;
    const item = res === 'operator' ? op : await firstItem(api, `/${res}`);
    paths.push([`/${res}/${item.id}`, res, item.id]);
  }
  for (const sub of ['live', 'statistic', 'profile']) paths.push([`/operator/${op.id}/${sub}`, 'operator', op.id]);
  let judged = 0;
  for (const [path, resource, id] of paths) {
    if (!(await readable(api, path))) continue;
    judged++;
    const other = await api.rest({ path, key: keyB });
    expect(other.json?.meta, `${path} with another client's key`).toMatchObject({ status: 'fail', message: `Unknown '${resource}' with 'id' ${id}.` });
    expect(other.json?.data?.id, `${path} with another client's key serves none of the row (data may accompany a fail, REST-ENV-04)`).toBeUndefined();
    const otherHa = await api.rest({ path, key: keyB, base: 'ha' });
    expect(otherHa.json?.meta?.status, `${path} on the HA base with another client's key`).toBe('fail');
  }
  notJudgedIf(judged === 0, 'no resource of this client could be read with its own key: isolation cannot be judged');
});

test('lists never contain another client\'s rows', clauses('REST-TENANT-02').needs('second_client_key'), async ({ api, target }) => {
  const keyB = otherKey(target);
  await createOperator(api);
  let judged = 0;
  for (const path of [...PEOPLE.map((r) => `/${r}`), '/operator/live?connected=0']) {
    if (!(await readable(api, `${path}${path.includes('?') ? '&' : '?'}limit=1`))) continue;
    judged++;
    const listB = await allItems(api, path, { key: keyB });
    const listA = await allItems(api, path);
    expect(listA.length, `${path} lists something for the default key`).toBeGreaterThan(0);
    const idsA = new Set(listA.map((x) => x.id));
    const leaked = listB.filter((x) => idsA.has(x.id)).map((x) => x.id);
    expect(leaked, `${path}: rows of the default key's client listed with another key`).toEqual([]);
  }
  notJudgedIf(judged === 0, 'no list of this client could be read with its own key: isolation cannot be judged');
  if (!(await readable(api, '/website?limit=1')) || !(await readable(api, '/client'))) return;
  const websitesB = await allItems(api, '/website?full=1', { key: keyB });
  const clientB = await allItems(api, '/client', { key: keyB });
  expect(clientB.length).toBe(1);
  for (const w of websitesB) expect(w.client_id).toBe(clientB[0].id);
});

test('another client\'s key cannot update, delete or switch live this client\'s operator', clauses('REST-TENANT-03').needs('second_client_key'), async ({ api, target }) => {
  const keyB = otherKey(target);
  const op = await createOperator(api, { call_enabled: true });
  const unknown = { status: 'fail', message: `Unknown 'operator' with 'id' ${op.id}.` };
  const live = await readable(api, `/operator/${op.id}/live`);
  const put = await api.rest({ method: 'PUT', path: `/operator/${op.id}`, json: { pseudo: 'hijacked' }, key: keyB });
  expect(put.json?.meta).toMatchObject(unknown);
  if (live) {
    const switched = await api.rest({ method: 'PUT', path: `/operator/${op.id}/live`, json: { 'call[available]': 1 }, key: keyB });
    expect(switched.json?.meta).toMatchObject(unknown);
  }
  const del = await api.rest({ method: 'DELETE', path: `/operator/${op.id}`, key: keyB });
  expect(del.json?.meta).toMatchObject(unknown);
  expect((await api.rest({ path: `/operator/${op.id}` })).json.data, 'the operator is unchanged').toEqual(op);
  if (live) expect((await api.rest({ path: `/operator/${op.id}/live` })).json.data.call.available).toBe(false);
  // Another client's website, skill or group cannot be attached to this client's operator either.
  if (!(await readable(api, '/website?limit=1'))) return;
  const siteB = await firstItem(api, '/website', keyB);
  const attach = await api.rest({ method: 'PUT', path: `/operator/${op.id}`, json: { website_list: [siteB.id] } });
  expect(attach.json?.meta?.status).toBe('fail');
});
