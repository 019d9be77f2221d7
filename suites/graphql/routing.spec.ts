// Checks of routingRule(id:) availability per channel and of G16 (one availability per query; a second resolves to null with an error).
import { test, expect, expectSchema, keyOfClient } from '../fixtures/target.js';
import { randomUUID } from 'node:crypto';
import { clauses } from '../fixtures/evidence.js';
import { notJudgedIf } from '../verdicts.js';
import { createRoutingRule, dataOf, GqlSession, routingRuleOf } from './support.js';

const AVAILABILITY = 'availability { chat { isAvailable } call { isAvailable } video { isAvailable } }';

test('routingRule(id:) answers availability.chat/call/video.isAvailable as Booleans', clauses('GQL-RULE-01'), async ({ target }) => {
  const session = GqlSession.of(target);
  const id = await routingRuleOf(target, session);
  const data = dataOf(await session.post(`query($id: ID!) { routingRule(id: $id) { id ${AVAILABILITY} } }`, { variables: { id } }));
  expectSchema('graphql/routing-rule.json#/$defs/available', data.routingRule);
  expect(data.routingRule.id).toBe(id);
});

test('isAvailable follows the rule\'s operators: true on a channel where one is available, false where none is', clauses('GQL-RULE-01').needs('platform'), async ({ target, api }) => {
  const session = GqlSession.of(target);
  const key = keyOfClient(target, session.clientId) ?? target.api_key;
  const project = dataOf(await session.post('{ projects(first: 1) { edges { node { id } } } }')).projects.edges[0]?.node.id;
  // Set-up through the REST API and the platform API (G17): what fails there leaves this check NOT JUDGED, never a GraphQL failure.
  const operator = async (label: string) => {
    const u = randomUUID().slice(0, 8);
    const res = await api.rest({ method: 'POST', path: '/operator', key, json: { name: `Rule${u}`, first_name: 'Ces', email: `ces-rule-${u}@probe.example`, chat_enabled: true, call_enabled: true, video_enabled: true } });
    notJudgedIf(res.json?.meta?.status !== 'success', `could not create the ${label} operator through POST /operator: ${res.status} ${res.text.slice(0, 200)}`);
    return res.json.data.id as number;
  };
  const chatOnly = await operator('chat-available');
  const live = await api.rest({ method: 'PUT', path: `/operator/${chatOnly}/live`, key, json: { 'chat[available]': 1 } });
  notJudgedIf(live.json?.meta?.status !== 'success', `could not make operator ${chatOnly} available for chat through PUT /operator/{id}/live: ${live.status}`);
  const never = await operator('never-connected');
  const rule = async (operatorIds: number[], label: string) => {
    const res = await api.request({ method: 'POST', url: `${target.platform_url}/routing-rules`, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ websiteId: Number(project), channels: ['chat', 'call', 'video'], operatorIds, label }) }, `POST {platform_url}/routing-rules (${label})`);
    notJudgedIf(res.status !== 201 || typeof res.json?.id !== 'string', `the platform API did not create the ${label} rule: ${res.status} ${res.text.slice(0, 200)}`);
    return res.json.id as string;
  };
  const cases: Array<[string, string, { chat: boolean; call: boolean; video: boolean }]> = [
    ['a rule whose operator is available for chat only', await rule([chatOnly], 'chat available'), { chat: true, call: false, video: false }],
    ['a rule whose only operator never connected', await rule([never], 'nobody available'), { chat: false, call: false, video: false }],
  ];
  for (const [what, id, want] of cases) {
    const data = dataOf(await session.post(`query($id: ID!) { routingRule(id: $id) { id ${AVAILABILITY} } }`, { variables: { id }, label: what }));
    expectSchema('graphql/routing-rule.json#/$defs/available', data.routingRule);
    const got = { chat: data.routingRule.availability.chat.isAvailable, call: data.routingRule.availability.call.isAvailable, video: data.routingRule.availability.video.isAvailable };
    expect(got, `${what}: isAvailable per channel`).toEqual(want);
  }
});

for (const [what, query] of [
  ['two aliases of the same rule', `query($id: ID!) { a: routingRule(id: $id) { ${AVAILABILITY} } b: routingRule(id: $id) { ${AVAILABILITY} } }`],
  ['the same field twice through aliases inside one rule', `query($id: ID!) { a: routingRule(id: $id) { first: ${AVAILABILITY} second: ${AVAILABILITY} } }`],
] as const) {
  test(`G16: with ${what}, the second availability is null with an error`, clauses('GQL-RULE-02'), async ({ target }) => {
    const session = GqlSession.of(target);
    const id = await routingRuleOf(target, session);
    const res = await session.post(query, { variables: { id } });
    // G16 states the outcome (null and an error), in the usual GraphQL result form; the error's code is G15's decision.
    expectSchema('graphql/response.json', res.json);
    const errors: Array<{ path?: Array<string | number> }> = res.json.errors ?? [];
    expect(errors.length, 'the result carries an error').toBeGreaterThan(0);
    const data = res.json.data;
    const [first, second] = what.startsWith('two') ? [data?.a?.availability, data?.b?.availability] : [data?.a?.first, data?.a?.second];
    expectSchema('graphql/routing-rule.json#/$defs/availability', first);
    expect(second, 'the second availability resolves to null').toBeNull();
    const secondPath = what.startsWith('two') ? ['b', 'availability'] : ['a', 'second'];
    expect(errors.map((e) => (e.path ?? []).join('.')), 'an error names the second availability').toContain(secondPath.join('.'));
  });
}

test('G16: one availability per query, so two separate queries both resolve', clauses('GQL-RULE-02'), async ({ target }) => {
  const session = GqlSession.of(target);
  const id = await routingRuleOf(target, session);
  for (const n of [1, 2]) {
    const data = dataOf(await session.post(`query($id: ID!) { routingRule(id: $id) { ${AVAILABILITY} } }`, { variables: { id }, label: `query ${n} with one availability` }));
    expectSchema('graphql/routing-rule.json#/$defs/availability', data.routingRule.availability);
  }
});

test('the platform API creates a routing rule that routingRule(id:) then answers', clauses('GQL-SETUP-01').needs('platform'), async ({ target }) => {
  const session = GqlSession.of(target);
  const id = await createRoutingRule(target, session);
  const data = dataOf(await session.post('query($id: ID!) { routingRule(id: $id) { id } }', { variables: { id } }));
  expect(data.routingRule?.id, 'routingRule(id:) answers the rule the platform API created').toBe(id);
});
