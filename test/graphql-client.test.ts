// graphql-request, a real GraphQL client, against the running reference implementation: bearer auth, queries with variables, a mutation, typed errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { GraphQLClient, ClientError, gql } from 'graphql-request';
import { startGraphqlServer } from './graphql-support.js';

let app: FastifyInstance;
let url: string;
let token: string;
const RULE = '00000000-0000-4000-8000-000000000001';

before(async () => {
  ({ app, url, token } = await startGraphqlServer());
  // A routing rule of client 1 in the bots area's table (the platform API creates them on a full stack).
  app.ces.db.prepare('INSERT INTO routing_rules (id, client_id, website_id, label, channels, operator_ids, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(RULE, 1001, 1, 'test rule', JSON.stringify(['chat']), JSON.stringify([]), app.ces.clock.now());
});
after(async () => { await app.close(); });

test('queries with variables return the token\'s account data', async () => {
  const client = new GraphQLClient(url, { headers: { authorization: `Bearer ${token}` } });
  const data = await client.request<{ client: { id: string }; projects: { edges: Array<{ node: { id: string; name: string } }> } }>(gql`
    query { client { id } projects { edges { node { id name } } } }`);
  assert.equal(data.client.id, '1001');
  assert.ok(data.projects.edges.length > 0);
  const one = await client.request<{ project: { id: string; name: string } | null }>(gql`query($id: ID!) { project(id: $id) { id name } }`, { id: data.projects.edges[0]!.node.id });
  assert.deepEqual(one.project, data.projects.edges[0]!.node);
});

test('a mutation creates a tag that a query reads back', async () => {
  const client = new GraphQLClient(url, { headers: { authorization: `Bearer ${token}` } });
  const { createConversationTag: tag } = await client.request<{ createConversationTag: { id: string; name: string } }>(
    gql`mutation($n: String!, $p: [ID!]!) { createConversationTag(name: $n, projectIds: $p) { id name } }`, { n: 'vip', p: ['1'] });
  const read = await client.request<{ conversationTag: { id: string; name: string } }>(gql`query($id: ID!) { conversationTag(id: $id) { id name } }`, { id: tag.id });
  assert.deepEqual(read.conversationTag, tag);
});

test('without a token the client gets a ClientError: HTTP 401, code UNAUTHENTICATED', async () => {
  const client = new GraphQLClient(url);
  await assert.rejects(client.request(gql`{ client { id } }`), (e: unknown) => {
    assert.ok(e instanceof ClientError, String(e));
    assert.equal(e.response.status, 401);
    assert.equal((e.response.errors?.[0]?.extensions as { code?: string } | undefined)?.code, 'UNAUTHENTICATED');
    return true;
  });
});

test('G16: a second availability comes back as a partial result with an error', async () => {
  const client = new GraphQLClient(url, { headers: { authorization: `Bearer ${token}` }, errorPolicy: 'all' });
  const res = await client.rawRequest<{ a: { availability: unknown } | null; b: { availability: unknown } | null }>(
    gql`query($id: ID!) { a: routingRule(id: $id) { availability { chat { isAvailable } } } b: routingRule(id: $id) { availability { chat { isAvailable } } } }`, { id: RULE });
  assert.ok(res.data.a?.availability, 'the first availability resolves');
  assert.equal(res.data.b?.availability, null);
  assert.equal((res.errors?.[0]?.extensions as { code?: string } | undefined)?.code, 'AVAILABILITY_LIMIT_EXCEEDED');
});
