// Unit tests of the shared library: signature scheme, clock timers, secret masking, target validation, TLS material.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { CODE, COMPILED, ROOT } from '../lib/paths.js';
import { sign, verify } from '../lib/signature.js';
import { Clock } from '../lib/clock.js';
import { addSecret, mask } from '../lib/mask.js';
import { loadTarget, TargetError } from '../lib/target.js';
import { generateTls } from '../lib/tls.js';
import { schemaProblems } from '../lib/schemas.js';

test('signature: sha256=<64 lowercase hex> HMAC of the raw bytes, verified; each broken part is refused', () => {
  const body = '{"eventId":"1"}';
  const s = sign('secret', body);
  assert.match(s, /^sha256=[0-9a-f]{64}$/);
  assert.deepEqual(verify('secret', body, s), { ok: true });
  assert.equal(verify('secret', body + ' ', s).ok, false, 'other bytes');
  assert.equal(verify('other', body, s).ok, false, 'other secret');
  assert.equal(verify('secret', body, s.toUpperCase()).ok, false, 'uppercase');
  assert.equal(verify('secret', body, s.slice(7)).ok, false, 'no prefix');
  assert.equal(verify('secret', body, undefined).ok, false, 'missing');
});

test('clock: timers fire when the clock is advanced past them, in due order, and not before', () => {
  const clock = new Clock();
  const fired: string[] = [];
  clock.after(60_000, () => fired.push('b'));
  clock.after(30_000, () => fired.push('a'));
  const cancelled = clock.after(10_000, () => fired.push('x'));
  cancelled.cancel();
  clock.advance(29_000);
  assert.deepEqual(fired, []);
  clock.advance(31_000);
  assert.deepEqual(fired, ['a', 'b']);
  assert.throws(() => clock.advance(-1));
  clock.stop();
});

test('clock: a real-time timer fires without advancing, not before it is due', async () => {
  const clock = new Clock();
  const start = clock.now();
  // A timer that never fires must fail this test, not hang the run: the deadline rejects.
  let deadline: NodeJS.Timeout | undefined;
  const firedAt = await Promise.race([
    new Promise<number>((resolve) => clock.after(20, () => resolve(clock.now()))),
    new Promise<never>((_r, reject) => { deadline = setTimeout(() => reject(new Error('the real-time timer did not fire within 2 s')), 2_000); }),
  ]).finally(() => clearTimeout(deadline));
  clock.stop();
  assert.ok(firedAt - start >= 20, `fired ${firedAt - start} ms after it was set: a 20 ms timer fires only once the clock reaches its due time`);
});

test('mask: known secrets and their encoded forms never survive', () => {
  addSecret('key-1234567890');
  addSecret('p@ss word');
  const basic = Buffer.from('key-1234567890:x').toString('base64');
  const out = mask(`X-API-Key: key-1234567890 ?key=key-1234567890 pw=p%40ss%20word Basic ${basic} Authorization: Bearer abcdefghijklmnop`);
  assert.ok(!out.includes('key-1234567890'));
  assert.ok(!out.includes('p%40ss%20word'));
  assert.ok(!out.includes('abcdefghijklmnop'));
  assert.ok(!out.includes(basic.replace(/=+$/, '')));
});

test('target: a missing field, a bad URL or an unknown capability is a clear error', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-t-'));
  const f = path.join(dir, 't.json');
  const good = { base_url: 'https://x', rest_base_url: 'https://x/api/2', graphql_url: 'https://x/graphql', api_key: 'k', user: { username: 'u', password: 'p' }, capabilities: ['sim'], sim_url: 'https://x/sim' };
  fs.writeFileSync(f, JSON.stringify(good));
  assert.equal(loadTarget(f).api_keys[0]!.key, 'k');
  fs.writeFileSync(f, JSON.stringify({ ...good, graphql_url: undefined }));
  assert.throws(() => loadTarget(f), (e: Error) => e instanceof TargetError && /graphql_url/.test(e.message));
  fs.writeFileSync(f, JSON.stringify({ ...good, base_url: 'ftp://x' }));
  assert.throws(() => loadTarget(f), /base_url/);
  fs.writeFileSync(f, JSON.stringify({ ...good, capabilities: ['telepathy'] }));
  assert.throws(() => loadTarget(f), /"capabilities\[0\]" is "telepathy" \(accepted: one of "sim", "platform", "clock"\)/);
  fs.writeFileSync(f, '{');
  assert.throws(() => loadTarget(f), /cannot read target file/);
});

test('tls: the server certificate is signed by the generated CA and names 127.0.0.1 and localhost', () => {
  const tls = generateTls();
  const ca = new X509Certificate(tls.ca.cert);
  const leaf = new X509Certificate(tls.server.cert.split(/(?<=-----END CERTIFICATE-----)/)[0]!);
  assert.ok(leaf.verify(ca.publicKey));
  assert.ok(leaf.checkIP('127.0.0.1'));
  assert.ok(leaf.checkHost('localhost'));
  assert.ok(ca.ca);
});

test('schemas: every schema of fixtures/schemas/ is a valid JSON Schema 2020-12 (getAjv skips this check for speed)', () => {
  assert.deepEqual(schemaProblems(), []);
});

test("lib/undici.ts hands out the build's one-file undici (dist/lib/undici-bundle.cjs): Agent and request, whose answers and refusals are the package's", () => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `
    import http from 'node:http';
    import { createRequire } from 'node:module';
    const mine = await import(${JSON.stringify(path.join(CODE, 'lib', 'undici.js'))});
    const require = createRequire(${JSON.stringify(path.join(ROOT, 'package.json'))});
    const bundle = ${JSON.stringify(path.join(CODE, 'lib', 'undici-bundle.cjs'))};
    const loaded = Object.keys(require.cache).filter((f) => f.includes('undici'));
    const pkg = require('undici');
    // What the server saw and answered, or the refusal, for the same call through each.
    const server = http.createServer((req, res) => { let b = ''; req.on('data', (d) => (b += d)); req.on('end', () => res.end(JSON.stringify({ method: req.method, url: req.url, body: b }))); });
    await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
    const base = 'http://127.0.0.1:' + server.address().port;
    const calls = [
      [base + '/a?x=1'], [new URL(base + '/b')], [base, { path: 'c?y=2' }], [base + '/ignored', { path: '/d' }],
      [base + '/e', { method: 'POST', body: 'hi' }], [base + '/f', { body: 'put by default' }], [{ origin: base, path: '/g' }],
      [base + '/h', { dispatcher: new mine.Agent() }], [''], [base, 'opts'], [base, { path: 5 }], [base, { agent: {} }], ['not a url'],
    ];
    const outcome = async (request, args) => { try { const r = await request(...args); return { status: r.statusCode, body: await r.body.text() }; } catch (e) { return { error: e.name + ' ' + e.code + ': ' + e.message }; } };
    const compared = [];
    for (const args of calls) compared.push([await outcome(mine.request, args), await outcome(pkg.request, args)]);
    server.close();
    console.log(JSON.stringify({ loaded, same: mine.Agent === require(bundle).Agent && mine.request === require(bundle).request, names: Object.keys(require(bundle)).sort(), agent: typeof new mine.Agent().request, compared }));
    process.exit(0);`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { loaded: string[]; same: boolean; names: string[]; agent: string; compared: Array<[unknown, unknown]> };
  for (const [mine, pkg] of out.compared) assert.deepEqual(mine, pkg);
  assert.ok(out.compared.some(([m]) => (m as { status?: number }).status === 200) && out.compared.some(([m]) => (m as { error?: string }).error), 'answers and refusals both compared');
  if (!COMPILED) return;
  assert.deepEqual(out.loaded, [path.join(CODE, 'lib', 'undici-bundle.cjs')], 'one file, not the package\'s modules');
  assert.ok(out.same, 'lib/undici.ts hands out the bundle\'s');
  assert.deepEqual(out.names, ['Agent', 'request']);
  assert.equal(out.agent, 'function', 'a dispatcher has the API\'s methods, as with the package');
  // Marked as the project's bundles are (scripts/build.mjs commonJsBundle): the compile cache keeps its compiled code.
  const { BUNDLE_MARK } = createRequire(import.meta.url)(path.join(CODE, 'lib', 'bundle-mark.cjs')) as { BUNDLE_MARK: string };
  assert.ok(fs.readFileSync(path.join(CODE, 'lib', 'undici-bundle.cjs'), 'utf8').startsWith(BUNDLE_MARK), 'the bundle is marked for the compile cache');
});

test("scripts/cpu-report.mjs reports the test process's CPU and leaves its children without it (preloading it cost each about 30 ms)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-cpu-report-'));
  try {
    // NODE_OPTIONS as scripts/unit-tests.mjs sets it; the process prints what a process it starts would inherit.
    const preload = `--import=${pathToFileURL(path.join(ROOT, 'scripts', 'cpu-report.mjs')).href}`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', 'console.log(process.env.NODE_OPTIONS)'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: `--enable-source-maps ${preload}`, CES_CPU_REPORT_DIR: dir } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), '--enable-source-maps');
    const reports = fs.readdirSync(dir);
    assert.equal(reports.length, 1, 'the process reported its CPU');
    assert.equal(typeof JSON.parse(fs.readFileSync(path.join(dir, reports[0]!), 'utf8')).self, 'number');
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});
