// `--report-dir`: a folder holding a former run's reports is emptied before the run, so a run whose Playwright never wrote its
// results is never read as one that did (the former run's PASS stood in for it); a folder of other files is refused, untouched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { reportDirOf } from '../cli/run.js';
import { UsageError } from '../cli/usage.js';
import { ROOT } from '../lib/paths.js';
import { generateTls } from '../lib/tls.js';
import { startFakeConnector } from '../fake-connector/server.js';
import { REFERENCE_SCRIPT } from '../check/settings.js';

const SECRET = 'report-dir-secret-5e1c';
let work: string;
let fake: Awaited<ReturnType<typeof startFakeConnector>>;
let caFile: string;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-report-dir-'));
  const tls = generateTls();
  caFile = path.join(work, 'ca.pem');
  fs.writeFileSync(caFile, tls.ca.cert);
  fake = await startFakeConnector({ tls: tls.server, secret: SECRET });
});
after(async () => { await fake?.close(); fs.rmSync(work, { recursive: true, force: true }); });

/** A folder as a former `ces check` left it: its target, a results.json and summary.json in which CONN-EP1-01 passed. */
function formerRun(dir: string): void {
  fs.mkdirSync(path.join(dir, 'check'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'check-target.json'), '{}');
  fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify({ suites: [], stats: { expected: 1 } }));
  fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify({ verdicts: [{ id: 'CONN-EP1-01', verdict: 'pass' }] }));
  fs.writeFileSync(path.join(dir, 'check', 'connector-conversation-1-abc.json'), '{}');
}

test('reportDirOf: a new folder is made, an empty one kept, a former run\'s emptied, any other refused untouched', () => {
  const fresh = path.join(work, 'fresh', 'run');
  assert.equal(reportDirOf(fresh).dir, fresh);
  assert.ok(fs.statSync(fresh).isDirectory());
  assert.deepEqual(reportDirOf(fresh), { id: 'run', dir: fresh });

  const former = path.join(work, 'former');
  formerRun(former);
  reportDirOf(former);
  assert.deepEqual(fs.readdirSync(former), []);

  const foreign = path.join(work, 'foreign');
  fs.mkdirSync(foreign);
  fs.writeFileSync(path.join(foreign, 'notes.txt'), 'mine');
  assert.throws(() => reportDirOf(foreign), (e: Error) => e instanceof UsageError && /not a former ces run's reports \(notes\.txt\)/.test(e.message));
  assert.deepEqual(fs.readdirSync(foreign), ['notes.txt']);

  const file = path.join(work, 'a-file');
  fs.writeFileSync(file, '');
  assert.throws(() => reportDirOf(file), (e: Error) => e instanceof UsageError && /is a file/.test(e.message));
});

test('ces check into a former run\'s folder whose Playwright dies at start: exit 2, nothing of the former run reported or left', async () => {
  const dir = path.join(work, 'rerun');
  formerRun(dir);
  // Playwright's runner exits at once (as when its configuration fails to load), writing nothing.
  const preload = path.join(work, 'playwright-dies.cjs');
  fs.writeFileSync(preload, "if (/@playwright[\\\\/]test[\\\\/]cli\\.js$/.test(process.argv[1] ?? '') && process.argv[2] === 'test') process.exit(1);\n");
  const args = ['check', 'connector', fake.url, '--secret', SECRET, '--ca-file', caFile, '--script', JSON.stringify(REFERENCE_SCRIPT), '--only', 'CONN-EP1-01', '--report-dir', dir, '--no-allure', '--workers', '1'];
  const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), ...args], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`, CES_REPORTS_DIR: path.join(work, 'reports') } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (c) => resolve({ code: c, out }));
  });
  assert.equal(code, 2, out);
  assert.match(out, /no check ran/);
  assert.doesNotMatch(out, /PASS/);
  for (const f of ['results.json', 'summary.json', 'check']) assert.ok(!fs.existsSync(path.join(dir, f)), `${f} of the former run is still there`);
});
