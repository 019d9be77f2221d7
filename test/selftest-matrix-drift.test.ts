// The stored self-test matrix (docs/selftest-matrix.json) kept in step with the catalogue and the checks: every fault has a row, and each row names checks that exist today and still name its clauses, so the narrowed self-test never silently falls back to the full one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';
import { isAlternative, loadDeviations } from '../lib/catalogue.js';
import { listChecks } from '../lib/list-checks.js';
import { chosenChecks, readStoredMatrix } from '../cli/selftest-matrix.js';

test('docs/selftest-matrix.json has a row for every deviation and wire fault, naming checks that exist and name its clauses (refresh: ces selftest --parallel 9 --wire --matrix docs/selftest-matrix.json)', () => {
  const matrix = readStoredMatrix();
  assert.ok(matrix, 'docs/selftest-matrix.json is missing');
  const wire = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures', 'wire-faults.json'), 'utf8')) as Array<{ id: string; clauses: string[] }>;
  // Alternatives run against every check of their suites, never narrowed: they need no row.
  const faults = [...loadDeviations().filter((d) => !isAlternative(d)), ...wire].map((f) => ({ id: f.id, clauses: f.clauses }));
  const checks = listChecks();
  const missing = faults.filter((f) => !matrix![f.id]).map((f) => f.id);
  const stale = faults.filter((f) => matrix![f.id] && !chosenChecks(f, matrix![f.id], checks)).map((f) => `${f.id}: ${matrix![f.id]!.checks.join(' | ')}`);
  // A row of a fault no longer in the catalogue (an alternative's row, from a full run, stays: --matrix writes them too).
  const known = new Set([...loadDeviations().map((d) => d.id), ...wire.map((w) => w.id)]);
  const gone = Object.keys(matrix!).filter((id) => !known.has(id));
  assert.deepEqual({ missing, stale, gone }, { missing: [], stale: [], gone: [] }, 'the stored matrix is out of step: refresh it with a full run (ces selftest --parallel 9 --wire --matrix docs/selftest-matrix.json)');
});
