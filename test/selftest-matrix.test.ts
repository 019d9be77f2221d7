// The self-test's narrowing to the stored matrix (cli/selftest-matrix.ts): a fault runs against the checks that caught it before, as few as keep its proofs; a new fault, a renamed check or a lost proof runs every check of its clauses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ListedCheck } from '../lib/list-checks.js';
import { planSelftest } from '../cli/selftest-plan.js';
import { chosenChecks, narrowPlan, needsFallback, readStoredMatrix, STORED_MATRIX } from '../cli/selftest-matrix.js';

const check = (title: string, clauses: string[], file = 'rest/x.spec.ts'): ListedCheck => ({ title, file, project: file.split('/')[0]!, clauses, needs: [] });
const CHECKS = [
  check('a page is at most 100 items', ['REST-PAGE-03']),
  check('a page past the end is empty', ['REST-PAGE-03', 'REST-PAGE-06']),
  check('limit=0 is refused', ['REST-PAGE-03']),
  check('a retry comes 10 s later', ['WH-RETRY-01'], 'webhooks/retry.spec.ts'),
  check('the second retry comes 20 s after', ['WH-RETRY-01', 'WH-RETRY-02'], 'webhooks/retry.spec.ts'),
];

test('one check that caught the fault before, or as few as keep every clause it proved there', () => {
  const m = { id: 'rest-limit-not-clamped', clauses: ['REST-PAGE-03', 'REST-PAGE-06'] };
  assert.deepEqual(chosenChecks(m, { checks: ['a page is at most 100 items', 'a page past the end is empty'], clauses: ['REST-PAGE-03', 'REST-PAGE-06'] }, CHECKS)?.map((c) => c.title), ['a page past the end is empty']);
  assert.deepEqual(chosenChecks(m, { checks: ['a page is at most 100 items', 'limit=0 is refused'], clauses: ['REST-PAGE-03'] }, CHECKS)?.map((c) => c.title), ['a page is at most 100 items']);
  assert.equal(chosenChecks(m, undefined, CHECKS), undefined, 'a fault the matrix does not know');
  assert.equal(chosenChecks(m, { checks: ['a check renamed since'], clauses: ['REST-PAGE-03'] }, CHECKS), undefined, 'a check that no longer exists');
  assert.equal(chosenChecks(m, { checks: ['a retry comes 10 s later'], clauses: [] }, CHECKS), undefined, 'a check that names none of its clauses any more');
  // The matrix names a check with its describe titles (results.json's titles).
  assert.deepEqual(chosenChecks(m, { checks: ['paging › limit=0 is refused'], clauses: ['REST-PAGE-03'] }, CHECKS)?.map((c) => c.matrixTitle), ['paging › limit=0 is refused']);
  // What each check proved there, when the row says: a check naming both clauses that proved one (its first failure ended it)
  // is not enough alone (it named both, and its run fell back to every check of the clauses each time).
  const both = { checks: ['a page is at most 100 items', 'a page past the end is empty'], clauses: ['REST-PAGE-03', 'REST-PAGE-06'] };
  assert.deepEqual(chosenChecks(m, { ...both, proved: { 'a page past the end is empty': ['REST-PAGE-06'], 'a page is at most 100 items': ['REST-PAGE-03'] } }, CHECKS)?.map((c) => c.title).sort(), ['a page is at most 100 items', 'a page past the end is empty']);
  assert.deepEqual(chosenChecks(m, { ...both, proved: { 'a page past the end is empty': ['REST-PAGE-03', 'REST-PAGE-06'], 'a page is at most 100 items': ['REST-PAGE-03'] } }, CHECKS)?.map((c) => c.title), ['a page past the end is empty']);
});

test('the narrowed plan: each fault\'s project greps its chosen checks only (as Playwright matches titles with tags); a fault without a row keeps every check of its clauses', () => {
  const faults = [{ id: 'f-page', clauses: ['REST-PAGE-03'] }, { id: 'f-retry', clauses: ['WH-RETRY-01'] }];
  const full = planSelftest(faults, CHECKS, false);
  const { plan, narrowed } = narrowPlan(full, faults, CHECKS, { 'f-page': { checks: ['paging › limit=0 is refused'], clauses: ['REST-PAGE-03'] } });
  assert.deepEqual(narrowed, ['f-page']);
  const projectOf = (id: string) => plan.find((p) => p.deviations.some((d) => d.id === id))!;
  const grep = new RegExp(projectOf('f-page').grep!);
  // Playwright's grep string: file, describe and check titles, then the tags (each check here in a describe "paging").
  const line = (c: ListedCheck) => `${c.file} paging ${c.title} ${c.clauses.map((id) => `@${id}`).join(' ')}`;
  assert.deepEqual(CHECKS.filter((c) => grep.test(line(c))).filter((c) => c.clauses.includes('REST-PAGE-03')).map((c) => c.title), ['limit=0 is refused']);
  assert.equal(projectOf('f-page').deviations.find((d) => d.id === 'f-page')!.checks, 1, 'the reporter expects one check of it');
  const retry = new RegExp(projectOf('f-retry').grep!);
  assert.deepEqual(CHECKS.filter((c) => retry.test(line(c))).filter((c) => c.clauses.includes('WH-RETRY-01')).map((c) => c.title), ['a retry comes 10 s later', 'the second retry comes 20 s after']);
  // Alternatives and baselines are never narrowed.
  const alt = [{ id: 'alt', clauses: ['REST-PAGE-06'], kind: 'alternative' }];
  const withAlt = planSelftest([...faults, ...alt] as never, CHECKS, true);
  const n = narrowPlan(withAlt, [...faults, ...alt], CHECKS, { alt: { checks: ['a page past the end is empty'], clauses: ['REST-PAGE-06'] } });
  assert.deepEqual(n.plan.filter((p) => p.together || p.baseline), withAlt.filter((p) => p.together || p.baseline));
});

test('a narrowed fault runs again against every check of its clauses when missed, broken, or when a proof of the stored run is lost', () => {
  const m = { id: 'f', clauses: ['A-01', 'A-02'] };
  const row = { checks: ['x'], clauses: ['A-01', 'A-02'] };
  assert.equal(needsFallback(m, undefined, row), true, 'no outcome: its check did not run');
  assert.equal(needsFallback(m, { failed: [], harnessErrors: [] }, row), true, 'missed');
  assert.equal(needsFallback(m, { failed: [{ clauses: ['A-01'] }], harnessErrors: ['broke'] }, row), true, 'a harness error');
  assert.equal(needsFallback(m, { failed: [{ clauses: ['A-01'] }], harnessErrors: [] }, row), true, 'A-02 was proven before and is not now');
  assert.equal(needsFallback(m, { failed: [{ clauses: ['A-01', 'A-02'] }], harnessErrors: [] }, row), false);
});

test('the stored matrix reads in both forms, and the checked-in one names faults of the catalogue', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-matrix-'));
  try {
    fs.writeFileSync(path.join(dir, 'm.json'), JSON.stringify({ a: ['t1'], b: { checks: ['t2'], clauses: ['C-01'] } }));
    assert.deepEqual(readStoredMatrix(path.join(dir, 'm.json')), { a: { checks: ['t1'], clauses: [] }, b: { checks: ['t2'], clauses: ['C-01'] } });
    assert.equal(readStoredMatrix(path.join(dir, 'none.json')), undefined);
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  const stored = readStoredMatrix(STORED_MATRIX);
  assert.ok(stored && Object.keys(stored).length > 100, 'docs/selftest-matrix.json holds a full run');
});
