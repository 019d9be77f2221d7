// The people resources read side: client, website, operator (list, filters, by id, role, statistic, profile), group, skill, visitor.
import { test, expect } from '../fixtures/target.js';
import { expectPayload, notJudgedIf } from '../verdicts.js';
import { clauses } from '../fixtures/evidence.js';
import { allItems, createOperator, firstItem, ownClientId, unique, withoutOperatorList } from './people-helpers.js';

test('GET /client lists the key\'s own client only', clauses('REST-CLIENT-01'), async ({ api, target }) => {
  const res = await api.rest({ path: '/client?full=1' });
  expect(res.json.meta.status).toBe('success');
  expect(res.json.data.length, 'a key sees exactly one client: its own').toBe(1);
  expect(res.json.pagination.count).toBe(1);
  const client = res.json.data[0];
  expectPayload('rest/client.json', client);
  const own = ownClientId(target);
  if (own !== undefined) expect(client.id).toBe(own);
});

test('GET /client/{id} answers the client', clauses('REST-CLIENT-02'), async ({ api }) => {
  const listed = await firstItem(api, '/client');
  const res = await api.rest({ path: `/client/${listed.id}` });
  expectPayload('rest/client.json', res.json.data);
  expect(res.json.data).toEqual(listed);
});

test('GET /website lists the websites of the key\'s client', clauses('REST-WEBSITE-01'), async ({ api }) => {
  const client = await firstItem(api, '/client');
  const sites = await allItems(api, '/website?full=1');
  expect(sites.length).toBeGreaterThan(0);
  for (const w of sites) {
    expectPayload('rest/website.json', w);
    expect(w.client_id, `website ${w.id} belongs to the key's client`).toBe(client.id);
  }
});

test('GET /website/{id} answers the website', clauses('REST-WEBSITE-02'), async ({ api }) => {
  const listed = await firstItem(api, '/website');
  const res = await api.rest({ path: `/website/${listed.id}` });
  expectPayload('rest/website.json', res.json.data);
  expect(res.json.data).toEqual(listed);
});

test('GET /operator with full=1 gives every Operator field', clauses('REST-OP-01'), async ({ api }) => {
  const own = await createOperator(api, { chat_priority: 10, language_list: ['fr'] });
  const res = await api.rest({ path: `/operator?full=1&limit=100&filters[id]=${own.id}` });
  expect(res.json?.data?.length, 'the new operator is listed').toBe(1);
  expectPayload('rest/operator.json', res.json.data[0], `operator ${own.id}`);
  // Every other listed operator too, but the probes of other checks: a self-test may have stored them under a deviation.
  const page = await api.rest({ path: '/operator?full=1&limit=100' });
  expect(page.json?.data?.length).toBeGreaterThan(0);
  const probe = (op: any) => String(op.email ?? '').endsWith('@probe.example') || String(op.name ?? '').startsWith('Probe');
  for (const op of page.json.data) if (!probe(op)) expectPayload('rest/operator.json', op, `operator ${op.id}`);
});

test('GET /operator applies every operator filter', clauses('REST-OP-02'), async ({ api }) => {
  const websites = await allItems(api, '/website');
  const groups = await allItems(api, '/group');
  const skills = await allItems(api, '/skill');
  notJudgedIf(!(websites.length && groups.length && skills.length >= 2), 'the target lacks the data to judge every filter: websites, groups and two skills');
  const w = websites[0].id;
  const g = groups[groups.length - 1].id;
  const s = skills.slice(0, 2).map((x) => x.id);
  const op = await createOperator(api, { website_list: [w], group_id: g, skill_list: s });
  const ids = async (query: string) => (await allItems(api, `/operator?full=1&${query}`));
  expect((await ids(`filters[id]=${op.id}`)).map((o) => o.id)).toEqual([op.id]);
  expect((await ids(`filters[external_id]=${op.external_id}`)).map((o) => o.id)).toEqual([op.id]);
  expect((await ids(`filters[name]=${op.name}`)).map((o) => o.id)).toEqual([op.id]);
  const byGroup = await ids(`filters[group_id]=${g}`);
  expect(byGroup.map((o) => o.id)).toContain(op.id);
  for (const o of byGroup) expect(o.group_id).toBe(g);
  const bySite = await ids(`filters[website_id]=${w}`);
  expect(bySite.map((o) => o.id)).toContain(op.id);
  for (const o of bySite) expect(o.website_list).toContain(w);
  const siteList = websites.slice(0, 2).map((x) => x.id);
  const bySites = await ids(`filters[website_list]=${siteList.join(',')}`);
  expect(bySites.map((o) => o.id)).toContain(op.id);
  for (const o of bySites) expect(o.website_list.some((x: number) => siteList.includes(x)), `operator ${o.id} has one of ${siteList}`).toBe(true);
  const bySkill = await ids(`filters[skill_id]=${s[1]}`);
  expect(bySkill.map((o) => o.id)).toContain(op.id);
  for (const o of bySkill) expect(o.skill_list).toContain(s[1]);
  // A filter that matches nothing gives nothing.
  expect(await ids(`filters[external_id]=none-${unique()}`)).toEqual([]);
});

test('GET /operator/{id} answers the operator with every field', clauses('REST-OP-03'), async ({ api }) => {
  const listed = await firstItem(api, '/operator');
  const res = await api.rest({ path: `/operator/${listed.id}` });
  expectPayload('rest/operator.json', res.json.data);
  expect(res.json.data).toEqual(listed);
});

for (const [roles, role] of [[['expert'], 'operator'], [['operator'], 'operator'], [['expert', 'manager'], 'manager'], [['operator', 'admin'], 'admin'], [['manager', 'admin'], 'admin']] as const) {
  test(`role (deprecated) of roles ${roles.join('+')} is ${role}`, clauses('REST-OP-04'), async ({ api }) => {
    const op = await createOperator(api, { roles });
    expect(op.roles).toEqual(roles);
    expect(op.role).toBe(role);
    const got = await api.rest({ path: `/operator/${op.id}` });
    expect(got.json.data.role).toBe(role);
  });
}

test('GET /operator/{id}/statistic answers the statistic fields', clauses('REST-OPSTAT-01'), async ({ api }) => {
  const op = await firstItem(api, '/operator');
  const res = await api.rest({ path: `/operator/${op.id}/statistic` });
  expectPayload('rest/operator-statistic.json', res.json.data);
  expect(res.json.data.id).toBe(op.id);
});

test('a new operator has conversation_number 0, experience 0 and no satisfaction rate', clauses('REST-OPSTAT-02'), async ({ api }) => {
  // Other suites may move the service clock forward meanwhile: a seeded operator's experience measures how far, before and after.
  const seeded = await firstItem(api, '/operator');
  const experience = async (id: number) => (await api.rest({ path: `/operator/${id}/statistic` })).json.data.experience as number;
  const before = await experience(seeded.id);
  const op = await createOperator(api);
  const res = await api.rest({ path: `/operator/${op.id}/statistic` });
  const moved = (await experience(seeded.id)) - before;
  expect(res.json.data).toEqual({ id: op.id, conversation_number: 0, experience: res.json.data.experience, satisfaction_global_rate: null, _link: `/operator/${op.id}/statistic` });
  expect(res.json.data.experience, `whole days since creation: 0 (the clock moved ${moved} day(s) meanwhile)`).toBeLessThanOrEqual(moved);
  expect(res.json.data.experience).toBeGreaterThanOrEqual(0);
});

test('GET /operator/{id}/profile answers the profile fields', clauses('REST-PROFILE-01'), async ({ api }) => {
  const op = await firstItem(api, '/operator');
  const res = await api.rest({ path: `/operator/${op.id}/profile` });
  expectPayload('rest/operator-profile.json', res.json.data);
  expect(res.json.data.user_id).toBe(op.id);
  const created = await createOperator(api);
  const fresh = await api.rest({ path: `/operator/${created.id}/profile` });
  expectPayload('rest/operator-profile.json', fresh.json.data);
  expect(fresh.json.data.user_id).toBe(created.id);
});

test('GET /group and /group/{id} answer the Group fields', clauses('REST-GROUP-01'), async ({ api }) => {
  const groups = await allItems(api, '/group?full=1');
  expect(groups.length).toBeGreaterThan(0);
  for (const g of groups) expectPayload('rest/group.json', g);
  const one = await api.rest({ path: `/group/${groups[0].id}` });
  expect(withoutOperatorList(one.json.data)).toEqual(withoutOperatorList(groups[0]));
});

test('GET /group applies filters[parent_id]', clauses('REST-GROUP-02'), async ({ api }) => {
  const groups = await allItems(api, '/group');
  const child = groups.find((g) => g.parent_id !== null);
  notJudgedIf(!child, 'the target has no group with a parent to filter by');
  const res = await allItems(api, `/group?filters[parent_id]=${child.parent_id}`);
  expect(res.map((g) => g.id)).toContain(child.id);
  for (const g of res) expect(g.parent_id).toBe(child.parent_id);
  expect(res.length).toBe(groups.filter((g) => g.parent_id === child.parent_id).length);
});

test('group parent_list is the parent chain and operator_list follows group_id', clauses('REST-GROUP-03'), async ({ api }) => {
  const groups = await allItems(api, '/group?full=1');
  const byId = new Map(groups.map((g) => [g.id, g]));
  for (const g of groups) {
    const chain: number[] = [];
    for (let p = g.parent_id; p !== null && p !== undefined && !chain.includes(p); p = byId.get(p)?.parent_id ?? null) chain.push(p);
    expect(g.parent_list, `parent_list of group ${g.id}`).toEqual(chain);
  }
  expect(groups.some((g) => g.parent_list.length > 0), 'the target needs a group with a parent').toBe(true);
  const [a, b] = [groups[0].id, groups[groups.length - 1].id];
  const op = await createOperator(api, { group_id: a });
  expect((await api.rest({ path: `/group/${a}` })).json.data.operator_list).toContain(op.id);
  await api.rest({ method: 'PUT', path: `/operator/${op.id}`, json: { group_id: b } });
  expect((await api.rest({ path: `/group/${a}` })).json.data.operator_list).not.toContain(op.id);
  expect((await api.rest({ path: `/group/${b}` })).json.data.operator_list).toContain(op.id);
});

test('GET /skill and /skill/{id} answer the Skill fields; operator_list follows skill_list', clauses('REST-SKILL-01'), async ({ api }) => {
  const skills = await allItems(api, '/skill?full=1');
  expect(skills.length).toBeGreaterThan(0);
  for (const s of skills) expectPayload('rest/skill.json', s);
  const one = await api.rest({ path: `/skill/${skills[0].id}` });
  expect(withoutOperatorList(one.json.data)).toEqual(withoutOperatorList(skills[0]));
  const op = await createOperator(api, { skill_list: [skills[0].id] });
  expect((await api.rest({ path: `/skill/${skills[0].id}` })).json.data.operator_list).toContain(op.id);
});

test('GET /skill applies filters[operator_id] and filters[parent_id]', clauses('REST-SKILL-02'), async ({ api }) => {
  const skills = await allItems(api, '/skill');
  notJudgedIf(skills.length < 3, `the target has ${skills.length} skills: judging the filters needs three`);
  const mine = [skills[0].id, skills[2].id];
  const op = await createOperator(api, { skill_list: mine });
  const res = await allItems(api, `/skill?filters[operator_id]=${op.id}`);
  expect(res.map((s) => s.id).sort((x, y) => x - y)).toEqual([...mine].sort((x, y) => x - y));
  const none = await createOperator(api, { skill_list: [] });
  expect(await allItems(api, `/skill?filters[operator_id]=${none.id}`)).toEqual([]);
  const child = skills.find((s) => s.parent_id !== null);
  notJudgedIf(!child, 'the target has no skill with a parent to filter by');
  const byParent = await allItems(api, `/skill?filters[parent_id]=${child.parent_id}`);
  expect(byParent.map((s) => s.id)).toContain(child.id);
  for (const s of byParent) expect(s.parent_id).toBe(child.parent_id);
});

test('GET /visitor and /visitor/{id} answer the Visitor fields', clauses('REST-VISITOR-01'), async ({ api }) => {
  const res = await api.rest({ path: '/visitor?full=1&limit=50' });
  expect(res.json.data.length).toBeGreaterThan(0);
  for (const v of res.json.data) expectPayload('rest/visitor.json', v);
  const one = await api.rest({ path: `/visitor/${res.json.data[0].id}` });
  expect(one.json.data).toEqual(res.json.data[0]);
});

test('GET /visitor applies filters unique_id, external_id and website_id', clauses('REST-VISITOR-02'), async ({ api }) => {
  const visitors = await allItems(api, '/visitor?full=1');
  const v = visitors.find((x) => x.external_id);
  notJudgedIf(!v, 'the target has no visitor with an external_id to filter by');
  expect((await allItems(api, `/visitor?filters[unique_id]=${encodeURIComponent(v.unique_id)}`)).map((x) => x.id)).toEqual(visitors.filter((x) => x.unique_id === v.unique_id).map((x) => x.id));
  const byExt = await allItems(api, `/visitor?filters[external_id]=${encodeURIComponent(v.external_id)}`);
  expect(byExt.map((x) => x.id)).toContain(v.id);
  for (const x of byExt) expect(x.external_id).toBe(v.external_id);
  const w = v.website_id[0];
  const bySite = await allItems(api, `/visitor?full=1&filters[website_id]=${w}`);
  expect(bySite.map((x) => x.id)).toContain(v.id);
  for (const x of bySite) expect(x.website_id).toContain(w);
  expect(bySite.length).toBe(visitors.filter((x) => x.website_id.includes(w)).length);
});
