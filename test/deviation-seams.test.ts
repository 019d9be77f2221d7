// The seams deviations act through: JSON edits, policies built from the registry and switched at run time, and the matrix comparison.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyEdits, editError } from '../lib/json-edit.js';
import { Deviations, UnknownDeviationError } from '../reference-impl/deviations.js';
import { buildPolicies } from '../reference-impl/policies.js';
import { matrixLosses } from '../scripts/compare-selftest-matrix.js';
import { LIMITS } from '../lib/limits.js';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';

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
  assert.equal(editError({ at: 'x', drop: true, set: 1 }), 'exactly one of drop, rename, set, add, map, copy, as, replace, dropKeys (got drop, set)');
  assert.match(String(editError({ at: 'x', as: 'sideways' })), /"as" is one of/);
  assert.match(String(editError({ at: 'x', replace: ['(', ''] })), /not a regular expression/);
  assert.match(String(editError({ at: 'x', replace: ['a', 'b', 'i'] })), /"replace" is/);
  assert.match(String(editError({ at: 'x', drop: true, where: 'y' })), /unknown field/);
});

test('JSON edits: add creates a field, copy takes another path\'s value, dropKeys removes keys by pattern, $ edits the root, replace g every match', () => {
  assert.deepEqual(applyEdits({ a: {} as Record<string, unknown> }, [{ at: 'a.b', add: 1 }, { at: 'c.d', add: 2 }]), { a: { b: 1 } }, 'add needs the parent');
  assert.deepEqual(applyEdits({ data: [1, 2, 3], pagination: { count: 9 } }, [{ at: 'pagination.count', copy: 'data' }, { at: 'pagination.count', as: 'length' }]), { data: [1, 2, 3], pagination: { count: 3 } });
  assert.deepEqual(applyEdits({ body: { 'x[]': 1, 'x[0]': 2, y: 3 } }, [{ at: 'body', dropKeys: '\\[\\d*\\]$' }]), { body: { y: 3 } });
  assert.equal(applyEdits('a-b-c', [{ at: '$', replace: ['-', '+', 'g'] }]), 'a+b+c');
  assert.equal(applyEdits('a-b-c', [{ at: '$', replace: ['-', '+'] }]), 'a+b-c');
  assert.equal(applyEdits({ d: { x: 1 } } as unknown, [{ at: '$', set: null }]), null, 'a request edited to nothing');
  assert.deepEqual(applyEdits({ rows: [[1, 'a', 'b'], [2, 'b', 'c', 9]] }, [{ at: 'rows.*.3', add: 0 }]), { rows: [[1, 'a', 'b', 0], [2, 'b', 'c', 0]] });
  assert.deepEqual(applyEdits({ list: [1, 2, 3] }, [{ at: 'list', as: 'drop-last' }]), { list: [1, 2] });
});

test('a seam never changes what it was given: edited() copies, and answers the same object when no edit is active', () => {
  const dev = new Deviations(['rest-full-ignored']);
  const asked = { query: { full: '1', limit: '5' } };
  const sent = dev.edited('rest.request', asked, 'operator');
  assert.deepEqual(sent, { query: { limit: '5' } });
  assert.deepEqual(asked, { query: { full: '1', limit: '5' } }, 'the original is untouched');
  dev.clear();
  assert.equal(dev.edited('rest.request', asked, 'operator'), asked);
});

test('a policy is the defaults until a deviation sets fields; switching deviations at run time rebuilds it', () => {
  const dev = new Deviations();
  assert.equal(dev.policy.rest.pageMax, LIMITS.restPageMax);
  dev.set(['rest-limit-not-clamped']);
  assert.ok(dev.policy.rest.pageMax > LIMITS.restPageMax);
  assert.equal(dev.policy.auth.tokenLifetimeMs, LIMITS.tokenLifetimeMs, 'other areas keep their defaults');
  dev.set(['bots-transfer-sync-rule']);
  assert.equal(dev.policy.rest.pageMax, LIMITS.restPageMax);
  assert.equal(dev.policy.bots.transferMinQueueSlots, 0, 'the value the deviation sets');
  assert.equal(buildPolicies([]).bots.transferMinQueueSlots, 1);
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

test('issue 26: after the restructure every deviation is caught by at least the checks that caught it before (docs/selftest-matrix.before-26.json, after-26.json)', async () => {
  const fs = await import('node:fs');
  const read = (f: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'docs', f), 'utf8')) as Record<string, string[] | { checks: string[]; clauses: string[] }>;
  const before = read('selftest-matrix.before-26.json');
  const after = read('selftest-matrix.after-26.json');
  assert.equal(Object.keys(before).length, 188);
  assert.deepEqual(matrixLosses(before, after), []);
  // The deviations of the behaviour issue 26 added are caught by the clauses they name.
  for (const id of ['bots-scenario-bound-twice', 'rest-live-slots-kept', 'rest-live-never-busy', 'rest-callmeeting-skips-states', 'webhooks-closed-not-on-mobile-app', 'webhooks-closed-not-on-social-d-e', 'webhooks-satisfaction-score-string']) {
    const e = after[id];
    assert.ok(e && !Array.isArray(e) && e.checks.length && e.clauses.length, `${id} is caught by an assertion of its own clause`);
  }
});

test('every deviation at graphql.schema leaves an SDL that parses: otherwise every GraphQL request is a 500 and the deviation is caught for the wrong reason', async () => {
  const { parse, printSchema } = await import('graphql');
  const { buildCesSchema } = await import('../reference-impl/graphql/schema.js');
  const { deviationRegistry } = await import('../lib/deviation-registry.js');
  const sdl = printSchema(buildCesSchema());
  const broken: string[] = [];
  for (const d of [...deviationRegistry().values()].filter((x) => x.seam === 'graphql.schema')) {
    try { parse(applyEdits(sdl, d.edits ?? [])); } catch (e) { broken.push(`${d.id}: ${(e as Error).message}`); }
  }
  assert.deepEqual(broken, [], 'schema deviations whose SDL does not parse');
});
