// fixtures/openapi.json is the checked-in, generated OpenAPI document: fails when routes or schemas changed without regenerating it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from '../reference-impl/app.js';
import { ROOT } from '../lib/paths.js';

const FILE = path.join(ROOT, 'fixtures', 'openapi.json');
const REGENERATE = 'UPDATE_OPENAPI=1 node --import tsx --test test/openapi-drift.test.ts';

/** The document the reference implementation serves at /api/2/openapi.json, as checked-in text. */
async function generated(): Promise<string> {
  const app = await buildApp({});
  try {
    await app.ready();
    const { api_key } = app.ces.db.prepare('SELECT api_key FROM clients ORDER BY id LIMIT 1').get() as { api_key: string };
    const res = await app.inject({ method: 'GET', url: '/api/2/openapi.json', headers: { 'x-api-key': api_key } });
    assert.equal(res.statusCode, 200, `GET /api/2/openapi.json answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    return JSON.stringify(res.json(), null, 2) + '\n';
  } finally {
    await app.close();
  }
}

test('fixtures/openapi.json matches the document generated from the routes and fixtures/schemas/rest', async () => {
  const doc = await generated();
  if (process.env.UPDATE_OPENAPI === '1') fs.writeFileSync(FILE, doc);
  assert.ok(fs.existsSync(FILE), `fixtures/openapi.json is missing: generate it with \`${REGENERATE}\` and commit it`);
  const checked = fs.readFileSync(FILE, 'utf8');
  if (checked === doc) return;
  const a = checked.split('\n');
  const b = doc.split('\n');
  const line = a.findIndex((l, i) => l !== b[i]);
  assert.fail(`fixtures/openapi.json is stale (first difference at line ${line + 1}: checked in ${JSON.stringify(a[line])}, generated ${JSON.stringify(b[line])}).\n` +
    `Regenerate it with \`${REGENERATE}\` and commit it.`);
});
