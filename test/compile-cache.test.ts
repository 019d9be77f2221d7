// The compile cache of CommonJS packages (lib/compile-cache.cjs): a second process reuses what the first compiled, the module works the same, a module with import() and the `off` setting are left to Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, CODE } from '../lib/paths.js';

/** The hook as the processes of a run load it (bin/ces.js puts it in NODE_OPTIONS). */
const HOOK = path.join(CODE, 'lib', 'compile-cache.cjs');

/**
 * A folder with two CommonJS packages over the hook's size floor (32 KiB): `plain` answers 42; `dynamic` loads an ES module with
 * import() when called, which Node 20 cannot do from code compiled with cached data.
 */
function packages(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-compile-cache-test-'));
  const filler = `/* ${'x'.repeat(40 * 1024)} */\n`;
  const pkg = (name: string, main: string) => {
    fs.mkdirSync(path.join(root, 'node_modules', name), { recursive: true });
    fs.writeFileSync(path.join(root, 'node_modules', name, 'package.json'), JSON.stringify({ name, version: '1.0.0', main: 'index.js' }));
    fs.writeFileSync(path.join(root, 'node_modules', name, 'index.js'), filler + main);
  };
  pkg('plain', "'use strict';\nexports.answer = () => 42;\nexports.where = __filename;\n");
  pkg('dynamic', "'use strict';\nexports.load = () => import('./esm.mjs').then((m) => m.value);\n");
  fs.writeFileSync(path.join(root, 'node_modules', 'dynamic', 'esm.mjs'), 'export const value = 7;\n');
  return root;
}

/** Runs `script` in a Node process with the hook preloaded and CES_COMPILE_CACHE set; its stdout, trimmed. */
function run(root: string, cacheDir: string, script: string): string {
  const r = spawnSync(process.execPath, ['-e', script], {
    cwd: root, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: `--require ${JSON.stringify(HOOK)}`, CES_COMPILE_CACHE: cacheDir },
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

test('a second process reuses the compiled code the first wrote, and the module behaves the same', () => {
  const root = packages();
  const cache = path.join(root, 'cache');
  const use = "const p = require('plain'); console.log(p.answer(), require('path').basename(require('path').dirname(p.where)));";
  assert.equal(run(root, cache, use), '42 plain');
  const entries = fs.readdirSync(cache);
  assert.equal(entries.length, 1, `one entry for the one eligible module: ${entries.join(', ')}`);
  const written = fs.statSync(path.join(cache, entries[0]!)).mtimeMs;
  assert.equal(run(root, cache, use), '42 plain');
  assert.deepEqual(fs.readdirSync(cache), entries, 'nothing new written');
  assert.equal(fs.statSync(path.join(cache, entries[0]!)).mtimeMs, written, 'the entry was accepted, not rewritten');
});

test('the same package installed elsewhere reuses the entry (keyed by its text), and knows where it is', () => {
  const first = packages();
  const second = packages();
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-compile-cache-test-'));
  try {
    const use = "const p = require('plain'); console.log(p.answer(), p.where);";
    assert.equal(run(first, cache, use), `42 ${path.join(first, 'node_modules', 'plain', 'index.js')}`);
    const entries = fs.readdirSync(cache);
    const written = fs.statSync(path.join(cache, entries[0]!)).mtimeMs;
    assert.equal(run(second, cache, use), `42 ${path.join(second, 'node_modules', 'plain', 'index.js')}`);
    assert.deepEqual(fs.readdirSync(cache), entries, 'nothing new written');
    assert.equal(fs.statSync(path.join(cache, entries[0]!)).mtimeMs, written, 'the entry was accepted by V8, not rewritten');
  } finally {
    for (const d of [first, second, cache]) fs.rmSync(d, { recursive: true, force: true });
  }
});

test('a module whose text has import() is compiled by Node itself, and its import() works', () => {
  const root = packages();
  const cache = path.join(root, 'cache');
  for (let i = 0; i < 2; i++) assert.equal(run(root, cache, "require('dynamic').load().then((v) => console.log(v));"), '7');
  assert.deepEqual(fs.existsSync(cache) ? fs.readdirSync(cache) : [], []);
});

test('CES_COMPILE_CACHE=off leaves every module to Node and writes nothing', () => {
  const root = packages();
  assert.equal(run(root, 'off', "console.log(require('plain').answer());"), '42');
  assert.equal(fs.existsSync(path.join(root, 'off')), false);
});

test('the package ships the hook, and bin/ces.js loads it in every process of a run', () => {
  assert.ok(fs.existsSync(HOOK), `${HOOK} exists (scripts/build.mjs copies lib/compile-cache.cjs)`);
  const bin = fs.readFileSync(path.join(ROOT, 'bin', 'ces.js'), 'utf8');
  assert.match(bin, /compile-cache\.cjs/);
  assert.match(bin, /NODE_OPTIONS/);
});
