// The runner's first reporter: a check that failed and kept its worker (lib/verdicts.ts WORKER_KEPT) is made an unexpected failure again, its annotation taken off, before any other reporter sees it.
import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { WORKER_KEPT } from '../lib/verdicts.js';

/**
 * Playwright decides whether to restart a worker from the expected status the worker sent, before it calls the reporters; the
 * reporters (this one first), the JSON, JUnit, HTML and Allure reports and the runner's failure count then read the test as
 * this reporter leaves it.
 */
export default class WorkerKeptReporter implements Reporter {
  onTestEnd(test: TestCase, result: TestResult): void {
    const kept = (a: { type: string; description?: string }) => a.type === 'fail' && a.description === WORKER_KEPT;
    if (!test.annotations.some(kept)) return;
    (test as { expectedStatus: TestCase['expectedStatus'] }).expectedStatus = 'passed';
    for (const list of [test.annotations, result.annotations]) {
      const i = list.findIndex(kept);
      if (i >= 0) list.splice(i, 1);
    }
  }

  printsToStdio(): boolean { return false; }
}
