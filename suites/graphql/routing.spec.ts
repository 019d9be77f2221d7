// Checks of routingRule(id:) availability per channel and of G16 (one availability per query; a second resolves to null with an error).
import { test, expect, expectSchema } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { dataOf, GqlSession, routingRuleOf } from './support.js';

const AVAILABILITY = 'availability { chat { isAvailable } call { isAvailable } video { isAvailable } }';

test('routingRule(id:) answers availability.chat/call/video.isAvailable as Booleans', clauses('GQL-RULE-01'), async ({ target }) => {
  const session = GqlSession.of(target);
  const id = await routingRuleOf(target, session);
  const data = dataOf(await session.post(`query($id: ID!) { routingRule(id: $id) { id ${AVAILABILITY} } }`, { variables: { id } }));
  expectSchema('graphql/routing-rule.json#/$defs/available', data.routingRule);
  expect(data.routingRule.id).toBe(id);
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
