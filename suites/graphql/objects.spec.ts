// Checks of the GraphQL objects: client, projects/project, conversationTag, closed conversations with satisfactionSurvey, survey responses, the tag mutation.
import { test, expect, expectSchema } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { dataOf, errorsOf, GqlSession, listedIds } from './support.js';
import { notJudgedIf } from '../verdicts.js';

const SURVEY = 'id conversationId noteWelcome noteResolution nodeDelay comment createdAt';

for (const clientIndex of [0, 1]) {
  test(`client answers the account of the token's user (client ${clientIndex + 1} of the target)`, clauses('GQL-CLIENT-01').needs(...(clientIndex ? ['second_client_user' as const] : [])), async ({ target }) => {
    const session = GqlSession.of(target, clientIndex);
    const data = dataOf(await session.post('{ client { id name lang premiumEnabled } }'));
    expectSchema('graphql/client.json', data);
    const expected = target.users?.[clientIndex]?.client_id;
    expect(expected, 'the target lists the client id of its users (target `users`)').toBeDefined();
    expect(data.client.id, 'client.id is the user\'s account').toBe(String(expected));
  });
}

test('projects is a connection: edges { node { id name } }', clauses('GQL-PROJ-01'), async ({ target }) => {
  const data = dataOf(await GqlSession.of(target).post('{ projects { edges { node { id name } } } }'));
  expectSchema('graphql/projects.json', data);
  expect(data.projects.edges.length, 'the account has projects').toBeGreaterThan(0);
});

test('project(id:) answers each listed project', clauses('GQL-PROJ-02'), async ({ target }) => {
  const session = GqlSession.of(target);
  const listed = dataOf(await session.post('{ projects { edges { node { id name } } } }')).projects.edges.map((e: any) => e.node);
  expect(listed.length).toBeGreaterThan(0);
  for (const p of listed) {
    const data = dataOf(await session.post('query($id: ID!) { project(id: $id) { id name } }', { variables: { id: p.id } }));
    expectSchema('graphql/projects.json#/$defs/one', data);
    expect(data.project, `project ${p.id} as listed`).toEqual(p);
  }
});

test('conversationTag(id:) answers the tag with that id', clauses('GQL-TAG-01'), async ({ target }) => {
  const session = GqlSession.of(target);
  // The ids come from the reference's conversationTags listing (the spec names conversationTag(id:) only).
  const ids = await listedIds(session, 'conversationTags', 'conversation tags', 10);
  expect(ids.length, 'the account has conversation tags').toBeGreaterThan(1);
  const tags = dataOf(await session.post('{ conversationTags(first: 10) { edges { node { id name projectIds } } } }')).conversationTags.edges.map((e: any) => e.node);
  for (const t of tags.slice(0, 3)) {
    const data = dataOf(await session.post('query($id: ID!) { conversationTag(id: $id) { id name projectIds } }', { variables: { id: t.id } }));
    expectSchema('graphql/tag.json', data.conversationTag);
    expect(data.conversationTag).toEqual(t);
  }
});

test('searchClosedConversations answers closed conversations with their satisfactionSurvey', clauses('GQL-CONV-01'), async ({ target }) => {
  const data = dataOf(await GqlSession.of(target).post(`{ searchClosedConversations(first: 100) { totalCount edges { node { id channel createdAt closedAt satisfactionSurvey { ${SURVEY} } } } } }`));
  const conn = data.searchClosedConversations;
  expectSchema('graphql/conversations.json', conn);
  expect(conn.edges.length, 'the account has closed conversations').toBeGreaterThan(0);
  for (const { node } of conn.edges) {
    expect(Date.parse(node.closedAt), `conversation ${node.id} closed after it started`).toBeGreaterThanOrEqual(Date.parse(node.createdAt));
    if (node.satisfactionSurvey) expect(node.satisfactionSurvey.conversationId, 'the survey is about its conversation').toBe(node.id);
  }
  expect(conn.edges.filter((e: any) => e.node.satisfactionSurvey).length, 'surveys are answered on some of the last 100 closed conversations').toBeGreaterThan(0);
});

test('closedConversations requires an interval and answers only conversations closed within it', clauses('GQL-CONV-02'), async ({ target }) => {
  const session = GqlSession.of(target);
  const missing = await session.post('{ closedConversations(first: 1) { totalCount } }', { label: 'closedConversations without interval' });
  expect(missing.json?.data ?? null, 'without interval nothing is executed').toBeNull();
  errorsOf(missing);
  const all = dataOf(await session.post('{ searchClosedConversations(first: 100) { totalCount edges { node { closedAt } } } }')).searchClosedConversations;
  const times = all.edges.map((e: any) => Date.parse(e.node.closedAt)).sort((a: number, b: number) => a - b);
  expect(times.length, 'enough closed conversations to cut an interval').toBeGreaterThan(4);
  // An interval strictly inside the listed closures, so that both ends exclude some.
  const from = new Date(times[1]! + 1).toISOString();
  const to = new Date(times[times.length - 2]!).toISOString();
  const data = dataOf(await session.post('query($i: DateTimeInterval!) { closedConversations(interval: $i, first: 100) { totalCount edges { node { id closedAt createdAt } } } }', { variables: { i: { from, to } } }));
  const conn = data.closedConversations;
  expectSchema('graphql/conversations.json', conn);
  expect(conn.edges.length, 'the interval holds conversations').toBeGreaterThan(0);
  expect(conn.totalCount, 'the interval excludes some conversations').toBeLessThan(all.totalCount);
  for (const { node } of conn.edges) {
    const at = Date.parse(node.closedAt);
    expect(at >= Date.parse(from) && at < Date.parse(to), `conversation ${node.id} closed at ${node.closedAt}, within [${from}, ${to})`).toBe(true);
  }
});

test('satisfactionSurveyResponses answers the same surveys as their conversations', clauses('GQL-SAT-01'), async ({ target }) => {
  const session = GqlSession.of(target);
  const data = dataOf(await session.post(`{ satisfactionSurveyResponses(first: 5) { totalCount edges { node { ${SURVEY} } } } }`));
  expectSchema('graphql/surveys.json', data);
  const surveys = data.satisfactionSurveyResponses.edges.map((e: any) => e.node);
  expect(surveys.length, 'the account has survey responses').toBeGreaterThan(0);
  // Their conversations through searchClosedConversations (the spec's object carrying satisfactionSurvey), not the reference's
  // conversation(id:) root field.
  const closed = dataOf(await session.post(`{ searchClosedConversations(first: 100) { edges { node { id satisfactionSurvey { ${SURVEY} } } } } }`)).searchClosedConversations.edges.map((e: any) => e.node);
  const byId = new Map(closed.map((c: any) => [c.id, c]));
  const judged = surveys.filter((s: any) => byId.has(s.conversationId));
  notJudgedIf(judged.length === 0, `none of the ${surveys.length} survey responses belongs to one of the last 100 closed conversations`);
  for (const s of judged) expect((byId.get(s.conversationId) as any).satisfactionSurvey, `the satisfactionSurvey of conversation ${s.conversationId} is the same response`).toEqual(s);
});

test('createConversationTag creates a tag its account can read and another cannot', clauses('GQL-MUT-01').needs('second_client_user'), async ({ target }) => {
  const mine = GqlSession.of(target, 0);
  const project = dataOf(await mine.post('{ projects(first: 1) { edges { node { id } } } }')).projects.edges[0].node.id;
  const name = `check-tag-${Date.now()}`;
  const created = dataOf(await mine.post('mutation($n: String!, $p: [ID!]!) { createConversationTag(name: $n, projectIds: $p) { id name projectIds } }', { variables: { n: name, p: [project] } })).createConversationTag;
  expectSchema('graphql/tag.json', created);
  expect(created).toMatchObject({ name, projectIds: [project] });
  const read = dataOf(await mine.post('query($id: ID!) { conversationTag(id: $id) { id name projectIds } }', { variables: { id: created.id } }));
  expect(read.conversationTag, 'the new tag is readable by id').toEqual(created);
  const other = await GqlSession.of(target, 1).post('query($id: ID!) { conversationTag(id: $id) { id name } }', { variables: { id: created.id }, label: 'conversationTag(id:) by another account' });
  expect(other.json?.data?.conversationTag ?? null, 'another account does not see it').toBeNull();
});

test('conversation ids are UUID and legacy ids LegacyId: typed operations as public clients write them validate and run', clauses('GQL-SCALAR-01'), async ({ target }) => {
  const session = GqlSession.of(target);
  const listed = dataOf(await session.post('{ searchClosedConversations(first: 1) { edges { node { id legacyId } } } }')).searchClosedConversations.edges;
  expect(listed.length, 'the account has a closed conversation to read').toBeGreaterThan(0);
  const { id, legacyId } = listed[0].node;
  const byUuid = await session.post('query ($id: UUID!) { conversation(id: $id) { id legacyId } }', { variables: { id }, label: 'query ($id: UUID!) { conversation(id: $id) } (G27)' });
  expect(byUuid.json?.errors, `a query declaring $id: UUID! must validate and run (G27): ${byUuid.text}`).toBeUndefined();
  expect(byUuid.json.data.conversation).toEqual({ id, legacyId });
  const byLegacy = await session.post('query ($legacyId: LegacyId!) { conversation(legacyId: $legacyId) { id } }', { variables: { legacyId }, label: 'query ($legacyId: LegacyId!) { conversation(legacyId: $legacyId) }' });
  expect(byLegacy.json?.errors, `a query declaring $legacyId: LegacyId! must validate and run (G27): ${byLegacy.text}`).toBeUndefined();
  expect(byLegacy.json.data.conversation).toEqual({ id });
  const types = dataOf(await session.post('{ UUID: __type(name: "UUID") { kind } LegacyId: __type(name: "LegacyId") { kind } }'));
  expect(types, 'the schema declares the scalars UUID and LegacyId').toEqual({ UUID: { kind: 'SCALAR' }, LegacyId: { kind: 'SCALAR' } });
});
