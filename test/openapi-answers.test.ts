// Answers judged by the OpenAPI document (lib/openapi.ts answerProblem, used by the suites' REST client on a reference target):
// the operation by method and path template, the response by status, the body by its schema; deviant answers are named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from '../reference-impl/app.js';
import { OpenApiDocument } from '../lib/openapi.js';
import { ROOT } from '../lib/paths.js';

const doc = new OpenApiDocument(JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures', 'openapi.json'), 'utf8')));

/** Requests sent to an in-process reference implementation (optionally deviant), each judged by the checked-in document. */
async function judged(deviate: string[], calls: Array<{ method?: string; path: string; key?: false; json?: unknown }>): Promise<Array<string | null>> {
  const app = await buildApp({ deviate });
  try {
    await app.ready();
    const { api_key } = app.ces.db.prepare('SELECT api_key FROM clients ORDER BY id LIMIT 1').get() as { api_key: string };
    const out: Array<string | null> = [];
    for (const c of calls) {
      const res = await app.inject({
        method: (c.method ?? 'GET') as 'GET', url: `/api/2${c.path}`,
        headers: { ...(c.key === false ? {} : { 'x-api-key': api_key }), ...(c.json === undefined ? {} : { 'content-type': 'application/json' }) },
        payload: c.json === undefined ? undefined : JSON.stringify(c.json),
      });
      let json: unknown;
      try { json = res.json(); } catch { json = undefined; }
      out.push(doc.answerProblem(c.method ?? 'GET', c.path, { status: res.statusCode, headers: res.headers as Record<string, string>, json, text: res.body }));
    }
    return out;
  } finally {
    await app.close();
  }
}

test('a literal path wins over a template; query strings and percent-encoding do not change the operation', () => {
  assert.deepEqual(doc.operationsOf('/operator/live?limit=5').map((o) => o.id), ['GET /operator/live']);
  assert.deepEqual(doc.operationsOf('/operator/12').map((o) => o.id).sort(), ['DELETE /operator/{id}', 'GET /operator/{id}', 'PUT /operator/{id}']);
  assert.deepEqual(doc.operationsOf('/%6Fperator/12/live').map((o) => o.id).sort(), ['GET /operator/{id}/live', 'PUT /operator/{id}/live']);
  assert.deepEqual(doc.operationsOf('/operator//live'), []);
  assert.deepEqual(doc.operationsOf('/nothing/here'), []);
});

test("the reference implementation's answers conform: lists, reads, writes, refusals, wrong methods, unknown ids and paths", async () => {
  const problems = await judged([], [
    { path: '/operator?limit=2&full=1' }, { path: '/operator/1' }, { path: '/operator/live' }, { path: '/group' }, { path: '/statistic?filters[indicators]=contact_number' },
    { method: 'POST', path: '/operator', json: { name: 'N', first_name: 'F', email: 'n@example.com' } },
    { method: 'PUT', path: '/operator/1', json: { pseudo: 'p' } },
    { path: '/operator/999999' }, { path: '/operator/1e3' }, { path: '/operator', key: false }, { path: '/no-such-route', key: false },
    { method: 'PATCH', path: '/operator/1', json: {} },
  ]);
  assert.deepEqual(problems, problems.map(() => null));
});

test('a deviant answer is named with its operation, status and schema error', async () => {
  const [noLink] = await judged(['rest-envelope-no-link'], [{ path: '/operator?limit=2' }]);
  assert.match(noLink ?? '', /^GET \/operator answered 200 with a body that does not match its schema .*_link/);
  const [created] = await judged(['rest-create-status-200'], [{ method: 'POST', path: '/operator', json: { name: 'N', first_name: 'F', email: 'n@example.com' } }]);
  assert.match(created ?? '', /^POST \/operator answered 200, a status the document does not state \(documented: 201,/);
  const [deleted] = await judged(['rest-delete-no-id'], [{ method: 'DELETE', path: '/operator/2' }]);
  assert.match(deleted ?? '', /^DELETE \/operator\/\{id\} answered 200 with a body that does not match its schema .*\/data/);
  const [forbidden] = await judged(['rest-forbidden-text'], [{ path: '/no-such-route', key: false }]);
  assert.match(forbidden ?? '', /^GET \/no-such-route \(no path of the document\) answered 403 with a body that does not match .*Forbidden/);
});

test('a wrong method must be 405 with Allow naming the documented methods; an unknown path may only get a common answer', () => {
  const fail = { meta: { status: 'fail', message: 'x' } };
  assert.match(doc.answerProblem('PATCH', '/operator/1', { status: 404, headers: {}, json: fail, text: '' }) ?? '', /must be 405, not 404/);
  assert.match(doc.answerProblem('PATCH', '/operator/1', { status: 405, headers: { allow: 'GET, PUT' }, json: fail, text: '' }) ?? '', /lacks the documented DELETE/);
  assert.equal(doc.answerProblem('PATCH', '/operator/1', { status: 405, headers: { allow: 'DELETE, GET, HEAD, PUT' }, json: fail, text: '' }), null);
  assert.match(doc.answerProblem('GET', '/nope', { status: 404, headers: {}, json: fail, text: '' }) ?? '', /no path of the document matches, and 404 is not an answer every operation states/);
  assert.match(doc.answerProblem('GET', '/operator/1', { status: 200, headers: {}, json: undefined, text: '<html>' }) ?? '', /not JSON/);
});

test('every operation, probed with each refusal the implementation makes, answers only statuses and bodies the document states', async () => {
  const app = await buildApp({});
  try {
    await app.ready();
    const { api_key } = app.ces.db.prepare('SELECT api_key FROM clients ORDER BY id LIMIT 1').get() as { api_key: string };
    const problems: string[] = [];
    const seen = new Set<number>();
    for (const op of doc.operations()) {
      const real = op.path.replace('{id}', '1');
      const example = op.body?.types.find((t) => t.type === 'application/json')?.example;
      const reads = op.method !== 'GET';
      const probes: Array<{ method?: string; path: string; key?: false; type?: string; body?: string }> = [
        { path: real, body: example === undefined ? undefined : JSON.stringify(example), type: example === undefined ? undefined : 'application/json' },
        { path: real, key: false },
        { path: `${real}${real.includes('?') ? '&' : '?'}x=${'y'.repeat(9000)}` },
        ...(op.path.includes('{id}') ? [{ path: op.path.replace('{id}', '999999999') }, { path: op.path.replace('{id}', '1e3') }] : []),
        ...(op.parameters.some((p) => p.name === 'page') ? [{ path: `${op.path}?page=0` }] : []),
        ...(reads ? [{ path: real, type: 'application/xml', body: '<a/>' }, { path: real, type: 'application/json', body: '{' }, { path: real, type: 'application/json', body: `"${'x'.repeat(1_100_000)}"` }] : []),
        ...(op.method === 'GET' ? [{ method: 'HEAD', path: real }] : []),
        { method: op.path.includes('{id}') ? 'PATCH' : 'OPTIONS', path: real },
      ];
      for (const p of probes) {
        const method = p.method ?? op.method;
        const res = await app.inject({
          method: method as 'GET', url: `/api/2${p.path}`,
          headers: { ...(p.key === false ? {} : { 'x-api-key': api_key }), ...(p.type ? { 'content-type': p.type } : {}) }, payload: p.body,
        });
        seen.add(res.statusCode);
        let json: unknown;
        try { json = res.json(); } catch { json = undefined; }
        const problem = doc.answerProblem(method, p.path, { status: res.statusCode, headers: res.headers as Record<string, string>, json, text: res.body });
        if (problem) problems.push(`${op.id} probed with ${method} ${p.path.slice(0, 60)}${p.type ? ` (${p.type})` : ''}: ${problem.slice(0, 300)}`);
      }
    }
    assert.deepEqual(problems, []);
    // The probes did reach each refusal (a probe answered 200 everywhere would prove nothing).
    for (const s of [200, 201, 400, 403, 404, 405, 413, 414, 415]) assert.ok(seen.has(s), `no probe was answered ${s} (seen: ${[...seen].sort().join(', ')})`);
  } finally {
    await app.close();
  }
});
