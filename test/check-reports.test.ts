// One verdict per check, the same in every report (issue 39, item 3): a run holding each verdict kind, fed to the terminal summary, summary.json, the run's page and the overview, JUnit and Allure, counts alike; and the `report:` line opens that run's own page whatever else the folder holds (item 4). Pure: no Playwright run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { finishRun } from '../cli/run.js';
import { applyVerdicts } from '../cli/allure.js';
import { checkVerdicts, type CheckResult } from '../lib/results.js';
import { COUNTED, LABEL, countsLine, type Verdict } from '../lib/verdicts.js';
import { writeRunSummary, type RunSummary } from '../lib/landing.js';
import type { Target } from '../lib/target.js';
import { spawnSync } from 'node:child_process';
import { rerunCommand } from '../check/reproduce.js';
import { CHECK_ENV } from '../check/settings.js';
import { ROOT } from '../lib/paths.js';

/** A check of the connector area with the outcome Playwright gave it. */
const check = (title: string, clause: string, outcome: CheckResult['outcome'], more: Partial<CheckResult> = {}): CheckResult =>
  ({ title, file: 'configuration.spec.ts', project: 'connector-check', clauses: [clause], outcome, durationMs: 12, ...(outcome === 'passed' ? {} : { reason: `why ${title}` }), ...more });

/** One check of each verdict: a failed MAY clause is a NOTE (Playwright says "failed"), a passed check with a WARN is a WARN. */
const CHECKS: CheckResult[] = [
  check('passes', 'CONN-HTTPS-01', 'passed'),
  check('fails a MUST', 'CONN-EP2-01', 'failed'),
  check('warns', 'CONN-EP6-01', 'passed', { warnings: ['an allowed variant'] }),
  check('fails a MAY', 'CONN-AUTH-01', 'failed'),
  check('is skipped', 'CONN-HTTPS-01', 'skipped'),
  check('is not judged', 'CONN-EP3-02', 'not-judged'),
  check('breaks the harness', 'CONN-EP1-01', 'harness-error'),
];

const target = { base_url: 'https://connector.example', reference: false, connector_url: 'https://connector.example' } as unknown as Target;

/** Runs finishRun on the checks in a folder that also holds a newer conformance run and another check run; returns what it printed. */
function finish(folder: string, id: string, checks: CheckResult[]): string {
  const dir = path.join(folder, id);
  fs.mkdirSync(path.join(dir, 'allure-results'), { recursive: true });
  // allure-playwright's result files, as applyVerdicts finds them (titlePath: root, project, file).
  checks.forEach((c, i) => fs.writeFileSync(path.join(dir, 'allure-results', `${i}-result.json`), JSON.stringify({ name: c.title, titlePath: ['ces', c.project, c.file], status: 'passed', labels: [], parameters: [] })));
  const lines: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => { lines.push(a.join(' ')); };
  try { finishRun({ id, dir }, 'check', target, checks, {}, { area: 'connector', checked: [...new Set(checks.flatMap((c) => c.clauses))] }); } finally { console.log = log; }
  applyVerdicts(path.join(dir, 'allure-results'), checks, false);
  return lines.join('\n');
}

/** Another run's summary, newer than the one under test (the overview heads with the latest conformance run). */
function otherRun(folder: string, id: string, kind: string): void {
  fs.mkdirSync(path.join(folder, id), { recursive: true });
  const s: RunSummary = { id, kind, date: '2099-01-01T00:00:00.000Z', target: 'https://other.example', reference: false, deviations: [], exitCode: 0,
    checks: [{ ...check('other passes', 'CONN-HTTPS-01', 'passed'), verdict: 'pass' }], verdicts: [{ id: 'CONN-HTTPS-01', verdict: 'pass', checks: ['other passes'] }] };
  writeRunSummary(path.join(folder, id), s);
}

test('a run with each verdict kind is counted alike by the terminal, summary.json, the run page, the overview, JUnit and Allure; report: opens its own page', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-check-reports-'));
  try {
    const verdicts = checkVerdicts(CHECKS, { reference: false });
    assert.deepEqual([...new Set(verdicts)].sort(), COUNTED.filter((v) => v !== 'not-run').sort(), 'the fixture holds each verdict kind once');
    const expected = countsLine(verdicts);
    otherRun(folder, 'a-newer-test-run', 'test');
    otherRun(folder, 'a-newer-check-run', 'check');
    const id = 'the-check-run';
    const out = finish(folder, id, CHECKS);

    // Terminal.
    assert.ok(out.includes(`checks (${CHECKS.length}): ${expected}`), `terminal counts "${expected}"\n${out}`);
    // summary.json: each check's verdict beside Playwright's outcome (the NOTE's outcome stays "failed").
    const summary = JSON.parse(fs.readFileSync(path.join(folder, id, 'summary.json'), 'utf8')) as RunSummary;
    assert.deepEqual(summary.checks.map((c) => c.verdict), verdicts);
    assert.equal(summary.checks.find((c) => c.title === 'fails a MAY')?.outcome, 'failed');
    assert.equal(countsLine(summary.checks.map((c) => c.verdict as Verdict)), expected);
    // The run's page, named by report:, and the overview: counted by verdict, never by outcome.
    const report = /^report: (\S+)$/m.exec(out)?.[1];
    assert.equal(report, path.join(folder, id, 'index.html'), `report: names the run's own page\n${out}`);
    const page = fs.readFileSync(report!, 'utf8');
    assert.match(page, new RegExp(`<h1>Run <code>${id}</code> \\(check\\)</h1>`), 'the page is about this run, not the newer ones');
    assert.ok(page.includes(`<span class="counts" id="check-counts">${expected}</span>`), `run page counts "${expected}"`);
    assert.doesNotMatch(page, /a-newer-/, 'nothing of the other runs on this run\'s page');
    // Scoped: the clauses of what it judged, the rest of the catalogue in one line.
    const rows = [...page.matchAll(/<tr id="clause-([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(rows.sort(), [...new Set(CHECKS.flatMap((c) => c.clauses))].sort());
    assert.match(page, /<p id="not-in-run" class="meta">\d+ other clauses of the catalogue are not about what this run checked/);
    const overview = fs.readFileSync(/^overview: (\S+)$/m.exec(out)![1]!, 'utf8');
    assert.match(overview, /<code>a-newer-test-run<\/code> \(test\)/, 'the folder\'s index.html stays the overview, heading with the latest conformance run');
    assert.match(overview, new RegExp(`href="${id}/index.html">Run page</a>`), 'the overview links each run\'s page');
    // JUnit: <failure> for FAIL, <error> for HARNESS ERROR, <skipped> for SKIP and NOT JUDGED; one verdict property per check.
    const junit = fs.readFileSync(path.join(folder, id, 'junit.xml'), 'utf8');
    const n = (v: Verdict) => verdicts.filter((x) => x === v).length;
    assert.match(junit, new RegExp(`<testsuites [^>]*tests="${CHECKS.length}" failures="${n('fail')}" errors="${n('harness-error')}"`));
    assert.match(junit, new RegExp(`skipped="${n('skipped') + n('not-judged')}"`));
    const junitVerdicts = [...junit.matchAll(/<property name="verdict" value="([^"]+)"\/>/g)].map((m) => m[1]);
    assert.equal(countsLine(junitVerdicts.map((l) => COUNTED.find((v) => LABEL[v] === l)!)), expected);
    // Allure: the verdict parameter of each result, and its status.
    const results = fs.readdirSync(path.join(folder, id, 'allure-results')).filter((f) => f.endsWith('-result.json')).map((f) => JSON.parse(fs.readFileSync(path.join(folder, id, 'allure-results', f), 'utf8')));
    const allureVerdicts = results.map((r) => COUNTED.find((v) => LABEL[v] === r.parameters.find((p: { name: string }) => p.name === 'verdict')?.value)!);
    assert.equal(countsLine(allureVerdicts), expected);
    assert.equal(results.find((r) => r.name === 'fails a MAY')?.status, 'passed', 'a NOTE does not fail in Allure');
  } finally { if (!process.env.KEEP) fs.rmSync(folder, { recursive: true, force: true }); else console.error(folder); }
});

test('a printed re-run command reaches ces from any folder: the absolute path of the ces that ran', () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-paste-'));
  const saved = { ...process.env };
  try {
    Object.assign(process.env, { [CHECK_ENV.connectorUrl]: 'https://127.0.0.1:9', [CHECK_ENV.connectorVersion]: '3f1e2d4c-0000-4000-8000-000000000001' });
    const command = rerunCommand('CONN-TIME-01');
    assert.ok(command.startsWith(`'${path.join(ROOT, 'bin', 'ces.js')}' check connector 'https://127.0.0.1:9'`), command);
    assert.match(command, / --only CONN-TIME-01$/);
    // Pasted in an empty folder (no package there, npx would not find it): ces starts and answers; --help stands for the rest.
    const r = spawnSync('bash', ['-c', command.replace(/ check connector .*$/, ' check --help')], { cwd: empty, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /ces check <what> <url>/);
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    fs.rmSync(empty, { recursive: true, force: true });
  }
});
