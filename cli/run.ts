// Runs Playwright suites against a target into reports/<run-id>/, then records verdicts and refreshes the landing page.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT, REPORTS } from '../lib/paths.js';
import { readPlaywrightResults, clauseVerdicts, exitCodeOf, type CheckResult } from '../lib/results.js';
import { mask } from '../lib/mask.js';
import type { Target } from '../lib/target.js';
import { buildLanding, writeRunSummary, type RunSummary } from '../lib/landing.js';

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
  const resultsFile = path.join(opts.runDir, 'results.json');
  if (!fs.existsSync(resultsFile)) return { checks: [], code };
  return { checks: readPlaywrightResults(resultsFile), code };
}

/** Writes the run's summary, refreshes reports/index.html, prints the terminal table; returns the exit code. */
export function finishRun(run: { id: string; dir: string }, kind: string, target: Target, checks: CheckResult[], extra: Partial<RunSummary> = {}): 0 | 1 {
  const reference = target.reference === true;
  const verdicts = clauseVerdicts(checks, { reference });
  const code = exitCodeOf(checks, { reference });
  const summary: RunSummary = {
    id: run.id, kind, date: new Date().toISOString(), target: mask(target.base_url), reference, deviations: target.deviations ?? [],
    exitCode: code, checks, verdicts: verdicts.map((v) => ({ id: v.clause.id, verdict: v.verdict, checks: v.checks.map((c) => c.title) })), ...extra,
  };
  writeRunSummary(run.dir, summary);
  const landing = buildLanding();
  printTable(checks, verdicts.map((v) => v.verdict));
  console.log(`\nreport: ${landing}\nrun folder: ${run.dir}`);
  return code;
}

function printTable(checks: CheckResult[], verdicts: string[]) {
  const count = (xs: string[], v: string) => xs.filter((x) => x === v).length;
  const outcomes = checks.map((c) => c.outcome);
  console.log(`\nclauses: ${count(verdicts, 'pass')} pass, ${count(verdicts, 'fail')} fail, ${count(verdicts, 'warn')} warn, ${count(verdicts, 'skipped')} skipped, ${count(verdicts, 'not-run')} not run`);
  for (const c of checks.filter((k) => k.outcome === 'failed')) console.log(`  FAIL [${c.clauses.join(', ')}] ${c.title}\n       ${(c.reason ?? '').split('\n')[0]}`);
  console.log(`checks: ${count(outcomes, 'passed')} passed, ${count(outcomes, 'failed')} failed, ${count(outcomes, 'skipped')} skipped`);
}
