// Lists every Playwright check with its clause tags, without running anything (playwright test --list).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, PLAYWRIGHT_CONFIG, RUNNER_HOOKS, playwrightCli, playwrightEnv } from './paths.js';
import { checkSource } from './results.js';

export interface ListedCheck { title: string; file: string; project: string; clauses: string[]; /** Parts of the target the check declared it needs (suites/fixtures/target.ts `needs`). */ needs: string[] }

export function listChecks(): ListedCheck[] {
  // Listing loads the spec files only; a placeholder target satisfies code that reads it at load time.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-list-'));
  const target = path.join(dir, 'target.json');
  fs.writeFileSync(target, JSON.stringify({ base_url: 'https://127.0.0.1:1', rest_base_url: 'https://127.0.0.1:1/api/2', graphql_url: 'https://127.0.0.1:1/graphql', api_key: 'list-only', user: { username: 'u', password: 'p' }, capabilities: [] }));
  let out: string;
  try {
    out = execFileSync(process.execPath, [...RUNNER_HOOKS, playwrightCli(), 'test', '--list', '--reporter=json', '-c', PLAYWRIGHT_CONFIG], {
      cwd: ROOT, env: { ...process.env, ...playwrightEnv(), CES_TARGET: target, CES_RUN_DIR: dir }, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8',
    });
  } finally {
    // The placeholder is this call's alone: every `ces selftest` and `ces target init` left a folder behind in the temporary folder.
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const report = JSON.parse(out);
  const checks: ListedCheck[] = [];
  const walk = (suite: any) => {
    for (const spec of suite.specs ?? []) for (const t of spec.tests ?? []) {
      const needs = (t.annotations ?? []).filter((a: any) => a.type === 'needs').map((a: any) => String(a.description));
      checks.push({ title: spec.title, ...checkSource(spec.file, t.projectName), clauses: (spec.tags ?? []).map((x: string) => x.replace(/^@/, '')), needs });
    }
    for (const s of suite.suites ?? []) walk(s);
  };
  for (const s of report.suites ?? []) walk(s);
  if (report.errors?.length) throw new Error('playwright could not load the suites: ' + JSON.stringify(report.errors).slice(0, 2000));
  return checks;
}
