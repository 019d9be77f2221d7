// Progress of `ces selftest` in one Playwright run: a line per deviation (and per alternative) as soon as all of its checks have ended.
import fs from 'node:fs';
import type { FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { ANNOTATION, classifyOutcome, failedClauses, reportedClauses } from '../lib/verdicts.js';
import { clauseResultsOf } from '../lib/results.js';
import { hookFailed } from './facts-reporter.js';
import { ownClauses } from '../cli/selftest-plan.js';

/** Per deviation: its checks ended, those that caught it, harness errors; for an alternative, clauses reported outside its run's. */
interface Tally { total: number; ended: number; failed: number; harness: number; done: boolean; alternative?: boolean; outside?: Set<string>; again?: boolean }
interface PlanProject { name: string; baseline?: boolean; together?: boolean; again?: boolean; deviations: Array<{ id: string; checks: number; clauses: string[] }> }

export default class SelftestReporter implements Reporter {
  private tallies = new Map<string, Tally>();
  private baseline: Tally = { total: 0, ended: 0, failed: 0, harness: 0, done: false };
  private done = 0;
  private readonly clausesOf = new Map<string, string[]>();

  onBegin(_config: unknown, root: Suite): void {
    const plan = JSON.parse(fs.readFileSync(process.env.CES_SELFTEST_PLAN!, 'utf8')) as PlanProject[];
    for (const p of plan) for (const d of p.deviations) {
      // An alternative may run in two projects (its suites whole, and the checks of its clauses where it keeps one of its own):
      // its line comes when the checks of both have ended.
      const known = this.tallies.get(d.id);
      if (known) { known.total += d.checks; continue; }
      this.tallies.set(d.id, { total: d.checks, ended: 0, failed: 0, harness: 0, done: false, ...(p.together ? { alternative: true, outside: new Set<string>(), ...(p.again ? { again: true } : {}) } : {}) });
      this.clausesOf.set(d.id, d.clauses);
    }
    this.baseline.total = root.suites.filter((s) => s.title.startsWith('baseline')).reduce((n, s) => n + s.allTests().length, 0);
    console.log(`selftest: ${this.tallies.size} deviation(s), ${root.allTests().length} check runs in ${root.suites.length} project(s)`);
    // A deviation none of whose clauses has a check is reported at once (MISSED).
    for (const [id, t] of this.tallies) if (t.total === 0) this.report(id, t);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const annotations = [...test.annotations, ...((result as { annotations?: TestCase['annotations'] }).annotations ?? [])];
    const said = (type: string) => annotations.filter((a) => a.type === type).map((a) => String(a.description ?? ''));
    // The same decision as every report (lib/verdicts.ts classifyOutcome), from the live result's structure.
    const outcome = classifyOutcome({ status: result.status, hookFailed: hookFailed(result), ended: said(ANNOTATION.ended).length > 0, harness: said(ANNOTATION.harness).length > 0, notJudged: said(ANNOTATION.notJudged).length > 0 });
    const failed = outcome === 'failed' || outcome === 'harness-error';
    if ((test.parent.project()?.metadata as { selftest?: { baseline?: boolean } } | undefined)?.selftest?.baseline) {
      this.baseline.ended++;
      if (failed) this.baseline.failed++;
      if (this.baseline.ended === this.baseline.total) console.log(`baseline (no deviation): ${this.baseline.total - this.baseline.failed} of ${this.baseline.total} check(s) passed`);
      return;
    }
    const clauses = test.tags.map((x) => x.replace(/^@/, ''));
    const ended = said(ANNOTATION.ended)[0];
    const judged = { clauses, outcome, clauseResults: clauseResultsOf(said(ANNOTATION.clause)), failure: ended ? JSON.parse(ended) : undefined };
    // Alternatives, all of a project's on together: each must make its own clauses report, and no check anything else.
    const together = said('alternatives')[0]?.split(',') ?? [];
    if (together.length) {
      const reported = outcome === 'failed' || outcome === 'passed' ? reportedClauses(judged) : [];
      const mine = new Set(together.flatMap((a) => this.clausesOf.get(a) ?? []));
      for (const a of together) {
        const t = this.tallies.get(a);
        if (!t) continue;
        t.ended++;
        if (outcome === 'harness-error') t.harness++;
        const group = together.map((id) => ({ id, clauses: this.clausesOf.get(id) ?? [] }));
        if (reported.some((c) => ownClauses({ id: a, clauses: this.clausesOf.get(a) ?? [] }, group).includes(c))) t.failed++;
        for (const c of reported) if (!mine.has(c)) t.outside!.add(c);
        if (t.ended >= t.total) this.report(a, t);
      }
      return;
    }
    const id = annotations.find((a) => a.type === 'deviation')?.description;
    const t = id ? this.tallies.get(id) : undefined;
    if (!id || !t) return;
    t.ended++;
    // A harness error never catches a deviation, nor does a failure of another clause than the deviation's (lib/verdicts.ts).
    if (outcome === 'harness-error') t.harness++;
    else if (outcome === 'failed') {
      const own = failedClauses(judged);
      if (own.some((c) => this.clausesOf.get(id)?.includes(c) ?? true)) t.failed++;
    }
    if (t.ended >= t.total) this.report(id, t);
  }

  private report(id: string, t: Tally): void {
    if (t.done) return;
    t.done = true;
    const errs = t.harness ? ` (${t.harness} HARNESS ERROR, not counted)` : '';
    if (t.alternative) {
      const outside = t.outside!.size ? `; reported outside its run's clauses: ${[...t.outside!].sort().join(', ')}` : '';
      // A limited second pass (cli/selftest-plan.ts secondPassPlan): the checks that unsettled the first pass run again; the
      // reports of its own clauses stand from the first pass.
      if (t.again) {
        console.log(`[${++this.done}/${this.tallies.size}] ${!outside && !t.harness ? 'settled' : 'WRONG  '} ${id} (alternative): ${t.ended} check(s) ran again${outside || (t.harness ? '' : ', nothing reported outside its run\'s clauses')}${errs}`);
        return;
      }
      const ok = t.failed > 0 && !outside;
      console.log(`[${++this.done}/${this.tallies.size}] ${ok ? 'reports' : 'WRONG  '} ${id} (alternative)${t.failed ? ` reported by ${t.failed} check(s)` : `: ${t.ended} check(s) ran, none reported its clauses`}${outside}${errs}`);
      return;
    }
    const caught = t.failed > 0;
    console.log(`[${++this.done}/${this.tallies.size}] ${caught ? 'caught ' : 'MISSED '} ${id}${caught ? ` by ${t.failed} check(s)` : `: ${t.ended} check(s) ran, none failed`}${errs}`);
  }

  onEnd(result: FullResult): void {
    // Deviations some of whose checks never ended (skipped before their fixture, run interrupted) are reported with what ran.
    for (const [id, t] of this.tallies) this.report(id, t);
    if (result.status !== 'passed' && result.status !== 'failed') console.log(`selftest: the Playwright run ended ${result.status}`);
  }

  printsToStdio(): boolean { return true; }
}
