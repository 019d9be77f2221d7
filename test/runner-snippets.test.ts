// lib/runner-snippets.cjs: Playwright's runner gets each error's code snippet from a store kept by its arguments: the same text as Playwright's, made once per place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, RUNNER_SNIPPETS } from '../lib/paths.js';

const require = createRequire(import.meta.url);
const hook = require(RUNNER_SNIPPETS) as { kept: <F extends (...a: never[]) => string>(f: F) => F; given: () => boolean };
type CodeFrame = (source: string, location: { line: number; column?: number }, options?: { colors?: unknown; linesAbove?: number; linesBelow?: number; message?: string }) => string;
const playwright = path.dirname(require.resolve('playwright/package.json', { paths: [ROOT] }));
const realColors = (require(path.join(path.dirname(require.resolve('playwright-core/package.json', { paths: [ROOT] })), 'lib', 'utilsBundle.js')) as { colors: { enabled: boolean } }).colors;
const core = require(path.join(path.dirname(require.resolve('playwright-core/package.json', { paths: [ROOT] })), 'lib', 'coreBundle.js')) as { iso: { codeFrame: CodeFrame } };

test('the kept snippet is the text Playwright makes, for every spec file, place and option; made once per place', () => {
  let made = 0;
  const counted: CodeFrame = (...a) => { made++; return core.iso.codeFrame(...a); };
  const keptFrame = hook.kept(counted);
  // Colours on (the runner's are Playwright's own, on unless the environment turns them off, as CI=true does): every token of
  // the highlighting marked, so that a text made from another place or file could not pass for this one.
  const colors = new Proxy({ enabled: true }, { get: (_t, k) => (k === 'enabled' ? true : (s: string) => `<${String(k)}>${s}</${String(k)}>`) });
  const specs = fs.readdirSync(path.join(ROOT, 'suites'), { recursive: true }).map(String).filter((f) => f.endsWith('.spec.ts')).slice(0, 8);
  assert.ok(specs.length > 0);
  let calls = 0;
  for (const f of specs) {
    const source = fs.readFileSync(path.join(ROOT, 'suites', f), 'utf8');
    for (const line of [1, 10, 40]) {
      for (const options of [{ colors }, {}, { colors: realColors }, { colors, linesAbove: 0, linesBelow: 0, message: 'here' }]) {
        const location = { line, column: 3 };
        for (let again = 0; again < 2; again++) {
          calls++;
          assert.equal(keptFrame(source, location, options), core.iso.codeFrame(source, location, options), `${f}:${line} ${JSON.stringify(Object.keys(options))}`);
        }
      }
    }
  }
  assert.equal(made, calls / 2, 'each place made once');
  // Another text of the same file (edited between two runs of a watch) is another place.
  assert.notEqual(keptFrame('const a = 1;\nconst b = 2;\n', { line: 2, column: 1 }), keptFrame('const a = 1;\nconst c = 3;\n', { line: 2, column: 1 }));
});

test('Playwright\'s runner takes codeFrame where the hook gives it a kept one (a Playwright that takes it otherwise fails here)', () => {
  const runner = path.join(playwright, 'lib', 'runner', 'index.js');
  assert.match(fs.readFileSync(runner, 'utf8'), /var \{ codeFrame \} = require\("playwright-core\/lib\/coreBundle"\)\.iso;/);
  require(runner);
  assert.equal(hook.given(), true, 'the runner was given the view with the kept codeFrame');
});
