// Runs Playwright suites against a target into reports/<run-id>/, then records verdicts and refreshes the landing page.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT, REPORTS } from '../lib/paths.js';
import { readPlaywrightResults, clauseVerdicts, exitCodeOf, scrubDir, findLeaks, type CheckResult } from '../lib/results.js';
import { addSecret, knownSecrets, mask } from '../lib/mask.js';
import { targetSecrets, type Target } from '../lib/target.js';
import { buildLanding, buildEvidence, writeRunSummary, type RunSummary } from '../lib/landing.js';

/** Registers a target's keys and passwords with lib/mask.ts in this process (the suites register them in theirs). */
export function registerTargetSecrets(target: Partial<Target>): void {
  for (const s of targetSecrets(target)) addSecret(s);
}

export function newRunDir(kind: string): { id: string; dir: string } {
  const id = `${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}-${kind}-${process.pid}`;
  const dir = path.join(REPORTS, id);
  fs.mkdirSync(dir, { recursive: true });
  return { id, dir };
}

export interface PlaywrightRun { checks: CheckResult[]; code: number | null }

/** Spawns `playwright test` with the target in CES_TARGET; resolves with the parsed checks. */
export async function runPlaywright(opts: { targetFile: string; runDir: string; projects?: string[]; grep?: string; quiet?: boolean; workers?: number; extraEnv?: Record<string, string> }): Promise<PlaywrightRun> {
  const cli = path.join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
  const args = [cli, 'test', '-c', path.join(ROOT, 'suites', 'playwright.config.ts')];
  for (const p of opts.projects ?? []) args.push('--project', p);
  if (opts.grep) args.push('--grep', opts.grep);
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: opts.quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit',
      env: { ...process.env, CES_TARGET: opts.targetFile, CES_RUN_DIR: opts.runDir, CES_QUIET: opts.quiet ? '1' : '0', ...(opts.workers ? { CES_WORKERS: String(opts.workers) } : {}), ...opts.extraEnv },
    });
    child.on('exit', (c) => resolve(c));
  });
  // Reports concern: whatever Playwright wrote (assertion messages, error contexts, its HTML report, allure-results) is
  // masked before anything reads it or Allure turns it into a report.
  try { registerTargetSecrets(JSON.parse(fs.readFileSync(opts.targetFile, 'utf8'))); } catch { /* an unreadable target failed the run already */ }
  // Only Playwright's outputs: the target file may sit in the run folder and be needed by a next run of the same target.
  for (const out of ['results.json', 'junit.xml', 'playwright', 'allure-results', 'test-output']) scrubDir(path.join(opts.runDir, out));
  const resultsFile = path.join(opts.runDir, 'results.json');
  if (!fs.existsSync(resultsFile)) return { checks: [], code };
  return { checks: readPlaywrightResults(resultsFile), code };
}

/** Writes the run's summary, refreshes reports/index.html, prints the terminal table; returns the exit code. */
export function finishRun(run: { id: string; dir: string }, kind: string, target: Target, checks: CheckResult[], extra: Partial<RunSummary> = {}): 0 | 1 {
  registerTargetSecrets(target);
  const reference = target.reference === true;
  const verdicts = clauseVerdicts(checks, { reference });
  const code = exitCodeOf(checks, { reference });
  const summary: RunSummary = {
    id: run.id, kind, date: new Date().toISOString(), target: mask(target.base_url), reference, deviations: target.deviations ?? [],
    exitCode: code, checks, verdicts: verdicts.map((v) => ({ id: v.clause.id, verdict: v.verdict, checks: v.checks.map((c) => c.title) })), ...extra,
  };
  // A selftest's outcome is its mutations (unless the caller states its exit code): a missed deviation is a failed run.
  if (extra.mutations && extra.exitCode === undefined) summary.exitCode = extra.mutations.every((m) => m.caught) ? code : 1;
  writeRunSummary(run.dir, summary);
  // The embedded target file and anything written since the suites ran (k6 summaries, sub-runs) get masked too.
  scrubDir(run.dir);
  const evidence = buildEvidence(run.dir);
  const landing = buildLanding();
  printTable(checks, verdicts.map((v) => ({ id: v.clause.id, verdict: v.verdict })));
  const leaks = findLeaks(run.dir, knownSecrets());
  if (leaks.length) console.error(`\nWARNING: a secret is still present under ${run.dir} in ${[...new Set(leaks.map((l) => path.relative(run.dir, l.file)))].join(', ')} (a report writer bypassed lib/mask.ts)`);
  console.log(`\nreport: ${landing}\nevidence: ${evidence}\nrun folder: ${run.dir}`);
  return code;
}

function printTable(checks: CheckResult[], clauseVerdicts: Array<{ id: string; verdict: string }>) {
  // A run without checks of its own (selftest: its sub-runs have them) prints its own outcome instead.
  if (checks.length === 0) return;
  const verdicts = clauseVerdicts.map((v) => v.verdict);
  const byId = new Map(clauseVerdicts.map((v) => [v.id, v.verdict]));
  const count = (xs: string[], v: string) => xs.filter((x) => x === v).length;
  const outcomes = checks.map((c) => c.outcome);
  console.log(`\nclauses: ${count(verdicts, 'pass')} pass, ${count(verdicts, 'fail')} fail, ${count(verdicts, 'warn')} warn, ${count(verdicts, 'skipped')} skipped, ${count(verdicts, 'not-run')} not run`);
  for (const c of checks.filter((k) => k.outcome === 'failed')) {
    // WARN: every clause of the check is one that does not fail a run (SHOULD/MAY, REF off the reference implementation).
    const label = c.clauses.length === 0 || c.clauses.some((id) => byId.get(id) !== 'warn') ? 'FAIL' : 'WARN';
    console.log(`  ${label} [${c.clauses.join(', ')}] ${c.title}\n       ${(c.reason ?? '').split('\n')[0]}`);
  }
  console.log(`checks: ${count(outcomes, 'passed')} passed, ${count(outcomes, 'failed')} failed, ${count(outcomes, 'skipped')} skipped`);
}
