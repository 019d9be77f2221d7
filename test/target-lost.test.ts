// A target that goes away during a run: the run stops judging, exits 2, says since when, and reports no clause failure for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT } from '../lib/paths.js';
import type { RunSummary } from '../lib/landing.js';

const CES = path.join(ROOT, 'bin', 'ces.js');

test('the target stops answering mid-run: exit 2, the remaining checks NOT JUDGED, no FAIL, the landing page says so', { timeout: 180_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-lost-'));
  const ready = path.join(dir, 'ready.json');
  const serve = spawn(process.execPath, [CES, 'serve', '--ready-file', ready], { cwd: ROOT, stdio: 'ignore' });
  try {
    const deadline = Date.now() + 60_000;
    while (!fs.existsSync(ready) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const r = JSON.parse(fs.readFileSync(ready, 'utf8'));
    const target = path.join(dir, 'target.json');
    fs.writeFileSync(target, JSON.stringify({ base_url: r.base_url, rest_base_url: r.rest_base_url, graphql_url: r.graphql_url, api_key: r.api_key, api_keys: r.api_keys, user: r.user, users: r.users, ca_file: r.ca_file }));
    const reports = path.join(dir, 'reports');
    // The checks of the activity-* files only (Playwright's --grep also matches the file name): one worker runs them in file order, so
    // the service goes with most of them still to come; the checks after the first to find it gone are skipped alike, so the other
    // REST files would add only skips.
    const run = spawn(process.execPath, [CES, 'test', '--target', target, '--suite', 'rest', '--grep', 'activity-', '--no-allure', '--workers', '1'], { cwd: ROOT, env: { ...process.env, CES_REPORTS_DIR: reports } });
    let out = '';
    let passed = 0;
    run.stdout.on('data', (d: Buffer) => {
      out += d;
      passed += (d.toString().match(/✓/g) ?? []).length;
      // Some checks judged, most still to come: the service goes away.
      if (passed >= 15 && serve.exitCode === null && !serve.killed) serve.kill('SIGKILL');
    });
    run.stderr.on('data', (d: Buffer) => { out += d; });
    const code = await new Promise<number | null>((resolve) => run.on('exit', resolve));
    assert.ok(serve.killed, `the service was stopped during the run:\n${out.slice(-2000)}`);
    assert.equal(code, 2, out.slice(-3000));
    assert.match(out, /the target stopped answering at \d{4}-\d\d-\d\dT[\d:.]+Z \(.*refused.*\).*check\(s\) not judged; the run could not judge the target \(exit 2\)/);
    const runDir = fs.readdirSync(reports).find((d) => d.includes('-test-'))!;
    const summary = JSON.parse(fs.readFileSync(path.join(reports, runDir, 'summary.json'), 'utf8')) as RunSummary;
    assert.ok(summary.targetLost, 'the summary records since when the target was lost');
    assert.ok(summary.targetLost.notJudged > 0);
    const failed = summary.checks.filter((c) => c.outcome === 'failed');
    // Their reasons are printed: a failure here is timing-dependent, and the run folder goes with the test.
    assert.deepEqual(failed.map((c) => c.title), [], `no check failed because the target went away; failed: ${failed.map((c) => `${c.title}: ${c.reason}`).join('\n')}`);
    assert.ok(summary.checks.filter((c) => c.outcome === 'passed').length >= 15, 'the checks judged before stay judged');
    const landing = fs.readFileSync(path.join(reports, 'index.html'), 'utf8');
    assert.match(landing, /NOT JUDGED — the run could not judge the target: it stopped answering at/);
  } finally {
    if (serve.exitCode === null) serve.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
