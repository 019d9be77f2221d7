// Progress of `ces selftest` in one Playwright run: a line per deviation (project) as soon as all of its checks have ended.
import type { FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';

interface Tally { total: number; ended: number; failed: number }

export default class SelftestReporter implements Reporter {
  private tallies = new Map<string, Tally>();
  private done = 0;
  private deviations = 0;

  onBegin(_config: unknown, root: Suite): void {
    for (const project of root.suites) {
      this.tallies.set(project.title, { total: project.allTests().length, ended: 0, failed: 0 });
      if (project.title !== 'baseline') this.deviations++;
    }
    console.log(`selftest: ${this.deviations} deviation(s), ${root.allTests().length} check runs`);
    // A deviation none of whose clauses has a check is reported at once (MISSED).
    for (const [name, t] of this.tallies) if (t.total === 0) this.report(name, t);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    // A test may be retried: only its last result counts (retries are 0 in this project).
    if (result.retry < test.retries && result.status !== 'passed' && result.status !== 'skipped') return;
    const name = test.parent.project()?.name ?? '';
    const t = this.tallies.get(name);
    if (!t) return;
    t.ended++;
    if (result.status === 'failed' || result.status === 'timedOut') t.failed++;
    if (t.ended === t.total) this.report(name, t);
  }

  private report(name: string, t: Tally): void {
    if (name === 'baseline') { console.log(`baseline (no deviation): ${t.total - t.failed} of ${t.total} check(s) passed`); return; }
    const caught = t.failed > 0;
    console.log(`[${++this.done}/${this.deviations}] ${caught ? 'caught ' : 'MISSED '} ${name}${caught ? ` by ${t.failed} check(s)` : `: ${t.total} check(s) ran, none failed`}`);
  }

  onEnd(result: FullResult): void {
    if (result.status !== 'passed' && result.status !== 'failed') console.log(`selftest: the Playwright run ended ${result.status}`);
  }

  printsToStdio(): boolean { return true; }
}
