// The seams deviations act through: JSON edits, policies built from the registry and switched at run time, and the matrix comparison.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyEdits, editError } from '../lib/json-edit.js';
import { Deviations, UnknownDeviationError } from '../reference-impl/deviations.js';
import { buildPolicies } from '../reference-impl/policies.js';
import { matrixLosses } from '../scripts/compare-selftest-matrix.js';
import { LIMITS } from '../lib/limits.js';
import { ROOT } from '../lib/paths.js';
import path from 'node:path';

test('JSON edits: drop, rename, set, map, convert and replace at a path, `*` over lists', () => {
  const doc = { meta: { message: "Unknown 'tag' with 'id' 7." }, data: [{ id: 1, amount: 2.5, _link: '/a', status: 'progress', website_id: [3, 4] }, { id: 2, amount: 1, _link: '/b', status: 'done', website_id: [] }] };
  const out = applyEdits(structuredClone(doc), [
    { at: 'data.*._link', drop: true },
    { at: 'data.*.amount', as: 'string' },
    { at: 'data.*.status', map: ['progress', 'in_progress'] },
    { at: 'data.*.website_id', as: 'first' },
    { at: 'data.*.id', rename: 'ident' },
    { at: 'meta.message', replace: ["^Unknown '([^']+)' with 'id' (.+)\\.$", '$1 $2 not found'] },
  ]);
  assert.deepEqual(out, { meta: { message: 'tag 7 not found' }, data: [{ ident: 1, amount: '2.5', status: 'in_progress', website_id: 3 }, { ident: 2, amount: '1', status: 'done', website_id: undefined }] });
  assert.deepEqual(applyEdits({ data: { id: 1 } }, [{ at: 'data', set: null }]), { data: null });
  assert.deepEqual(applyEdits({ a: 1 }, [{ at: 'b', set: 2 }]), { a: 1 }, 'set never adds a field that is not there');
  assert.equal(editError({ at: 'x', drop: true, set: 1 }), 'exactly one of drop, rename, set, map, as, replace (got drop, set)');
  assert.match(String(editError({ at: 'x', as: 'sideways' })), /"as" is one of/);
});

test('a policy is the defaults until a deviation sets fields; switching deviations at run time rebuilds it', () => {
  const dev = new Deviations();
  assert.equal(dev.policy.rest.pageMax, LIMITS.restPageMax);
  dev.set(['rest-limit-not-clamped']);
  assert.ok(dev.policy.rest.pageMax > LIMITS.restPageMax);
  assert.equal(dev.policy.auth.tokenLifetimeMs, LIMITS.tokenLifetimeMs, 'other areas keep their defaults');
  dev.set(['bots-transfer-sync-rule']);
  assert.equal(dev.policy.rest.pageMax, LIMITS.restPageMax);
  assert.equal(dev.policy.bots.transferAllowed(0), true, 'the wrong function is the variant the deviation names');
  assert.equal(buildPolicies([]).bots.transferAllowed(0), false);
  dev.clear();
  assert.deepEqual(dev.list(), []);
  assert.throws(() => dev.set(['rest-full-ignored', 'no-such-deviation']), UnknownDeviationError);
  assert.deepEqual(dev.list(), [], 'a refused set changes nothing');
});

test('edits are scoped by `where`: a resource, an event kind, a list of them', () => {
  const dev = new Deviations(['rest-transaction-amount-string']);
  assert.equal(dev.edits('rest.response', 'transaction').length, 2);
  assert.equal(dev.edits('rest.response', 'operator').length, 0);
  dev.set(['webhooks-v2-channel-lowercase']);
  assert.equal(dev.edits('webhooks.payload', 'v2.conversation.closed').length, 1);
  assert.equal(dev.edits('webhooks.payload', 'user.created').length, 0);
  dev.set(['webhooks-wrong-type']);
  assert.equal(dev.edits('webhooks.payload', 'user.created').length, 1, 'no where: every kind');
});

test('the matrix comparison names every deviation that lost a check', () => {
  const before = { a: ['c1', 'c2'], b: ['c3'], c: ['c4'] };
  assert.deepEqual(matrixLosses(before, { a: ['c1', 'c2', 'c5'], b: ['c3'], c: ['c4'] }), []);
  assert.deepEqual(matrixLosses(before, { a: ['c1'], b: [], c: ['c4'] }), ['a: no longer caught by c2', 'b: caught by no check any more']);
  assert.deepEqual(matrixLosses(before, { a: ['c1', 'c2'] }), ['b: not in the new matrix', 'c: not in the new matrix']);
  assert.deepEqual(matrixLosses(before, { a: ['c1', 'c2'] }, true), []);
});

test('the committed self-test matrices: after the redesign every deviation is caught by at least the checks that caught it before', async () => {
  const fs = await import('node:fs');
  const read = (f: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'docs', f), 'utf8')) as Record<string, string[]>;
  const before = read('selftest-matrix.before.json');
  const after = read('selftest-matrix.after.json');
  assert.equal(Object.keys(before).length, 185);
  assert.deepEqual(matrixLosses(before, after), []);
});
