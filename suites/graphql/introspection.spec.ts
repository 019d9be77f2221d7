// Checks of GraphQL introspection (`__schema`, `__type(name:)`), descriptions, and the objects the spec names.
import { test, expect, expectSchema } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { dataOf, GqlSession } from './support.js';

test('__schema lists the types with name, kind, description and fields', clauses('GQL-INTRO-01'), async ({ target }) => {
  const data = dataOf(await GqlSession.of(target).post('{ __schema { types { name kind description fields { name } } } }'));
  expectSchema('graphql/introspection.json', data);
  const names = data.__schema.types.map((t: { name: string }) => t.name);
  expect(names, 'the query root is listed').toContain('Query');
  expect(names, 'the Conversation object is listed').toContain('Conversation');
});

test('__type(name: "Conversation") answers the type', clauses('GQL-INTRO-02'), async ({ target }) => {
  const data = dataOf(await GqlSession.of(target).post('query($n: String!) { __type(name: $n) { name kind description fields { name } } }', { variables: { n: 'Conversation' } }));
  expectSchema('graphql/introspection.json#/$defs/one-type', data);
  expect(data.__type.name).toBe('Conversation');
  expect(data.__type.kind).toBe('OBJECT');
  expect(data.__type.fields.length, 'the type has fields').toBeGreaterThan(0);
});

test('every type, field, argument and input field has a description', clauses('GQL-INTRO-03'), async ({ target }) => {
  const data = dataOf(await GqlSession.of(target).post(`{ __schema { description types { name kind description
    fields(includeDeprecated: true) { name description args { name description } }
    inputFields { name description } } } }`));
  const missing: string[] = [];
  for (const t of data.__schema.types as any[]) {
    if (t.name.startsWith('__')) continue;
    if (!t.description?.trim()) missing.push(`type ${t.name}`);
    for (const f of t.fields ?? []) {
      if (!f.description?.trim()) missing.push(`field ${t.name}.${f.name}`);
      for (const a of f.args ?? []) if (!a.description?.trim()) missing.push(`argument ${t.name}.${f.name}(${a.name})`);
    }
    for (const f of t.inputFields ?? []) if (!f.description?.trim()) missing.push(`input field ${t.name}.${f.name}`);
  }
  expect(missing, 'items without a description').toEqual([]);
});

/** The named type an introspected type reference points to (through NON_NULL and LIST). */
const named = (ref: any): string => (ref.ofType ? named(ref.ofType) : ref.name);
const TYPE_REF = 'type { name kind ofType { name kind ofType { name kind ofType { name kind } } } }';

test('the schema offers every object the spec names', clauses('GQL-OBJ-01'), async ({ target }) => {
  const session = GqlSession.of(target);
  const typeOf = async (name: string) => dataOf(await session.post(`query($n: String!) { __type(name: $n) { name kind fields { name args { name } ${TYPE_REF} } } }`, { variables: { n: name }, label: `__type(name: "${name}")` })).__type;
  const query = await typeOf('Query');
  const fields = new Map<string, any>(query.fields.map((f: any) => [f.name, f]));
  for (const name of ['client', 'project', 'projects', 'conversationTag', 'satisfactionSurveyResponses', 'searchClosedConversations', 'routingRule']) {
    expect(fields.has(name), `root field ${name}`).toBe(true);
  }
  expect(fields.get('routingRule').args.map((a: any) => a.name), 'routingRule takes the argument id').toContain('id');
  const conversation = await typeOf('Conversation');
  expect(conversation?.kind, 'type Conversation exists').toBe('OBJECT');
  expect(conversation.fields.map((f: any) => f.name), 'conversations carry satisfactionSurvey').toContain('satisfactionSurvey');
  // searchClosedConversations lists Conversation nodes (through its connection).
  const conn = await typeOf(named(fields.get('searchClosedConversations').type));
  const edge = await typeOf(named(conn.fields.find((f: any) => f.name === 'edges').type));
  expect(named(edge.fields.find((f: any) => f.name === 'node').type), 'searchClosedConversations nodes are Conversation').toBe('Conversation');
  const rule = await typeOf(named(fields.get('routingRule').type));
  const availability = await typeOf(named(rule.fields.find((f: any) => f.name === 'availability').type));
  for (const channel of ['chat', 'call', 'video']) {
    const ch = await typeOf(named(availability.fields.find((f: any) => f.name === channel).type));
    const isAvailable = ch.fields.find((f: any) => f.name === 'isAvailable');
    expect(isAvailable && named(isAvailable.type), `availability.${channel}.isAvailable is a Boolean`).toBe('Boolean');
  }
});
