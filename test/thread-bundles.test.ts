// Thread bundles (scripts/build.mjs THREAD_BUNDLES, lib/thread-server.ts bundleOf): built with their packages, each module's import.meta its own compiled file's, maps to the TypeScript; an embedded stack starts from them and works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { CODE, COMPILED, ROOT } from '../lib/paths.js';
import { bundleOf } from '../lib/thread-server.js';
import { compileCacheEntry } from './fixtures/bundle.js';
import { resolveTarget } from '../cli/embedded.js';
import { agentFor, http } from '../lib/http.js';

interface Build { build(o: { root: string; quiet: boolean }): Promise<unknown> }

test('the build bundles a thread module with its packages; its modules keep their own import.meta; the map names the TypeScript', async () => {
  const { build } = (await import(path.join(ROOT, 'scripts', 'build.mjs'))) as Build;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-bundle-test-'));
  try {
    fs.copyFileSync(path.join(ROOT, 'tsconfig.json'), path.join(root, 'tsconfig.json'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    fs.mkdirSync(path.join(root, 'reference-impl'));
    fs.mkdirSync(path.join(root, 'lib'));
    // A package (CommonJS, requiring Node's modules), a module of the project using import.meta, a thrown error for the map.
    fs.writeFileSync(path.join(root, 'lib', 'where.ts'), 'export const where = (): string => import.meta.url;\n');
    fs.writeFileSync(path.join(root, 'reference-impl', 'stack.ts'), [
      "import { request } from 'undici';",
      "import { where } from '../lib/where.js';",
      'export const info = () => ({ where: where(), self: import.meta.dirname, undici: typeof request });',
      "export function fails(): never { throw new Error('from the bundle'); }",
      '',
    ].join('\n'));
    await build({ root, quiet: true });
    const bundle = path.join(root, 'dist', 'bundles', 'reference-impl', 'stack.cjs');
    assert.ok(fs.existsSync(bundle), 'reference-impl/stack.ts bundled');
    assert.ok(!fs.existsSync(path.join(root, 'dist', 'bundles', 'reference-impl', 'partners.cjs')), 'no bundle for a module the project lacks');
    assert.doesNotMatch(fs.readFileSync(bundle, 'utf8'), /from ["']undici["']/, 'the package is inside the bundle');
    const run = spawnSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', `import { info, fails } from ${JSON.stringify(pathToFileURL(bundle).href)}; console.log(JSON.stringify(info())); try { fails(); } catch (e) { console.log(e.stack.split('\\n')[1]); }`], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const [first, frame] = run.stdout.trim().split('\n') as [string, string];
    const got = JSON.parse(first) as { where: string; self: string; undici: string };
    assert.equal(got.where, pathToFileURL(path.join(root, 'dist', 'lib', 'where.js')).href, "import.meta.url is the module's compiled file");
    assert.equal(got.self, path.join(root, 'dist', 'reference-impl'));
    assert.equal(got.undici, 'function');
    assert.match(frame, /reference-impl[\\/]stack\.ts:4:\d+/, 'a stack frame of the bundle names the TypeScript file and line');
    // An import() the bundle would still make at run time (of a module left out of it) fails the build: code compiled from the
    // compile cache cannot import() on Node 20. One of a bundled module becomes a require() (the package is inside).
    fs.appendFileSync(path.join(root, 'reference-impl', 'stack.ts'), "export const later = () => import('undici');\n");
    await build({ root, quiet: true });
    assert.doesNotMatch(fs.readFileSync(bundle, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, ''), /\bimport\(/);
    fs.appendFileSync(path.join(root, 'reference-impl', 'stack.ts'), "export const native = () => import('better-sqlite3');\n");
    await assert.rejects(build({ root, quiet: true }), (e: Error) => e.constructor.name === 'BuildError' && /would import\(\) better-sqlite3/.test(e.message));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a thread module is started from its bundle when there is one, else as it is', () => {
  const stack = pathToFileURL(path.join(CODE, 'reference-impl', 'stack.js'));
  const expected = path.join(CODE, 'bundles', 'reference-impl', 'stack.cjs');
  assert.equal(bundleOf(stack).href, fs.existsSync(expected) ? pathToFileURL(expected).href : stack.href);
  const none = pathToFileURL(path.join(CODE, 'lib', 'paths.js'));
  assert.equal(bundleOf(none).href, none.href);
  const outside = new URL('file:///elsewhere/reference-impl/stack.js');
  assert.equal(bundleOf(outside).href, outside.href);
});

test('an embedded stack started from the bundles serves its API, runs its deviations and has its partners; closed, its threads leave their compiled code to the next', async () => {
  // A compile cache of its own (the threads read CES_COMPILE_CACHE as they start): what this stack's threads write is seen apart.
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-thread-cache-'));
  const setting = process.env.CES_COMPILE_CACHE;
  if (setting !== 'off') process.env.CES_COMPILE_CACHE = cacheDir;
  const resolved = await resolveTarget({ stacks: 1, deviate: ['rest-default-page-size-10'] }).finally(() => {
    if (setting === undefined) delete process.env.CES_COMPILE_CACHE; else process.env.CES_COMPILE_CACHE = setting;
  });
  try {
    const t = resolved.target;
    const agent = agentFor(t.ca_file);
    const page = await http({ url: `${t.rest_base_url}/operator`, headers: { 'x-api-key': t.api_key } }, agent);
    assert.equal(page.status, 200);
    assert.equal(page.json.pagination.limit, 10, 'the deviation is on');
    const devs = await http({ url: `${t.sim_url}/deviations`, headers: { authorization: `Bearer ${t.sim_token}` } }, agent);
    assert.deepEqual(devs.json.ids, ['rest-default-page-size-10']);
    // The partners' thread answered with its URLs, and the fake connector answers (an unsigned call is refused).
    assert.ok(t.connector_url && t.sink_url);
    const unsigned = await http({ method: 'POST', url: `${t.connector_url}/external-bots`, headers: { 'content-type': 'application/json' }, body: '{}' }, agent);
    assert.ok(unsigned.status >= 400 && unsigned.status < 500, `fake connector answered ${unsigned.status}`);
  } finally {
    await resolved.close();
  }
  // Closed (within a second or two, before the write a few seconds after loading), each thread wrote what it compiled of its
  // bundle to the compile cache (keyed by Node's version and the text), where the next stack's threads read it instead of
  // compiling 6 MB again.
  try {
    if (!COMPILED || setting === 'off') return;
    for (const name of ['stack', 'partners']) {
      const bundle = path.join(CODE, 'bundles', 'reference-impl', `${name}.cjs`);
      if (!fs.existsSync(bundle)) continue;
      assert.ok(fs.existsSync(compileCacheEntry(cacheDir, bundle)), `${name}.cjs's compiled code is in the compile cache`);
    }
  } finally { fs.rmSync(cacheDir, { recursive: true, force: true }); }
});
