// Units of `ces fuzz`: query-string readings against a schema, reproductions that rebuild the exact request without printing secrets,
// the cross-client bookkeeping, and the budget option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';
import fc from 'fast-check';
import { SchemaValues } from '../fuzz/values.js';
import { curl, type FuzzRequest } from '../fuzz/exchange.js';
import { Ownership } from '../fuzz/oracles.js';
import { OpenApiDocument } from '../lib/openapi.js';
import { parseBudget } from '../cli/commands/fuzz.js';

const values = new SchemaValues(() => ({}));

test('an integer query value is digits only: exponents, fractions, signs and other digits are not integers', () => {
  const int = { type: 'integer', minimum: 1 };
  assert.deepEqual(values.readings('12', int), [12]);
  for (const bad of ['1e3', '1.5', '+1', '١٢', '', ' 1', '0x1f']) assert.deepEqual(values.readings(bad, int), [], bad);
  assert.deepEqual(values.readings('12', { type: ['integer', 'string'] }), [12, '12']);
});

test('generated valid values satisfy their schema (checked by ajv, as the fuzzer does)', () => {
  const doc = new OpenApiDocument({ openapi: '3.1.0', paths: {}, components: { schemas: { op: {
    type: 'object', required: ['name', 'email'], additionalProperties: false,
    properties: { name: { type: 'string', minLength: 1 }, email: { type: 'string', format: 'email' }, n: { type: 'integer', minimum: 0, maximum: 10 }, roles: { type: 'array', uniqueItems: true, items: { enum: ['a', 'b'] } } },
  } } } });
  const gen = new SchemaValues((ref) => doc.follow({ $ref: ref }, '').node);
  fc.assert(fc.property(gen.valid({ $ref: '#/components/schemas/op' }), (v) => doc.validate('/components/schemas/op', v) === null), { numRuns: 200, seed: 1 });
  fc.assert(fc.property(gen.invalid({ $ref: '#/components/schemas/op' }), (v) => doc.validate('/components/schemas/op', v) !== null), { numRuns: 200, seed: 2 });
});

test('a reproduction rebuilds the exact URL and body in the shell, with keys as variables only', () => {
  const r: FuzzRequest = {
    method: 'POST', baseVar: 'CES_REST_BASE_URL', baseUrl: 'https://x', path: `/operator/${encodeURIComponent('a*'.repeat(300) + "'$`\"\\")}`,
    query: [['filters[name]', '*'.repeat(999) + 'x'], ['note', "it's $HOME"]], headers: { 'content-type': 'application/json' }, body: `{"name":"O'Brien $x"}`,
    auth: { kind: 'key', client: 1, scheme: 'query' },
  };
  const cmd = curl(r, '/tmp/ca.pem');
  assert.ok(!cmd.includes('secret-key-2'));
  assert.match(cmd, /key=\$CES_API_KEY_2/);
  // Replace curl by printf of its arguments: the shell must hand curl exactly the URL and body the fuzzer sent.
  const out = execFileSync('bash', ['-c', `curl() { printf '%s\\n' "$@"; }; ${cmd}`], { env: { CES_REST_BASE_URL: 'https://x', CES_API_KEY_2: 'secret-key-2', CES_CA_FILE: '/tmp/ca.pem', PATH: process.env.PATH } }).toString().split('\n');
  const qs = r.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  assert.ok(out.includes(`https://x${r.path}?${qs}&key=secret-key-2`), `URL rebuilt: ${out.find((l) => l.startsWith('https'))?.slice(0, 200)}`);
  assert.ok(out.includes(r.body!));
});

test('cross-client bookkeeping: an id only another client lists is a leak; a shared one is not', () => {
  const own = new Ownership();
  own.add(0, 'operator', 1); own.add(1, 'operator', 2); own.add(0, 'website', 9); own.add(1, 'website', 9);
  assert.equal(own.ownerOtherThan(1, 'operator', 1), 0);
  assert.equal(own.ownerOtherThan(0, 'operator', 1), undefined);
  assert.equal(own.ownerOtherThan(1, 'website', 9), undefined);
  assert.deepEqual(own.overlaps(), [{ kind: 'website', id: '9', clients: [0, 1] }]);
  own.remove(1, 'website', '9');
  assert.equal(own.ownerOtherThan(1, 'website', 9), 0);
});

test('--budget accepts 60s, 2m, 500ms and plain seconds; anything else is a usage error', () => {
  assert.equal(parseBudget('60s'), 60_000);
  assert.equal(parseBudget('2m'), 120_000);
  assert.equal(parseBudget('500ms'), 500);
  assert.equal(parseBudget('5'), 5_000);
  assert.throws(() => parseBudget('soon'), /--budget must look like/);
});

test('an --openapi file that is not JSON, or not an OpenAPI document, is a set-up error: exit 2 naming the file, no stack trace', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-fuzz-openapi-'));
  try {
    const notJson = path.join(dir, 'not.json');
    fs.writeFileSync(notJson, 'openapi: 3.1.0\npaths: {}\n');
    const noPaths = path.join(dir, 'no-paths.json');
    fs.writeFileSync(noPaths, JSON.stringify({ openapi: '3.1.0' }));
    const run = (file: string) => new Promise<{ code: number | null; out: string }>((resolve) => {
      const c = spawn(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'fuzz', '--openapi', file, '--budget', '1s', '--seed', '1'], { env: { ...process.env, CES_REPORTS_DIR: path.join(dir, 'reports') } });
      let out = '';
      c.stdout.on('data', (d) => (out += d)); c.stderr.on('data', (d) => (out += d));
      c.on('exit', (code) => resolve({ code, out }));
    });
    const [a, b] = await Promise.all([run(notJson), run(noPaths)]);
    assert.equal(a.code, 2, a.out);
    assert.match(a.out, /--openapi .*not\.json: .*\(give an OpenAPI 3 document in JSON\)/);
    assert.equal(b.code, 2, b.out);
    assert.match(b.out, /no-paths\.json: not an OpenAPI document \(no "paths" object\)/);
    for (const x of [a, b]) assert.doesNotMatch(x.out, /\n\s+at .*\.js:\d+/, 'no stack trace');
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});
