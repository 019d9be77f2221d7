// lib/runner-lazy-babel.cjs: Playwright's runner starts without loading babel, which it gets, whole and working, the first time it reads it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { ROOT, RUNNER_LAZY_BABEL } from '../lib/paths.js';

const require = createRequire(import.meta.url);
const playwright = path.dirname(require.resolve('playwright/package.json', { paths: [ROOT] }));
const babelFile = path.join(playwright, 'lib', 'transform', 'babelBundle.js');
const runnerFile = path.join(playwright, 'lib', 'runner', 'index.js');

test("the names read from the bundle's end are its exports (a Playwright that writes it otherwise fails here)", () => {
  const { exportNames } = require(RUNNER_LAZY_BABEL) as { exportNames(file: string): string[] | undefined };
  const names = exportNames(babelFile);
  assert.ok(names, 'the annotation is at the end of the bundle');
  assert.deepEqual([...names].sort(), Object.keys(require(babelFile) as object).sort());
  assert.equal(exportNames(RUNNER_LAZY_BABEL), undefined, 'a file without the annotation: no names (the runner gets the bundle itself)');
});

test('the runner loads without babel; babel loads when the runner first reads it, and works', () => {
  // A process of its own: this one may have loaded babel already, and the hook is for a runner's process.
  const script = `
    const hook = require(${JSON.stringify(RUNNER_LAZY_BABEL)});
    const loaded = () => Object.keys(require.cache).includes(${JSON.stringify(babelFile)});
    const runner = require(${JSON.stringify(runnerFile)});
    const before = loaded();
    const babel = require(${JSON.stringify(path.join(playwright, 'lib', 'transform', 'babelBundle.js'))});
    const ast = babel.babelParse('const a = 1;', 'x.js', true);
    console.log(JSON.stringify({ given: hook.given(), runner: typeof runner, before, after: loaded(), parsed: ast.program.body[0].type }));`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const got = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  assert.deepEqual(got, { given: true, runner: 'object', before: false, after: true, parsed: 'VariableDeclaration' });
});

test("the runner's view of babel: its exports read through, `types` a view that reads through too", () => {
  const script = `
    require(${JSON.stringify(RUNNER_LAZY_BABEL)});
    const Module = require('node:module');
    const parent = new Module(${JSON.stringify(runnerFile)});
    parent.filename = ${JSON.stringify(runnerFile)};
    parent.paths = Module._nodeModulePaths(${JSON.stringify(path.dirname(runnerFile))});
    const view = Module._load('../transform/babelBundle', parent, false);
    const t = view.types;
    const loadedAfterTypes = Object.keys(require.cache).includes(${JSON.stringify(babelFile)});
    const id = t.identifier('x');
    console.log(JSON.stringify({ loadedAfterTypes, isId: t.isIdentifier(id), same: view.traverse === require(${JSON.stringify(babelFile)}).traverse, keys: Object.keys(view).sort() }));`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const got = JSON.parse(r.stdout.trim().split('\n').pop()!) as { loadedAfterTypes: boolean; isId: boolean; same: boolean; keys: string[] };
  assert.equal(got.loadedAfterTypes, false, 'reading `types` (the runner does, as it loads) does not load babel');
  assert.equal(got.isId, true);
  assert.equal(got.same, true);
  assert.deepEqual(got.keys, Object.keys(require(babelFile) as object).sort());
});
