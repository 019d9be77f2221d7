// `ces` run as a child process by the tests that judge a whole command: its exit code, its output, its time, and (for a run
// with reports) its run's summary.json.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT } from '../lib/paths.js';
import type { RunSummary } from '../lib/landing.js';

export interface CesRun { code: number | null; out: string; ms: number }

/** Runs `ces <args>` (stdout and stderr together) in `cwd` (the checkout by default) with `env` over this process's. */
export function runCes(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CesRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), ...args], { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out, ms: performance.now() - started }));
  });
}

/** Runs `ces <args>` with its reports in a new folder under `parent`; also answers the summary.json of the run it made. */
export async function runCesReported(args: string[], parent: string, env: NodeJS.ProcessEnv = {}): Promise<CesRun & { summary: RunSummary }> {
  const reports = fs.mkdtempSync(path.join(parent, 'reports-'));
  const r = await runCes(args, { env: { CES_REPORTS_DIR: reports, ...env } });
  const run = fs.readdirSync(reports).find((d) => fs.existsSync(path.join(reports, d, 'summary.json')));
  assert.ok(run, `a run folder with summary.json:\n${r.out.slice(-2000)}`);
  return { ...r, summary: JSON.parse(fs.readFileSync(path.join(reports, run!, 'summary.json'), 'utf8')) as RunSummary };
}
