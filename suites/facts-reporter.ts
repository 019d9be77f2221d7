// A Playwright reporter that records, per check, what only the runner's structured report tells: whether an error happened in its hooks (fixture set-up or tear-down, beforeEach/afterEach), which is the harness's own failure (lib/verdicts.ts classifyOutcome).
import fs from 'node:fs';
import path from 'node:path';
import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { FACTS_FILE, factKey, type CheckFacts } from '../lib/run-facts.js';

/** The key of a test as lib/results.ts reads it from the JSON results: project, file, describe titles and title. */
export function testKey(test: TestCase): string {
  const [, project = '', file = '', ...titles] = test.titlePath();
  return factKey(project, file, titles.join(' › '));
}

/** Whether an error happened in Playwright's hooks (the top-level steps of category `hook`: Before Hooks, After Hooks). */
export const hookFailed = (result: TestResult): boolean => result.steps.some((s) => s.category === 'hook' && s.error !== undefined);

export default class FactsReporter implements Reporter {
  private readonly facts: Record<string, CheckFacts> = {};
  constructor(private readonly opts: { runDir: string }) {}

  onTestEnd(test: TestCase, result: TestResult): void {
    if (hookFailed(result)) this.facts[testKey(test)] = { hookFailed: true };
  }

  onEnd(): void {
    fs.mkdirSync(this.opts.runDir, { recursive: true });
    fs.writeFileSync(path.join(this.opts.runDir, FACTS_FILE), JSON.stringify(this.facts));
  }

  printsToStdio(): boolean { return false; }
}
