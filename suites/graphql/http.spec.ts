// Checks of GraphQL over HTTP at {graphql_url}: JSON POST, `?platform=sd`, mutations on the same endpoint, bearer required (G15), error shape and media type.
import { test, expect } from '../fixtures/sim.js';
import { expectSchema } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { under } from '../verdicts.js';
import { LIMITS } from '../../lib/limits.js';
import type { Target } from '../../lib/target.js';
import { loginForCheck, tokenFor } from '../auth/support.js';
import { dataOf, errorsOf, GqlSession, postGraphql } from './support.js';

test('a JSON POST with a bearer token answers a GraphQL result', clauses('GQL-HTTP-01'), async ({ target }) => {
  const res = await GqlSession.of(target).post('{ __typename client { id } }');
  expect(res.headers['content-type'] ?? '', 'the result is JSON').toMatch(/^application\/(graphql-response\+)?json/);
  const data = dataOf(res);
  expect(data.__typename, 'the query root answers').toBe('Query');
  expect(typeof data.client?.id).toBe('string');
});

test('the endpoint answers with ?platform=sd appended', clauses('GQL-HTTP-02'), async ({ target }) => {
  const data = dataOf(await GqlSession.of(target).post('{ __typename client { id } }', { suffix: '?platform=sd' }));
  expect(data.__typename).toBe('Query');
});

test('a mutation is executed on the same endpoint', clauses('GQL-HTTP-03'), async ({ target }) => {
  const data = dataOf(await GqlSession.of(target).post('mutation { __typename }'));
  expect(data.__typename, 'the mutation root answers').toBe('Mutation');
});

/** Authorization header values that carry no valid bearer token. */
const UNAUTHENTICATED_CASES: Array<[string, (t: Target) => string | null]> = [
  ['no Authorization header', () => null],
  ['a made-up bearer token', () => 'Bearer not-a-token-0123456789abcdef'],
  ['the REST API key as HTTP Basic', (t) => 'Basic ' + Buffer.from(`${t.api_key}:x`).toString('base64')],
];

for (const [what, header] of UNAUTHENTICATED_CASES) {
  test(`${what}: no data`, clauses('GQL-AUTH-01', 'GQL-AUTH-02'), async ({ target }) => {
    const authorization = header(target);
    const res = await postGraphql(target, '{ client { id } projects { edges { node { id name } } } }', { authorization, label: `POST /graphql (${what})` });
    under('GQL-AUTH-01', () => expect(res.json?.data ?? null, 'no data without a valid bearer token').toBeNull());
    // The spec says only that the token is required; the refusal's status is G15's decision (G34).
    under('GQL-AUTH-02', () => expect(res.status, 'G15: not a success status').not.toBe(200));
  });

  test(`${what}: HTTP 401 with code UNAUTHENTICATED`, clauses('GQL-AUTH-02'), async ({ target }) => {
    const authorization = header(target);
    const res = await postGraphql(target, '{ client { id } }', { authorization, label: `POST /graphql (${what})` });
    expect(res.status, 'G15: missing or invalid bearer is HTTP 401').toBe(401);
    const errors = errorsOf(res);
    expect(errors.map((e) => e.extensions.code)).toContain('UNAUTHENTICATED');
  });
}

test('a token is refused by GraphQL once 24 h of clock time have passed', clauses('GQL-AUTH-03', 'GQL-AUTH-02').needs('sim', 'clock'), async ({ target, sim }) => {
  const token = await tokenFor(target, await loginForCheck(target));
  const issued = (await sim.clock()).nowMs;
  const fresh = await postGraphql(target, '{ client { id } }', { authorization: `Bearer ${token}`, label: 'POST /graphql (fresh token)' });
  under('GQL-AUTH-03', () => dataOf(fresh));
  await sim.advance(issued + LIMITS.tokenLifetimeMs - (await sim.clock()).nowMs);
  const res = await postGraphql(target, '{ client { id } }', { authorization: `Bearer ${token}`, label: 'POST /graphql (token issued 24 h ago)' });
  under('GQL-AUTH-03', () => expect(res.json?.data ?? null, 'no data with an expired token').toBeNull());
  under('GQL-AUTH-02', () => expect(res.status, 'G15: an expired token is answered 401').toBe(401));
});

for (const [what, query] of [['an unknown field', '{ noSuchField }'], ['a syntax error', '{ client { id '], ['a missing required argument', '{ project { id } }']] as const) {
  test(`${what} is answered with errors carrying extensions.code`, clauses('GQL-ERR-01'), async ({ target }) => {
    const res = await GqlSession.of(target).post(query);
    expect(res.status, 'a request error is a client error or a 200 with errors').toBeLessThan(500);
    const errors = errorsOf(res);
    expect(errors.length).toBeGreaterThan(0);
    expect(res.json.data ?? null, 'a request error executes nothing').toBeNull();
  });
}

for (const [what, query] of [['a successful query', '{ __typename }'], ['an invalid query', '{ noSuchField }']] as const) {
  test(`${what} accepted as application/graphql-response+json is answered in that media type`, clauses('GQL-ERR-02'), async ({ target }) => {
    const res = await GqlSession.of(target).post(query, { accept: 'application/graphql-response+json' });
    expect(res.headers['content-type'] ?? '', 'G15: the GraphQL response media type when accepted').toMatch(/^application\/graphql-response\+json/);
    expectSchema('graphql/response.json', res.json);
  });
}
