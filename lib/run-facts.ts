// The facts of how each check ended that only the test runner's structured report holds (a failure inside Playwright's hooks), kept beside its JSON results so the verdict is decided from structure, never from message text.
import fs from 'node:fs';
import path from 'node:path';

/** File of a run folder that holds the facts (written by suites/facts-reporter.ts, read by lib/results.ts). */
export const FACTS_FILE = 'facts.json';

/** Per check: an error inside Playwright's hooks (fixture set-up or tear-down, beforeEach/afterEach): the harness's own. */
export interface CheckFacts { hookFailed: boolean }

/**
 * A spec file as the suites name it (`rest/x.spec.ts`), however Playwright gives it: from the sources; compiled (`rest/x.spec.js`,
 * the title path); or through the compiled file's source map (`../../suites/rest/x.spec.ts`, relative to dist/suites: the JSON
 * results' locations). One name, so a check's facts, results, Allure entry and self-test plan all meet.
 */
export const specPath = (file: string): string => file.replace(/\\/g, '/').replace(/^(\.\.\/)+suites\//, '').replace(/\.js$/, '.ts');

/** The key of a check in both the facts and the JSON results: project, spec file (relative to the suites) and title path. */
export const factKey = (project: string, file: string, title: string) => `${project}\u0000${specPath(file)}\u0000${title}`;

/** The facts of a run folder's checks (none recorded: an older run, or a check that had no hook failure). */
export function readFacts(runDir: string): Map<string, CheckFacts> {
  const f = path.join(runDir, FACTS_FILE);
  if (!fs.existsSync(f)) return new Map();
  try { return new Map(Object.entries(JSON.parse(fs.readFileSync(f, 'utf8')) as Record<string, CheckFacts>)); } catch { return new Map(); }
}
