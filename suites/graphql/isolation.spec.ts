// Checks that a token sees only its own account: projects, project(id:), conversationTag(id:), routingRule(id:) of another client.
import { test, expect, clauses } from '../fixtures.js';
import { dataOf, GqlSession } from './support.js';

const LISTS = '{ projects(first: 100) { edges { node { id } } } conversationTags(first: 100) { edges { node { id } } } routingRules(first: 100) { edges { node { id } } } }';
const idsOf = (conn: any): string[] => conn.edges.map((e: any) => e.node.id);

test('another client\'s projects, tags and routing rules are neither listed nor readable', clauses('GQL-SCOPE-01'), async ({ target }) => {
  const mine = GqlSession.of(target, 0);
  const theirs = GqlSession.of(target, 1);
  const a = dataOf(await mine.post(LISTS, { label: 'lists of client 1' }));
  const b = dataOf(await theirs.post(LISTS, { label: 'lists of client 2' }));
  for (const [what, key] of [['projects', 'projects'], ['conversation tags', 'conversationTags'], ['routing rules', 'routingRules']] as const) {
    expect(idsOf(b[key]).length, `client 2 has ${what}`).toBeGreaterThan(0);
    expect(idsOf(a[key]).filter((id) => idsOf(b[key]).includes(id)), `no ${what} listed for both clients`).toEqual([]);
  }
  for (const [field, key] of [['project', 'projects'], ['conversationTag', 'conversationTags'], ['routingRule', 'routingRules']] as const) {
    for (const id of idsOf(b[key]).slice(0, 3)) {
      const res = await mine.post(`query($id: ID!) { ${field}(id: $id) { id } }`, { variables: { id }, label: `${field}(id: ${id}) of client 2, asked by client 1` });
      expect(res.json?.data?.[field] ?? null, `${field} ${id} of another client is not answered`).toBeNull();
    }
  }
});
