// End to end: a real `ces test` run with a deviation switched on shows the clause red with its evidence, and no secret of the target is left under the reports folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startStack } from '../reference-impl/stack.js';
import { loadClauses, loadDeviations } from '../lib/catalogue.js';
import { findLeaks, readPlaywrightEvidence } from '../lib/results.js';
import { ROOT } from '../lib/paths.js';
import { readRuns } from '../lib/landing.js';

const SUITE = 'rest';
const DEVIATION = 'rest-forbidden-text';
const ready = fs.existsSync(path.join(ROOT, 'suites', SUITE)) && fs.readdirSync(path.join(ROOT, 'suites', SUITE)).some((f) => f.endsWith('.spec.ts'))
  && loadDeviations().some((d) => d.id === DEVIATION);

test(`ces test --suite ${SUITE} with ${DEVIATION} on: red clause, its failing request/response, no secret under reports/`, { skip: ready ? false : `needs suites/${SUITE} and deviation ${DEVIATION}`, timeout: 300_000 }, async () => {
  const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-run-reports-'));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-run-target-'));
  // Our own stack, so the test knows every secret the run could leak.
  const stack = await startStack({ workDir: work });
  stack.app.ces.deviations.set([DEVIATION]);
  const targetFile = path.join(work, 'target.json');
  fs.writeFileSync(targetFile, JSON.stringify(stack.ready));
  const secrets = [stack.ready.api_key, ...stack.ready.api_keys.map((k) => k.key), stack.ready.user.password, ...(stack.ready.users ?? []).map((u) => u.password)];
  // Only the checks of the deviation's clauses: the run stays short while the suites grow.
  const grep = loadDeviations().find((d) => d.id === DEVIATION)!.clauses.map((id) => `@${id}(?![\\w-])`).join('|');
  let code: number | null;
  let output = '';
  try {
    code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'test', '--suite', SUITE, '--grep', grep, '--target', targetFile, '--workers', '1'], { env: { ...process.env, CES_REPORTS_DIR: reports }, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('exit', resolve);
    });
  } finally {
    await stack.close();
  }
  assert.equal(code, 1, `a MUST clause fails with the deviation on:\n${output.slice(-2000)}`);
  const [run] = readRuns(reports);
  assert.ok(run, 'a run summary was written');
  const runDir = path.join(reports, run.id);
  for (const f of ['results.json', 'junit.xml', 'playwright/index.html', 'allure-report/index.html', 'evidence.html', 'summary.json']) assert.ok(fs.existsSync(path.join(runDir, f)), `${f} exists`);

  // The landing page: every catalogued clause, the deviation's clause red, its check linked to the evidence anchor.
  const index = fs.readFileSync(path.join(reports, 'index.html'), 'utf8');
  assert.equal((index.match(/<tr id="clause-/g) ?? []).length, loadClauses().filter((c) => !c.retired).length);
  const clauses = loadDeviations().find((d) => d.id === DEVIATION)!.clauses;
  const failing = clauses.filter((id) => new RegExp(`<tr id="clause-${id}"[^>]*data-verdict="fail"`).test(index));
  assert.ok(failing.length > 0, `one of ${clauses.join(', ')} is red`);
  const tr = new RegExp(`<tr id="clause-${failing[0]}"[\\s\\S]*?</tr>`).exec(index)![0];
  const link = /href="([^"#]+)#([^"]+)"><span class="o badge o-failed"/.exec(tr);
  assert.ok(link, 'the red clause links a failed check');
  const evidence = fs.readFileSync(path.join(reports, decodeURIComponent(link[1]!)), 'utf8');
  const section = new RegExp(`<section class="check failed" id="${decodeURIComponent(link[2]!)}"[\\s\\S]*?</section>`).exec(evidence)?.[0] ?? '';
  assert.ok(section, 'the anchor is a failed check on the evidence page');
  assert.match(section, /class="reason"/);
  assert.match(section, /"request"[\s\S]*"response"/, 'its request and response are there');
  assert.ok(readPlaywrightEvidence(path.join(runDir, 'results.json')).some((k) => k.outcome === 'failed' && k.attachments.some((a) => a.contentType === 'application/json')));

  // No key or password of the target anywhere: text, base64 (Allure's single file) or zipped (Playwright's report).
  assert.deepEqual(findLeaks(reports, secrets).map((l) => `${path.relative(reports, l.file)} (${l.where})`), []);
});
