// Checks of the GraphQL operation limits: depth (QUERY_TOO_DEEP), cost (QUERY_TOO_COSTLY) and connection paging (first/after).
import { test, expect } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { LIMITS } from '../../lib/limits.js';
import { dataOf, errorsOf, GqlSession } from './support.js';

/** `client { projects(first: 1) { edges { node { client ... } } } }` nested to exactly `depth` levels of fields. */
function nested(depth: number): string {
  const cycle = ['client', 'projects(first: 1)', 'edges', 'node'];
  // The last field: one the innermost wrapper's type has (Client.id, ProjectConnection.totalCount, ProjectEdge.cursor, Project.id).
  const leaf = ['id', 'totalCount', 'cursor', 'id'];
  let q = '';
  for (let d = 0; d < depth - 1; d++) q += `${cycle[d % 4]} { `;
  q += leaf[(depth - 2) % 4];
  for (let d = 0; d < depth - 1; d++) q += ' }';
  return `{ ${q} }`;
}

test(`an operation of depth ${LIMITS.graphqlMaxDepth} runs, depth ${LIMITS.graphqlMaxDepth + 1} is refused with QUERY_TOO_DEEP`, clauses('GQL-LIMIT-01'), async ({ target }) => {
  const session = GqlSession.of(target);
  dataOf(await session.post(nested(LIMITS.graphqlMaxDepth), { label: `depth ${LIMITS.graphqlMaxDepth}` }));
  const res = await session.post(nested(LIMITS.graphqlMaxDepth + 1), { label: `depth ${LIMITS.graphqlMaxDepth + 1}` });
  expect(res.json?.data ?? null, 'nothing is executed').toBeNull();
  const errors = errorsOf(res);
  expect(errors.map((e) => e.extensions.code)).toContain('QUERY_TOO_DEEP');
  expect(errors.find((e) => e.extensions.code === 'QUERY_TOO_DEEP')!.message, 'the message names the maximum').toContain(String(LIMITS.graphqlMaxDepth));
});

test(`an operation costing more than ${LIMITS.graphqlMaxCost} is refused with QUERY_TOO_COSTLY`, clauses('GQL-LIMIT-02'), async ({ target }) => {
  const session = GqlSession.of(target);
  // Each alias costs 1 + 100 x (edges + node + 5 fields) = 701; eight of them exceed 5000.
  const alias = (i: number) => `p${i}: projects(first: ${LIMITS.graphqlPageMax}) { edges { node { id name url currency timezone } } }`;
  const aliases = Math.ceil(LIMITS.graphqlMaxCost / (1 + LIMITS.graphqlPageMax * 7)) + 1;
  dataOf(await session.post(`{ ${alias(0)} }`, { label: 'one costly connection (701)' }));
  const res = await session.post(`{ ${Array.from({ length: aliases }, (_, i) => alias(i)).join(' ')} }`, { label: `${aliases} costly connections` });
  expect(res.json?.data ?? null, 'nothing is executed').toBeNull();
  const errors = errorsOf(res);
  expect(errors.map((e) => e.extensions.code)).toContain('QUERY_TOO_COSTLY');
  expect(errors.find((e) => e.extensions.code === 'QUERY_TOO_COSTLY')!.message, 'the message names the maximum').toContain(String(LIMITS.graphqlMaxCost));
});

test('pages of a connection do not overlap and together list every item', clauses('GQL-PAGE-01'), async ({ target }) => {
  const session = GqlSession.of(target);
  const q = 'query($first: Int, $after: String) { searchClosedConversations(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } } } }';
  const whole = dataOf(await session.post(q, { variables: { first: 10 }, label: 'first 10' })).searchClosedConversations;
  const p1 = dataOf(await session.post(q, { variables: { first: 5 }, label: 'page 1 (5)' })).searchClosedConversations;
  expect(p1.pageInfo.hasNextPage).toBe(true);
  const p2 = dataOf(await session.post(q, { variables: { first: 5, after: p1.pageInfo.endCursor }, label: 'page 2 (5, after page 1)' })).searchClosedConversations;
  const ids = (c: any) => c.edges.map((e: any) => e.node.id);
  expect([...ids(p1), ...ids(p2)], 'page 1 + page 2 = the first 10').toEqual(ids(whole));
  const over = await session.post(`{ searchClosedConversations(first: ${LIMITS.graphqlPageMax + 1}) { totalCount } }`, { label: `first: ${LIMITS.graphqlPageMax + 1}` });
  expect(errorsOf(over).map((e) => e.extensions.code), `first above ${LIMITS.graphqlPageMax} is refused`).toContain('BAD_USER_INPUT');
});
