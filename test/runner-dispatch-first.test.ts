// lib/runner-dispatch-first.cjs: Playwright's runner dispatches the files its configuration's metadata names first, in that order, the others in name order after them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { ROOT, RUNNER_DISPATCH_FIRST, playwrightCli } from '../lib/paths.js';

const require = createRequire(import.meta.url);
const hook = require(RUNNER_DISPATCH_FIRST) as { KEY: string; dispatchFirst(groups: Array<{ requireFile: string }>, config: unknown): void };

test('the named files first, in the order named; the others keep their order; nothing named, nothing moves', () => {
  const groups = ['a', 'b', 'c', 'd', 'b'].map((f, i) => ({ requireFile: path.join('/t', `${f}.spec.js`), i }));
  hook.dispatchFirst(groups, { rootDir: '/t', metadata: { [hook.KEY]: ['d.spec.js', 'b.spec.js'] } });
  assert.deepEqual(groups.map((g) => g.i), [3, 1, 4, 0, 2]);
  for (const config of [{ rootDir: '/t', metadata: {} }, { rootDir: '/t', metadata: { [hook.KEY]: 'd.spec.js' } }, undefined]) {
    const same = ['a', 'b'].map((f) => ({ requireFile: path.join('/t', `${f}.spec.js`) }));
    const before = [...same];
    hook.dispatchFirst(same, config);
    assert.deepEqual(same, before);
  }
});

test("a Playwright run with the hook dispatches the named file first (one worker, one project); this Playwright's runner takes the line", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-dispatch-first-'));
  try {
    const log = path.join(dir, 'order.log');
    fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"commonjs"}');
    for (const name of ['a', 'b', 'c']) {
      fs.writeFileSync(path.join(dir, `${name}.spec.js`), `const { test } = require('@playwright/test');\nconst fs = require('node:fs');\n` +
        `for (const n of [1, 2]) test('${name}' + n, () => { fs.appendFileSync(${JSON.stringify(log)}, '${name}' + n + '\\n'); });\n`);
    }
    fs.writeFileSync(path.join(dir, 'playwright.config.js'), `module.exports = { testDir: __dirname, workers: 1, fullyParallel: true, reporter: 'dot', ` +
      `metadata: { ${hook.KEY}: ['c.spec.js'] }, projects: [{ name: 'one' }] };\n`);
    // The test files require @playwright/test from the temporary folder: resolved from the checkout's node_modules.
    const env = { ...process.env, NODE_PATH: path.join(ROOT, 'node_modules') };
    const r = spawnSync(process.execPath, ['--require', RUNNER_DISPATCH_FIRST, playwrightCli(), 'test', '-c', path.join(dir, 'playwright.config.js')], { cwd: dir, encoding: 'utf8', env });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.deepEqual(fs.readFileSync(log, 'utf8').trim().split('\n'), ['c1', 'c2', 'a1', 'a2', 'b1', 'b2'], 'c first, then name order');
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});
