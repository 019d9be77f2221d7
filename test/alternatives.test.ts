// Alternatives (issue 23 item 3): other decisions a conforming service may take, as deviations of kind "alternative"; the self-test runs each against every check of its suites and fails it unless it reports its REF clauses and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clauseById, isAlternative, loadDeviations, type Deviation } from '../lib/catalogue.js';
import { deviationRegistry, entryProblems } from '../lib/deviation-registry.js';
import type { ListedCheck } from '../lib/list-checks.js';
import { clauseGrep, mergedOutcome, missedRuns, ownClauses, planSelftest, readSelftestResults, secondPassPlan, type AlternativeOutcome } from '../cli/selftest-plan.js';
import { copiesGrep, copyTitle } from '../lib/selftest-copies.js';

const clauses = clauseById();
const deviations = loadDeviations();

test('an alternative names REF clauses only: a MUST or SHOULD clause it broke would make it a fault', () => {
  const wrong = deviations.filter(isAlternative).flatMap((d) => d.clauses.filter((c) => clauses.get(c)?.severity !== 'REF').map((c) => `${d.id}: ${c} is ${clauses.get(c)?.severity ?? 'not in the catalogue'}`));
  assert.deepEqual(wrong, []);
  assert.deepEqual(entryProblems({ id: 'x', clauses: ['REST-OP-06'], description: 'x', seam: 'rest.policy', set: { createdStatus: 200 }, kind: 'variant' as never }), ['kind "variant" is not "alternative" (omit it for a fault)']);
  assert.ok([...deviationRegistry().values()].every((d) => d.kind === undefined || d.kind === 'alternative'));
});

const dev = (id: string, cl: string[], extra: Record<string, unknown> = {}): Deviation => ({ id, clauses: cl, description: id, area: 'x', ...extra });
const check = (project: string, title: string, cl: string[]): ListedCheck => ({ project, file: `${project}.spec.ts`, title, clauses: cl, needs: [] });

test('the plan: faults run the checks of their clauses one deviation each; alternatives every check of their suites, together where they hold nothing in common', () => {
  const checks = [
    check('rest', 'r1', ['R-MUST-01']), check('rest', 'r2', ['R-REF-01']), check('rest', 'r3', ['R-REF-02']),
    check('auth', 'a1', ['A-REF-01']), check('webhooks', 'w1', ['W-MUST-01']), check('rest', 'r4', ['R-REF-03', 'R-REF-04', 'R-REF-UMBRELLA']),
  ];
  const devs = [
    dev('fault-r', ['R-MUST-01']),
    dev('alt-r1', ['R-REF-01'], { kind: 'alternative', seam: 'rest.policy', set: { pageMax: 1 } }),
    dev('alt-r1-other', ['R-REF-01'], { kind: 'alternative', seam: 'rest.response', edits: [{ at: 'meta.message', set: 'x' }] }),
    dev('alt-r2', ['R-REF-02'], { kind: 'alternative', seam: 'rest.policy', set: { pageMax: 2 } }),
    dev('alt-a1', ['A-REF-01'], { kind: 'alternative', seam: 'auth.policy', set: { x: 1 } }),
    // Two that name a shared clause (as REST-ENV-05, the status rule) besides one of their own: they may share a run.
    dev('alt-s1', ['R-REF-03', 'R-REF-UMBRELLA'], { kind: 'alternative', seam: 'rest.policy', set: { s1: 1 } }),
    dev('alt-s2', ['R-REF-04', 'R-REF-UMBRELLA'], { kind: 'alternative', seam: 'rest.policy', set: { s2: 1 } }),
  ];
  const plan = planSelftest(devs, checks, true);
  const byName = new Map(plan.map((p) => [p.name, p]));
  // Baselines: the alternatives' suites whole, the faults' clauses elsewhere.
  assert.deepEqual(byName.get('baseline-suites')?.suites, ['auth', 'rest']);
  assert.deepEqual(byName.get('baseline')?.skipSuites, ['auth', 'rest']);
  assert.deepEqual(byName.get('deviations-1')?.deviations.map((d) => d.id), ['fault-r']);
  const groups = plan.filter((p) => p.together && !p.grep);
  const shown = plan.filter((p) => p.together && p.grep);
  const ids = (g: { deviations: Array<{ id: string }> }) => g.deviations.map((d) => d.id);
  // Every check of their suites: each alternative in one whole-suite group, no two there changing the same thing (alt-r1 and
  // alt-r2 set one policy field).
  assert.deepEqual(groups.flatMap(ids).sort(), ['alt-a1', 'alt-r1', 'alt-r1-other', 'alt-r2', 'alt-s1', 'alt-s2']);
  for (const g of groups) {
    assert.ok(!(ids(g).includes('alt-r1') && ids(g).includes('alt-r2')), `${ids(g)} set one policy field`);
    const n = checks.filter((c) => g.suites!.includes(c.project)).length;
    assert.ok(g.deviations.every((d) => d.checks === n));
  }
  assert.ok(groups.some((g) => ['alt-s1', 'alt-s2'].every((id) => ids(g).includes(id))), 'a shared clause beside clauses of their own does not keep two apart');
  // A clause named by two does not keep them out of one whole-suite run (another run of every check of their suites for it cost
  // as much as the first): alt-r1 and alt-r1-other change different things.
  assert.ok(groups.some((g) => ['alt-r1', 'alt-r1-other'].every((id) => ids(g).includes(id))), 'alternatives naming one clause share a whole-suite group');
  // What each must report shows: a clause of its own in its whole-suite group, or else in a group run against the checks of its
  // clauses only, where it keeps one (alt-r1 and alt-r1-other name the same single clause: never shown together).
  for (const d of devs.filter((x) => x.kind === 'alternative')) {
    const g = groups.find((x) => ids(x).includes(d.id))!;
    if (ownClauses(d, g.deviations).length) { assert.ok(!shown.some((x) => ids(x).includes(d.id)), `${d.id} shows in its own group`); continue; }
    const s = shown.find((x) => ids(x).includes(d.id));
    assert.ok(s, `${d.id} keeps no clause of its own in ${ids(g)}: it runs in a group of its clauses' checks`);
    assert.ok(ownClauses(d, s.deviations).length > 0, `${d.id} keeps a clause of its own in ${ids(s)}`);
    const clauses = [...new Set(s.deviations.flatMap((x) => x.clauses))];
    assert.equal(s.grep, clauseGrep(clauses));
    assert.ok(s.deviations.every((x) => x.checks === checks.filter((c) => c.clauses.some((id) => clauses.includes(id))).length));
  }
  assert.ok(!shown.some((x) => ['alt-r1', 'alt-r1-other'].every((id) => ids(x).includes(id))));
  assert.ok(groups.some((g) => g.deviations.some((d) => d.id === 'alt-a1') && g.suites!.includes('auth') && g.suites!.includes('rest')), 'the auth alternative shares a run with a REST one');
  assert.equal(planSelftest(devs, checks, false).some((p) => p.baseline), false);
  // Edits of one path share a run when they compose (replacements of different texts) or act in different scopes; not when
  // both set it in one scope.
  const edit = (id: string, clause: string, e: Record<string, unknown>, where?: string) => dev(id, [clause], { kind: 'alternative', seam: 'rest.response', edits: [{ at: 'meta.message', ...e }], ...(where ? { where } : {}) });
  const together = (a: Deviation, b: Deviation) => planSelftest([a, b], checks, false).length === 1;
  assert.ok(together(edit('e1', 'R-REF-01', { replace: ['^a', 'x'] }, 'statistic'), edit('e2', 'R-REF-02', { replace: ['^b', 'y'] }, 'statistic')));
  assert.ok(together(edit('e1', 'R-REF-01', { set: 'x' }, 'statistic'), edit('e2', 'R-REF-02', { set: 'y' }, 'callmeeting')));
  assert.ok(!together(edit('e1', 'R-REF-01', { set: 'x' }, 'statistic'), edit('e2', 'R-REF-02', { set: 'y' })));
  assert.ok(!together(edit('e1', 'R-REF-01', { replace: ['^a', 'x'] }), edit('e2', 'R-REF-02', { replace: ['^a', 'y'] }, 'statistic')));
  assert.ok(together(edit('e1', 'R-REF-01', { dropKeys: '^a$' }), edit('e2', 'R-REF-02', { dropKeys: '^b$' })), 'keys of different patterns dropped compose');
  assert.ok(!together(edit('e1', 'R-REF-01', { dropKeys: '^a$' }), edit('e2', 'R-REF-02', { dropKeys: '^a$' })));
});

/** A Playwright JSON results file of checks run under alternatives (the shape lib/results.ts reads). */
function results(tests: Array<{ title: string; tags: string[]; status: 'passed' | 'failed'; records?: Array<{ clause: string; failed?: string }>; unattributed?: number; alternatives: string[] }>): string {
  const specs = tests.map((t) => ({
    title: t.title, file: 'rest/x.spec.ts', tags: t.tags.map((c) => '@' + c),
    tests: [{
      projectName: 'alternatives-1', annotations: [], results: [{
        status: t.status, duration: 1, error: t.status === 'failed' ? { message: 'the failure' } : undefined,
        annotations: [
          { type: 'alternatives', description: t.alternatives.join(',') },
          ...(t.records ?? []).map((r) => ({ type: 'ces.clause', description: JSON.stringify(r) })),
          { type: 'ces.ended', description: JSON.stringify({ unattributed: t.unattributed ?? 0, stopped: false }) },
        ],
      }],
    }],
  }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-alt-'));
  const file = path.join(dir, 'results.json');
  fs.writeFileSync(file, JSON.stringify({ suites: [{ title: 'x.spec.ts', file: 'rest/x.spec.ts', specs }] }));
  return file;
}

test('the second pass\'s limit counts runs: a run of alternatives once, whatever the number of its members one flake unsettled', () => {
  const plan = [
    { name: 'deviations-1', grep: '@X', deviations: [{ id: 'f1', clauses: ['X'], checks: 1 }, { id: 'f2', clauses: ['Y'], checks: 1 }] },
    { name: 'alternatives-1', together: true, deviations: Array.from({ length: 40 }, (_, i) => ({ id: `a${i}`, clauses: [`R${i}`], checks: 9 })) },
    { name: 'alternatives-2', together: true, deviations: [{ id: 'b1', clauses: ['S'], checks: 9 }] },
  ];
  assert.equal(missedRuns(Array.from({ length: 40 }, (_, i) => `a${i}`), plan), 1);
  assert.equal(missedRuns(['a3', 'f1', 'f2'], plan), 3);
  assert.equal(missedRuns(['a3', 'b1', 'wire-x'], plan), 3, 'a wire fault counts alone');
  assert.equal(missedRuns([], plan), 0);
});

test('a second pass for a run of alternatives runs again only the checks that reported outside its clauses or broke, when each member reported its own', () => {
  const checks = [check('rest', 'r1', ['R1']), check('rest', 'r2', ['R2']), check('rest', 'r3', ['R3']), check('webhooks', 'w1', ['W1'])];
  const plan = [
    { name: 'deviations-1', grep: clauseGrep(['W1']), deviations: [{ id: 'f1', clauses: ['W1'], checks: 1 }] },
    { name: 'alternatives-1', suites: ['rest', 'webhooks'], together: true, deviations: [{ id: 'a1', clauses: ['R1'], checks: 4 }, { id: 'a2', clauses: ['R2'], checks: 4 }] },
    // a2 is in a second run too (its clauses only), with a3: both runs run again, so that every report of theirs comes from one pass.
    { name: 'alternatives-shown-1', suites: ['rest'], grep: clauseGrep(['R2', 'R3']), together: true, deviations: [{ id: 'a2', clauses: ['R2'], checks: 2 }, { id: 'a3', clauses: ['R3'], checks: 2 }] },
    { name: 'alternatives-2', suites: ['rest'], together: true, deviations: [{ id: 'b1', clauses: ['R3'], checks: 3 }] },
  ];
  const outcome = (id: string, failed: string[], outside: string[] = []): AlternativeOutcome => ({ deviation: id, ran: 4, failed: failed.map((title) => ({ title, reason: 'x', clauses: [] })), harnessErrors: [], outside: outside.map((title) => ({ title, clause: 'W1', reason: 'late' })) });
  const outcomes = new Map([['a1', outcome('a1', ['r1'], ['webhook retries › w1'])], ['a2', outcome('a2', ['r2'], ['webhook retries › w1'])], ['a3', outcome('a3', ['r3'])], ['b1', outcome('b1', ['r3'])]]);
  const second = secondPassPlan([{ id: 'a1', clauses: ['R1'] }, { id: 'f1', clauses: ['W1'] }], plan, checks, outcomes);
  assert.deepEqual(second.members.sort(), ['a1', 'a2', 'a3']);
  assert.deepEqual([...second.rerun ?? []], ['webhook retries › w1']);
  assert.deepEqual(second.plan.map((p) => p.name), ['deviations-1', 'alternatives-1', 'alternatives-shown-1'], 'the fault as planned, both runs of a1 and a2, not alternatives-2');
  // The copies' grep (what Playwright matches: file, describes and title, the copy's marker, the tags) picks w1's copy alone.
  const grep = copiesGrep(second.plan);
  assert.ok(grep.test(`webhooks.spec.ts webhook retries ${copyTitle('w1', 'alternatives-1')} @W1`));
  assert.ok(!grep.test(`rest.spec.ts ${copyTitle('r1', 'alternatives-1')} @R1`), 'a check that reported what it must does not run again');
  assert.ok(!grep.test(`webhooks.spec.ts webhook retries ${copyTitle('w1', 'alternatives-shown-1')} @W1`), 'nor outside the clauses of a run limited to them');
  assert.equal(second.plan[1]!.deviations[0]!.checks, 1, 'the progress counts the checks that run again');
  assert.equal(second.plan[1]!.again, true, 'and says they run again');
  // Merged: the first pass's reports but those of the checks that ran again; a check meant to run again that did not keeps its report.
  const a1 = outcomes.get('a1')!;
  assert.deepEqual(mergedOutcome(a1, outcome('a1', []), new Set(['webhook retries › w1'])).outside, []);
  assert.deepEqual(mergedOutcome(a1, outcome('a1', []), new Set(['webhook retries › w1'])).failed.map((f) => f.title), ['r1']);
  assert.deepEqual(mergedOutcome(a1, undefined, new Set()).outside.map((x) => x.title), ['webhook retries › w1']);
  // A member whose own clauses did not report in the first pass: its runs run whole again.
  outcomes.set('a3', outcome('a3', []));
  const whole = secondPassPlan([{ id: 'a1', clauses: ['R1'] }], plan, checks, outcomes);
  assert.equal(whole.rerun, undefined);
  assert.deepEqual(whole.plan.map((p) => [p.name, p.grep]), [['alternatives-1', undefined], ['alternatives-shown-1', clauseGrep(['R2', 'R3'])]]);
});

test('the outcome of alternatives: each must report its own REF clause; any other clause reported (a MUST failure, a SHOULD recorded as failed) is laid to the run', () => {
  const on = ['alt-a', 'alt-b', 'alt-c'];
  const file = results([
    // alt-a's REF clause reported under its own `under` record (the check fails softly against the reference).
    { title: 'status of a create', tags: ['REST-OP-05', 'REST-OP-06'], status: 'failed', records: [{ clause: 'REST-OP-06', failed: 'expected 201' }, { clause: 'REST-OP-05' }], alternatives: on },
    // A MUST clause failing outside any `under`, with alt-b's REF clause: both primary, both reported.
    { title: 'a page over the max', tags: ['REST-PAGE-02', 'REST-PAGE-03'], status: 'failed', unattributed: 1, alternatives: on },
    // A SHOULD clause recorded as failed: the check passes, and still reports it.
    { title: 'a should', tags: ['REST-OP-05'], status: 'passed', records: [{ clause: 'REST-OP-05', failed: 'advice not followed' }], alternatives: on },
    { title: 'untouched', tags: ['REST-OP-01'], status: 'passed', alternatives: on },
    // A clause alt-c shares with alt-a: it says nothing of which one reported it, so it shows neither.
    { title: 'a shared clause', tags: ['REST-ID-02'], status: 'failed', records: [{ clause: 'REST-ID-02', failed: 'expected 404' }], alternatives: on },
  ]);
  const out = readSelftestResults(file, [{ id: 'alt-a', clauses: ['REST-OP-06', 'REST-ID-02'] }, { id: 'alt-b', clauses: ['REST-PAGE-03'] }, { id: 'alt-c', clauses: ['REST-ID-02', 'REST-ID-03'] }]);
  const a = out.byAlternative.get('alt-a')!;
  const b = out.byAlternative.get('alt-b')!;
  assert.equal(a.ran, 5);
  assert.deepEqual(out.byAlternative.get('alt-c')!.failed, [], 'alt-c reported no clause of its own');
  assert.deepEqual(a.failed.map((f) => f.title), ['status of a create']);
  assert.deepEqual(b.failed.map((f) => f.title), ['a page over the max']);
  // Laid to both members of the run: the MUST clause failed with alt-b's REF clause, and the SHOULD clause.
  for (const o of [a, b]) assert.deepEqual(o.outside.map((x) => `${x.clause} in ${x.title}`), ['REST-PAGE-02 in a page over the max', 'REST-OP-05 in a should']);
  assert.equal(out.byDeviation.size, 0);
});

test('an alternative that leaves a MUST or SHOULD check NOT JUDGED where the reference was judged fails the self-test, unless its own REF set-up step failed', () => {
  const on = ['alt-a'];
  const spec = (title: string, tags: string[], project: string, status: 'passed' | 'skipped', extra: Array<{ type: string; description: string }> = []) => ({
    title, file: 'rest/x.spec.ts', tags: tags.map((c) => '@' + c),
    tests: [{ projectName: project, annotations: [], results: [{ status, duration: 1, annotations: [
      ...(project.startsWith('alternatives') ? [{ type: 'alternatives', description: on.join(',') }] : []),
      ...extra,
      ...(status === 'passed' ? [{ type: 'ces.ended', description: JSON.stringify({ unattributed: 0, stopped: false }) }] : []),
    ] }] }],
  });
  const skip = (reason: string) => [{ type: 'skip', description: `not judged: ${reason}` }];
  const specs = [
    spec('a must check', ['REST-OP-05'], 'baseline', 'passed'),
    spec('a must check', ['REST-OP-05'], 'alternatives-1', 'skipped', skip('the listing answered in a shape that cannot be read')),
    spec('a check behind a set-up step', ['REST-OP-07'], 'baseline', 'passed'),
    spec('a check behind a set-up step', ['REST-OP-07'], 'alternatives-1', 'skipped', [{ type: 'ces.clause', description: JSON.stringify({ clause: 'REST-OP-06', failed: 'expected 201, got 200' }) }, ...skip('the set-up step POST /operator failed (REST-OP-06): expected 201')]),
  ];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-alt-nj-'));
  const file = path.join(dir, 'results.json');
  fs.writeFileSync(file, JSON.stringify({ suites: [{ title: 'x.spec.ts', file: 'rest/x.spec.ts', specs }] }));
  const out = readSelftestResults(file, [{ id: 'alt-a', clauses: ['REST-OP-06'] }]);
  const a = out.byAlternative.get('alt-a')!;
  assert.deepEqual(a.outside.map((x) => `${x.clause} in ${x.title}`), ['REST-OP-05 in a must check'], 'the MUST check left NOT JUDGED is laid to the alternative');
  assert.deepEqual(a.failed.map((f) => f.title), ['a check behind a set-up step'], 'its REF clause recorded before the check ended NOT JUDGED still reports');
  fs.rmSync(dir, { recursive: true, force: true });
});
