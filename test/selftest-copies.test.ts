// The self-test's copies of a check (lib/selftest-copies.ts): titles, which planned projects copy a check, and the grep that picks each copy by its own project's grep.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COPY_GREP, copiesFor, copiesGrep, copyProject, copyTitle, originalTitle, type CopiedProject } from '../lib/selftest-copies.js';
import { clauseGrep } from '../cli/selftest-plan.js';
import { narrowPlan } from '../cli/selftest-matrix.js';

const PROJECTS: CopiedProject[] = [
  { name: 'deviations-1', grep: clauseGrep(['REST-PAGE-01', 'WH-RETRY-01']), deviations: [{ id: 'a', clauses: ['REST-PAGE-01'] }, { id: 'b', clauses: ['WH-RETRY-01'] }] },
  { name: 'deviations-2', grep: clauseGrep(['REST-PAGE-01']), deviations: [{ id: 'c', clauses: ['REST-PAGE-01'] }] },
  { name: 'alternatives-1', together: true, suites: ['rest'], deviations: [{ id: 'd', clauses: ['REST-PAGE-01'] }] },
  { name: 'baseline', baseline: true, deviations: [] },
];
/** What Playwright greps of a check: file, describes, title, tags. */
const grepText = (title: string, tags: string[]) => `rest/paging.spec.ts paging ${title} ${tags.map((t) => `@${t}`).join(' ')}`;

test('a copy\'s title names its planned project; the check\'s own title comes back whole', () => {
  const t = copyTitle('limit=101 is clamped to 100', 'deviations-12');
  assert.equal(t, 'limit=101 is clamped to 100 ⟨deviations-12⟩');
  assert.equal(copyProject(t), 'deviations-12');
  assert.equal(originalTitle(t), 'limit=101 is clamped to 100');
  assert.equal(copyProject('limit=101 is clamped to 100'), undefined);
  assert.equal(originalTitle('a title with ⟨brackets⟩ inside it'), 'a title with ⟨brackets⟩ inside it');
});

test('a check is copied for each project of faults with a deviation of its clauses and each project of alternatives of its suite, never for the baseline', () => {
  assert.deepEqual(copiesFor(['REST-PAGE-01'], 'rest', PROJECTS).map((p) => p.name), ['deviations-1', 'deviations-2', 'alternatives-1']);
  assert.deepEqual(copiesFor(['WH-RETRY-01', 'X'], 'webhooks', PROJECTS).map((p) => p.name), ['deviations-1']);
  assert.deepEqual(copiesFor(['REST-PAGE-02'], 'rest', PROJECTS).map((p) => p.name), ['alternatives-1'], 'alternatives run every check of their suites');
  assert.deepEqual(copiesFor(['AUTH-TOKEN-01'], 'auth', PROJECTS), []);
  assert.deepEqual(copiesFor(['AUTH-TOKEN-01'], 'auth', [{ name: 'a', together: true, skipSuites: ['auth'], deviations: [] }]), []);
  assert.deepEqual(copiesFor(['AUTH-TOKEN-01'], 'auth', [{ name: 'a', together: true, deviations: [] }]).map((p) => p.name), ['a'], 'no suites: all of them');
});

test('the grep of the project of copies runs a copy only where its own project\'s grep would run the check; COPY_GREP tells copies apart', () => {
  const grep = copiesGrep(PROJECTS.filter((p) => !p.baseline && !p.together));
  const tags = ['REST-PAGE-01'];
  assert.ok(grep.test(grepText(copyTitle('limit is honoured', 'deviations-1'), tags)));
  assert.ok(grep.test(grepText(copyTitle('limit is honoured', 'deviations-2'), tags)));
  assert.ok(!grep.test(grepText('limit is honoured', tags)), 'the check itself is no copy');
  assert.ok(!grep.test(grepText(copyTitle('limit is honoured', 'deviations-2'), ['WH-RETRY-01'])), "a copy whose clauses are not its project's");
  assert.ok(!grep.test(grepText(copyTitle('limit is honoured', 'deviations-3'), tags)), 'a project not in the plan');
  assert.ok(COPY_GREP.test(grepText(copyTitle('limit is honoured', 'deviations-1'), tags)));
  assert.ok(!COPY_GREP.test(grepText('limit is honoured', tags)));
  // A narrowed project (cli/selftest-matrix.ts) greps titles followed by their tags: a copy's marker in between still matches.
  const checks = [
    { title: 'limit is honoured', file: 'rest/paging.spec.ts', project: 'rest', clauses: tags, needs: [], matrixTitle: 'paging › limit is honoured' },
    { title: 'limit of 0 is refused', file: 'rest/paging.spec.ts', project: 'rest', clauses: tags, needs: [], matrixTitle: 'paging › limit of 0 is refused' },
  ];
  const { plan, narrowed } = narrowPlan([PROJECTS[1]!].map((p) => ({ ...p, deviations: p.deviations.map((d) => ({ ...d, checks: 2 })) })), [{ id: 'c', clauses: tags }], checks as never, { c: { checks: ['paging › limit is honoured'], clauses: tags } } as never);
  assert.deepEqual(narrowed, ['c']);
  const narrow = copiesGrep(plan);
  assert.ok(narrow.test(grepText(copyTitle('limit is honoured', 'deviations-2'), tags)));
  assert.ok(!narrow.test(grepText(copyTitle('limit of 0 is refused', 'deviations-2'), tags)), 'the check the matrix did not choose');
});
