// The lean stack formatter of Playwright's workers (suites/lean-stacks.ts) writes the same text as source-map-support, only cheaper.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { faker } from '@faker-js/faker';
import { leanStacks } from '../suites/lean-stacks.js';
import { ROOT } from '../lib/paths.js';

const require = createRequire(import.meta.url);
/** source-map-support as Playwright installs it in its workers (playwright/lib/common installSourceMapSupport). */
const sourceMapSupport = (require('playwright-core/lib/utilsBundle') as { sourceMapSupport: { install(o: object): void } }).sourceMapSupport;

/** A stack through this file, a package (faker calls back) and Node: frames with a source map and frames without. */
const probe = (message: string) => faker.helpers.multiple(() => [1].map(() => new Error(message).stack!)[0]!, { count: 1 })[0]!;

test('frames of this package are mapped to the TypeScript, the others written as V8 writes them: the same text as source-map-support', () => {
  const before = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  try {
    Error.stackTraceLimit = 50;
    sourceMapSupport.install({ environment: 'node', handleUncaughtExceptions: false });
    const mapped = Error.prepareStackTrace;
    // Both texts from one call site (a loop), so every frame, the probe's own lines included, is the same.
    const texts: string[][] = [];
    for (const lean of [false, true]) {
      if (lean) leanStacks(ROOT);
      texts.push([probe('one'), probe(''), probe('two\nlines')]);
    }
    const [expected, got] = texts as [string[], string[]];
    assert.notEqual(Error.prepareStackTrace, mapped, 'installed over source-map-support');
    const lean = Error.prepareStackTrace;
    leanStacks(ROOT);
    assert.equal(Error.prepareStackTrace, lean, 'installed once: a second call keeps it');
    assert.deepEqual(got, expected);
    const first = got[0]!;
    assert.match(first, /^Error: one\n/);
    assert.match(first, /test[\\/]lean-stacks\.test\.ts:\d+:\d+/, 'this file mapped to its TypeScript source');
    assert.match(first, /node_modules[\\/]@faker-js[\\/]faker/, 'the package frame kept');
    assert.match(got[1]!, /^Error: \n/, "an empty message written as source-map-support writes it ('Error: ')");
  } finally {
    Error.prepareStackTrace = before;
    Error.stackTraceLimit = limit;
  }
});

test('without a formatter in place (outside Playwright) nothing is installed', () => {
  const before = Error.prepareStackTrace;
  try {
    delete (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
    leanStacks(ROOT);
    assert.equal(Error.prepareStackTrace, undefined);
  } finally {
    Error.prepareStackTrace = before;
  }
});
