// Shared set-up of the GraphQL project tests: the reference implementation listening on loopback and a bearer token of client 1's admin.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../reference-impl/app.js';
import { seededPassword } from '../reference-impl/store/credentials.js';

export interface GraphqlServer { app: FastifyInstance; url: string; token: string }

export async function startGraphqlServer(): Promise<GraphqlServer> {
  const app = await buildApp({});
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/graphql`;
  const res = await app.inject({
    method: 'POST', url: '/oauth2/token', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ username: 'admin@client1.example', password: seededPassword(42, 1001), grant_type: 'password' }).toString(),
  });
  assert.equal(res.statusCode, 200, res.body);
  return { app, url, token: res.json().access_token };
}
