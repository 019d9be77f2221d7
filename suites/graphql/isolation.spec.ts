// Checks that a token sees only its own account: projects, conversation tags and routing rules of another client are neither listed nor readable.
import { test, expect } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { GqlSession, listedIds, routingRuleOf } from './support.js';


const CASES = [
  { what: 'projects', list: 'projects', one: 'project' },
  { what: 'conversation tags', list: 'conversationTags', one: 'conversationTag' },
  { what: 'routing rules', list: 'routingRules', one: 'routingRule' },
] as const;

for (const c of CASES) {
  test(`another client's ${c.what} are neither listed nor readable by id`, clauses('GQL-SCOPE-01').needs('second_client_user'), async ({ target }) => {
    const mine = GqlSession.of(target, 0);
    const theirs = GqlSession.of(target, 1);
    // Both accounts need a routing rule for the comparison to mean something.
    if (c.list === 'routingRules') { await routingRuleOf(target, mine); await routingRuleOf(target, theirs); }
    // The listings give the ids to judge (projects is the spec's; the others are the reference's, NOT JUDGED without them).
    const a = await listedIds(mine, c.list, `${c.what} of client 1`);
    const b = await listedIds(theirs, c.list, `${c.what} of client 2`);
    expect(a.length, `client 1 has ${c.what}`).toBeGreaterThan(0);
    expect(b.length, `client 2 has ${c.what}`).toBeGreaterThan(0);
    expect(a.filter((id) => b.includes(id)), `no ${c.what} listed for both clients`).toEqual([]);
    for (const id of b.slice(0, 3)) {
      const res = await mine.post(`query($id: ID!) { ${c.one}(id: $id) { id } }`, { variables: { id }, label: `${c.one}(id: ${id}) of client 2, asked by client 1` });
      expect(res.json?.data?.[c.one] ?? null, `${c.one} ${id} of another client is not answered`).toBeNull();
    }
  });
}
