// The suites' expect (suites/verdicts.ts) decides a plain matcher's pass itself and leaves everything else to Playwright's: it passes and fails exactly where Playwright's does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { expect as playwrightExpect } from '@playwright/test';
import { expect, PLAIN_PASS } from '../suites/verdicts.js';
import { UNSEEN } from '../suites/lean-stacks.js';

/** Whether a matcher call throws (Playwright's failure), and with what message. */
function outcome(run: () => unknown): string {
  try { run(); return 'pass'; } catch (e) { return `fail: ${(e as Error).message}`; }
}

/** Values where a hand-written condition could go wrong: NaN, -0, types that coerce, shared and equal-but-distinct objects. */
const shared = { a: 1 };
const TRICKY: unknown[] = [0, -0, NaN, 1, -1, 2.5, Infinity, 10n, '', '0', '1', 'abc', 'a.c', '[x]', true, false, null, undefined, [], [1], [NaN], [shared], shared, { a: 1 }, /a.c/, /a/g, new Set([1])];

test('every plain matcher passes and fails exactly where Playwright\'s does, with Playwright\'s message (tricky values, then 100 random ones)', () => {
  const names = Object.keys(PLAIN_PASS);
  const argsOf = (name: string, x: unknown): unknown[] => (/^to(BeTruthy|BeFalsy|BeDefined|BeUndefined|BeNull)$/.test(name) ? [] : [x]);
  // Each matcher with its own count of arguments against every pair of values, and with one too many or too few on a few.
  const calls = (name: string, a: unknown, x: unknown): unknown[][] => {
    const args = argsOf(name, x);
    return TRICKY.indexOf(x) < 3 ? [args, args.length ? [] : [x], [...args, x]] : [args];
  };
  let decided = 0;
  for (const name of names) {
    for (const a of TRICKY) {
      for (const x of TRICKY) {
        for (const args of calls(name, a, x)) {
          const ours = outcome(() => (expect(a) as any)[name](...args));
          const theirs = outcome(() => (playwrightExpect(a) as any)[name](...args));
          assert.equal(ours, theirs, `${name}(${args.map(String).join(', ')}) on ${String(a)}`);
          if (PLAIN_PASS[name]!(a, args)) decided++;
        }
      }
    }
  }
  assert.ok(decided > 200, `the plain conditions decided ${decided} passes`);
  fc.assert(fc.property(fc.constantFrom(...names), fc.anything(), fc.anything(), (name, a, x) => {
    const args = argsOf(name, x);
    assert.equal(outcome(() => (expect(a) as any)[name](...args)), outcome(() => (playwrightExpect(a) as any)[name](...args)));
  }), { numRuns: 100, seed: 20261128 });
});

test('the rest of expect is Playwright\'s: .not, .resolves, other matchers, asymmetric expectations', async () => {
  assert.equal(outcome(() => expect(1).not.toBe(1)), outcome(() => playwrightExpect(1).not.toBe(1)));
  assert.equal(outcome(() => expect({ a: 1, b: [2] }).toEqual({ a: 1, b: [2] })), 'pass');
  assert.match(outcome(() => expect({ a: 1 }).toEqual({ a: 2 })), /^fail: expect\(received\)\.toEqual\(expected\)/);
  assert.equal(outcome(() => expect(3).toEqual(playwrightExpect.any(Number))), 'pass');
  assert.equal(outcome(() => expect({ a: 1, b: 2 }).toMatchObject({ a: 1 })), 'pass');
  await expect(Promise.resolve(2)).resolves.toBe(2);
  await assert.rejects(expect(Promise.resolve(2)).resolves.toBe(3) as Promise<void>);
});

test('the matcher wrapper is the function stacks leave out (suites/lean-stacks.ts UNSEEN): Playwright places a failure at the check\'s line', () => {
  assert.equal(expect(1).toBe.name, UNSEEN);
  assert.equal(expect('x').toContain.name, UNSEEN);
});
