// Unit tests of the GraphQL depth and cost rules (reference-impl/graphql/rules.ts): fragments, aliases, page sizes, introspection exempt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, validate, specifiedRules, Kind, type GraphQLError, type OperationDefinitionNode } from 'graphql';
import { buildCesSchema } from '../reference-impl/graphql/schema.js';
import { costLimitRule, costOf, depthLimitRule, depthOf } from '../reference-impl/graphql/rules.js';
import { LIMITS } from '../lib/limits.js';
import { parseWithinLimits } from '../reference-impl/graphql/document-limits.js';

const schema = buildCesSchema();
const op = (q: string) => parse(q).definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
const frags = (q: string) => Object.fromEntries(parse(q).definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d: any) => [d.name.value, d]));

test('depth counts nested fields through fragments, not introspection', () => {
  const q = 'query { client { ...C } } fragment C on Client { projects(first: 1) { edges { node { id } } } }';
  assert.equal(depthOf(op(q).selectionSet, frags(q)), 5);
  assert.equal(depthOf(op('{ __schema { types { fields { type { ofType { name } } } } } }').selectionSet, {}), 0);
});

test('cost multiplies by first, its default, or its maximum for variables', () => {
  assert.equal(costOf(schema, op('{ projects(first: 10) { edges { node { id } } } }').selectionSet, schema.getQueryType()!, {}), 1 + 10 * 3);
  assert.equal(costOf(schema, op('{ projects { totalCount } }').selectionSet, schema.getQueryType()!, {}), 1 + LIMITS.graphqlPageDefault);
  assert.equal(costOf(schema, op('query($n: Int) { projects(first: $n) { totalCount } }').selectionSet, schema.getQueryType()!, {}), 1 + LIMITS.graphqlPageMax);
});

test('the rules report clear errors with codes', () => {
  const rules = [...specifiedRules, depthLimitRule(3), costLimitRule(50)];
  const errors = validate(schema, parse('{ client { projects { edges { node { id } } } } }'), rules);
  const codes = errors.map((e) => e.extensions.code);
  assert.deepEqual(codes.sort(), ['QUERY_TOO_COSTLY', 'QUERY_TOO_DEEP']);
  assert.match(errors.find((e) => e.extensions.code === 'QUERY_TOO_DEEP')!.message, /depth 5 exceeds the maximum depth of 3/);
  assert.deepEqual(validate(schema, parse('{ client { id } }'), rules), []);
});

test('what the parser refuses carries GRAPHQL_PARSE_FAILED from the parser itself, its message and position kept', () => {
  const refused = (q: string) => { try { parseWithinLimits(q); } catch (e) { return e as GraphQLError; } assert.fail(`${q} parsed`); };
  const e = refused('{ client { id }');
  assert.equal(e.extensions.code, 'GRAPHQL_PARSE_FAILED');
  assert.match(e.message, /^Syntax Error: Expected Name, found <EOF>/);
  assert.deepEqual(e.locations, [{ line: 1, column: 16 }]);
  // A limit the one-pass count finds keeps its own code.
  assert.equal(refused('{ ' + 'a { '.repeat(LIMITS.graphqlMaxNesting + 2) + 'id' + ' }'.repeat(LIMITS.graphqlMaxNesting + 2) + ' }').extensions.code, 'QUERY_TOO_DEEP');
});
