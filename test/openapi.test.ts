// The generated OpenAPI document is whole: every REST route declares its metadata, every $ref resolves, schemas come from fixtures,
// every operation has examples that match their schemas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../reference-impl/app.js';
import { buildOpenApi } from '../reference-impl/rest/openapi.js';
import { allSchemas } from '../lib/schemas.js';
import { OpenApiDocument } from '../lib/openapi.js';
import { ROOT } from '../lib/paths.js';
import fs from 'node:fs';
import path from 'node:path';

async function served(url = '/api/2/openapi.json', deviate: string[] = []) {
  const app = await buildApp({ deviate });
  await app.ready();
  const { api_key } = app.ces.db.prepare('SELECT api_key FROM clients ORDER BY id LIMIT 1').get() as { api_key: string };
  const withKey = await app.inject({ method: 'GET', url, headers: { 'x-api-key': api_key } });
  const without = await app.inject({ method: 'GET', url });
  await app.close();
  return { doc: withKey.json(), status: withKey.statusCode, without: without.json(), withoutStatus: without.statusCode };
}

test('the document needs the key, is the same on both bases, and names no undocumented route', async () => {
  const sd = await served();
  const ha = await served('/ha/api/2/openapi.json');
  assert.equal(sd.status, 200);
  assert.deepEqual(sd.without, { meta: { status: 'error', message: 'Forbidden' } });
  assert.equal(sd.withoutStatus, 403);
  assert.deepEqual(ha.doc, sd.doc);
  assert.equal(sd.doc.openapi, '3.1.0');
  assert.equal(sd.doc['x-undocumented-routes'], undefined, `routes without config.openapi: ${sd.doc['x-undocumented-routes']}`);
});

test('every $ref resolves inside the document and every rest/ schema is a component', async () => {
  const { doc } = await served();
  const refs = new Set<string>();
  const walk = (n: any) => { if (Array.isArray(n)) n.forEach(walk); else if (n && typeof n === 'object') for (const [k, v] of Object.entries(n)) k === '$ref' ? refs.add(v as string) : walk(v); };
  walk(doc);
  assert.ok(refs.size > 10);
  for (const r of refs) {
    assert.ok(r.startsWith('#/'), `${r} is not local`);
    let node: any = doc;
    for (const part of r.slice(2).split('/')) node = node?.[part];
    assert.ok(node !== undefined, `${r} does not resolve`);
  }
  for (const id of Object.keys(allSchemas()).filter((i) => i.startsWith('rest/'))) {
    const name = id.replace(/^rest\//, '').replace(/\.json$/, '');
    assert.ok(doc.components.schemas[name], `schema ${id} missing from components.schemas`);
  }
  const ops = Object.values<any>(doc.paths).flatMap((p) => Object.values<any>(p));
  const ids = ops.map((o) => o.operationId);
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

test('lists get page, limit, full and their filters; deprecated routes and filters are marked', async () => {
  const { doc } = await served();
  const list = doc.paths['/operator'].get;
  const names = list.parameters.map((p: any) => p.$ref ?? p.name);
  for (const n of ['#/components/parameters/page', '#/components/parameters/limit', '#/components/parameters/full', 'filters[name]', 'filters[website_list]']) assert.ok(names.includes(n), `${n} on GET /operator`);
  // Create needs name, first_name and email on top of the shared write schema (issue 14, item 8).
  assert.deepEqual(doc.paths['/operator'].post.requestBody.content['application/json'].schema, { allOf: [{ $ref: '#/components/schemas/operator-write' }, { required: ['name', 'first_name', 'email'] }] });
  // A form carries text: its schema states each value as the text the server reads, and a list as the repeated field (G26).
  const form = doc.paths['/operator'].post.requestBody.content['application/x-www-form-urlencoded'];
  assert.deepEqual(form.schema, { allOf: [{ $ref: '#/components/schemas/operator-write-form' }, { required: ['name', 'first_name', 'email'] }] });
  assert.deepEqual(form.encoding.roles, { style: 'form', explode: true });
  const fields = doc.components.schemas['operator-write-form'].properties;
  assert.deepEqual(fields.chat_enabled.enum, ['true', 'false', '1', '0']);
  assert.deepEqual(fields.chat_priority.enum, ['0', '10']);
  assert.equal(fields.chat_max_number.type, 'string');
  // Filters state what the server reads: ids as integers, lists as comma arrays, dates by a calendar-exact pattern.
  const filter = (path: string, n: string) => doc.paths[path].get.parameters.find((p: any) => p.name === `filters[${n}]`);
  assert.deepEqual(filter('/group', 'parent_id').schema, { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
  assert.equal(filter('/operator', 'website_list').schema.type, 'array');
  assert.equal(filter('/operator', 'website_list').explode, false);
  assert.ok(filter('/statistic', 'indicators').schema.items.enum.includes('contact_number'));
  const date = new RegExp(filter('/transaction', 'from').schema.pattern);
  for (const ok of ['2024-02-29', '2000-02-29 23:59:59', '0000-02-29', '9999-12-31 00:00:00']) assert.ok(date.test(ok), ok);
  for (const bad of ['2023-02-29', '1900-02-29', '8113-81-49 02:54:74', '2024-04-31', '2024-01-01 24:00:00', '2024-1-01']) assert.ok(!date.test(bad), bad);
  assert.equal(doc.paths['/operator/{id}'].put.requestBody.content['application/json'].schema.$ref, '#/components/schemas/operator-write');
  assert.ok(doc.paths['/operator'].post.responses['201']);
  for (const p of ['/client', '/client/{id}', '/website', '/website/{id}']) assert.equal(doc.paths[p].get.deprecated, true, p);
  assert.equal(doc.paths['/operator'].get.deprecated, undefined);
  const deviant = await served('/api/2/openapi.json', ['rest-openapi-not-deprecated']);
  assert.equal(deviant.doc.paths['/client'].get.deprecated, undefined, 'the deviation removes the marks');
});

test('a route without metadata is named, not hidden', () => {
  const doc = buildOpenApi([{ method: 'GET', path: '/thing' }]) as any;
  assert.deepEqual(doc['x-undocumented-routes'], ['GET /thing']);
});

test('every operation has examples (path and query parameters, body, success answer, every answer with a body) and each matches its schema', () => {
  const file = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures', 'openapi.json'), 'utf8'));
  const doc = new OpenApiDocument(file);
  const problems: string[] = [];
  const ops = doc.operations();
  assert.ok(ops.length >= 30, `only ${ops.length} operations`);
  for (const op of ops) {
    for (const p of op.parameters) {
      if (p.example === undefined) { if (p.required) problems.push(`${op.id}: required parameter ${p.name} has no example`); continue; }
      const err = doc.validate(p.pointer, typeof p.example === 'string' && /integer|number/.test(JSON.stringify(p.schema.type)) ? Number(p.example) : p.example);
      if (err) problems.push(`${op.id}: example of ${p.name} (${JSON.stringify(p.example)}): ${err}`);
    }
    for (const t of op.body?.types ?? []) {
      if (t.example === undefined) problems.push(`${op.id}: ${t.type} body has no example`);
      else if (doc.validate(t.pointer, t.example)) problems.push(`${op.id}: ${t.type} body example: ${doc.validate(t.pointer, t.example)}`);
    }
    const success = op.statuses.find((s) => s.startsWith('2'));
    if (!success) problems.push(`${op.id}: no success answer`);
    for (const status of op.statuses) {
      const { node: res, pointer } = doc.follow(doc.at(`${op.pointer}/responses/${status}`), `${op.pointer}/responses/${status}`);
      const media = res?.content?.['application/json'];
      if (!media) { if (status !== '431') problems.push(`${op.id} ${status}: no JSON body schema`); continue; }
      // One `example`, or named `examples` (a 400 with the operation's business rules: one per rule).
      const examples: Array<[string, unknown]> = media.example !== undefined ? [['example', media.example]] : Object.entries<any>(media.examples ?? {}).map(([k, e]) => [k, e.value]);
      if (!examples.length) { problems.push(`${op.id} ${status}: no example`); continue; }
      for (const [name, example] of examples) {
        const err = doc.validate(`${pointer}/content/application~1json/schema`, example);
        if (err) problems.push(`${op.id} ${status}: the example ${name} does not match the schema: ${err.slice(0, 300)}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});
