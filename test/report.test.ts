// Unit tests of the report builder: verdict rules, clause matrix, evidence pages, pictures, compare, and that no secret survives under reports/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { addSecret } from '../lib/mask.js';
import { spawnSync } from 'node:child_process';
import { makeReports, allFiles, CLAUSES, DEVIATIONS, SECRETS, UNREGISTERED, FIXTURE_RESULTS } from './report-fixture.js';
import { readPlaywrightResults, readPlaywrightEvidence, clauseVerdicts, exitCodeOf, scrubDir, findLeaks, readZip, writeZip, type CheckResult } from '../lib/results.js';
import { buildAll, buildLanding, compareRuns, readRuns, proofsOf } from '../lib/landing.js';
import { loadClauses } from '../lib/catalogue.js';
import { sequenceSvg, timelineSvg, expectedAttemptTimes } from '../lib/svg.js';
import { ROOT } from '../lib/paths.js';
import { compareTable, findRun } from '../cli/commands/report.js';

const opts = (dir: string) => ({ reportsDir: dir, clauses: CLAUSES, deviations: DEVIATIONS });
const read = (f: string) => fs.readFileSync(f, 'utf8');
/** The <tr> of a clause in the landing page's matrix. */
const row = (html: string, id: string) => new RegExp(`<tr id="clause-${id}"[^>]*>[\\s\\S]*?</tr>`).exec(html)?.[0] ?? '';

test('checks are read from Playwright JSON with clauses, outcomes, reasons and anchors', () => {
  const checks = readPlaywrightResults(FIXTURE_RESULTS);
  assert.equal(checks.length, 4);
  const byTitle = new Map(checks.map((c) => [c.title, c]));
  assert.deepEqual(byTitle.get('failing call leaks the key in its message')?.clauses, ['FAKE-FAIL-01', 'FAKE-WARN-01']);
  assert.equal(byTitle.get('failing call leaks the key in its message')?.outcome, 'failed');
  assert.match(byTitle.get('failing call leaks the key in its message')?.reason ?? '', /toBe/);
  assert.equal(byTitle.get('needs a capability the target lacks')?.outcome, 'skipped');
  assert.equal(byTitle.get('needs a capability the target lacks')?.reason, 'target lacks clock');
  const anchors = checks.map((c) => c.anchor);
  assert.equal(new Set(anchors).size, 4, 'anchors are unique');
  for (const a of anchors) assert.match(a ?? '', /^check-[a-z0-9-]+-[0-9a-f]{8}$/);
});

test('verdict rules: fail beats pass, SHOULD failures warn, all-skipped is skipped, unchecked is not-run, retired is left out', () => {
  const checks = readPlaywrightResults(FIXTURE_RESULTS);
  const v = new Map(clauseVerdicts(checks, { reference: true }, CLAUSES).map((x) => [x.clause.id, x.verdict]));
  assert.deepEqual(Object.fromEntries(v), { 'FAKE-PASS-01': 'pass', 'FAKE-FAIL-01': 'fail', 'FAKE-WARN-01': 'warn', 'FAKE-SKIP-01': 'skipped', 'FAKE-NORUN-01': 'not-run' });
  assert.equal(exitCodeOf(checks, { reference: true }, CLAUSES), 1);
  const only = (clauses: string[]): CheckResult[] => [{ title: 't', file: 'f', project: 'p', clauses, outcome: 'failed', durationMs: 1 }];
  assert.equal(exitCodeOf(only(['FAKE-WARN-01']), { reference: true }, CLAUSES), 0, 'a SHOULD failure never fails the run');
  assert.equal(exitCodeOf(only(['FAKE-NORUN-01']), { reference: true }, CLAUSES), 1, 'REF fails against the reference implementation');
  assert.equal(exitCodeOf(only(['FAKE-NORUN-01']), { reference: false }, CLAUSES), 0, 'REF does not fail a foreign target');
  assert.equal(exitCodeOf(only([]), { reference: false }, CLAUSES), 2, 'a failed check without clauses is a harness error');
  assert.equal(exitCodeOf(only(['NOT-IN-CATALOGUE']), { reference: false }, CLAUSES), 1);
});

test('landing page: one matrix row per catalogued clause with its verdict, checks linked to their evidence anchors, proofs', () => {
  const r = makeReports();
  buildAll(opts(r.dir));
  const html = read(path.join(r.dir, 'index.html'));
  const live = CLAUSES.filter((c) => !c.retired);
  assert.equal((html.match(/<tr id="clause-/g) ?? []).length, live.length);
  assert.equal(row(html, 'FAKE-OLD-01'), '', 'retired clauses are not listed');
  const expected: Record<string, string> = { 'FAKE-PASS-01': 'pass', 'FAKE-FAIL-01': 'fail', 'FAKE-WARN-01': 'warn', 'FAKE-SKIP-01': 'skipped', 'FAKE-NORUN-01': 'not-run' };
  for (const c of live) {
    const tr = row(html, c.id);
    assert.ok(tr, `row of ${c.id}`);
    assert.match(tr, new RegExp(`data-verdict="${expected[c.id]}"`), c.id);
    assert.match(tr, new RegExp(`data-severity="${c.severity}"`));
    assert.ok(tr.includes(`>${c.severity}<`) && tr.includes(c.source.replace('&', '&amp;')), `${c.id} shows severity and spec section`);
  }
  assert.ok(row(html, 'FAKE-FAIL-01').includes('The key is &lt;never&gt; shown &amp; &quot;quoted&quot;.'), 'clause text is escaped');
  assert.match(html, /id="verdict"[^>]*>FAIL/);
  assert.match(html, /Tool version<\/dt><dd>ces \d+\.\d+\.\d+/);
  // Proven by mutation, from the latest selftest.
  assert.match(row(html, 'FAKE-FAIL-01'), /data-proof="yes"[^>]*>yes .*mut-dev-caught/);
  assert.match(row(html, 'FAKE-WARN-01'), /data-proof="no"[^>]*>no .*missed/);
  assert.match(row(html, 'FAKE-PASS-01'), /data-proof="no"[^>]*>no .*selftest not run for dev-untested/);
  assert.match(row(html, 'FAKE-NORUN-01'), /data-proof="no"[^>]*>no .*no deviation/);
  // Every check link lands on an anchor that exists in the run's evidence page.
  const evidence = read(path.join(r.dir, r.testRun, 'evidence.html'));
  const links = [...html.matchAll(/href="([^"]+\/evidence\.html)#([^"]+)"/g)];
  assert.ok(links.length >= 4);
  for (const [, page, anchor] of links) {
    const target = read(path.join(r.dir, decodeURIComponent(page!)));
    assert.ok(target.includes(`id="${decodeURIComponent(anchor!)}"`), `anchor ${anchor} exists in ${page}`);
  }
  assert.ok(evidence.length > 0);
  // Links to detailed reports only where the files exist; the selftest evidence page and the run list are there.
  assert.match(html, new RegExp(`href="${r.testRun}/evidence.html">Evidence`));
  assert.doesNotMatch(html, /allure-report\/index\.html/, 'no link to an Allure report that was not generated');
  assert.ok(html.includes(r.previousRun) && html.includes(r.selftestRun));
  // Static: nothing is fetched from anywhere.
  assert.doesNotMatch(html, /<link |src="http|href="http|@import|url\(http/);
});

test('a load run links its k6 dashboard export and summary when present', () => {
  const r = makeReports();
  const id = '2026-01-03T10-00-00-load-4';
  fs.mkdirSync(path.join(r.dir, id));
  fs.writeFileSync(path.join(r.dir, id, 'k6-dashboard.html'), '<!doctype html><title>k6</title>');
  fs.writeFileSync(path.join(r.dir, id, 'k6-summary.json'), '{}');
  fs.writeFileSync(path.join(r.dir, id, 'summary.json'), JSON.stringify({ id, kind: 'load', date: '2026-01-03T10:00:00.000Z', target: 't', reference: true, deviations: [], exitCode: 0, checks: [], verdicts: [] }));
  buildAll(opts(r.dir));
  const html = read(path.join(r.dir, 'index.html'));
  const load = /<tr data-kind="load">[\s\S]*?<\/tr>/.exec(html)?.[0] ?? '';
  assert.ok(load.includes(`href="${id}/k6-dashboard.html">k6 dashboard</a>`), load);
  assert.ok(load.includes(`href="${id}/k6-summary.json">k6 summary</a>`));
  assert.match(row(html, 'FAKE-FAIL-01'), /data-verdict="fail"/, 'the matrix still shows the latest conformance run');
});

test('landing page lists every clause of the real catalogue, not-run when no run exists', () => {
  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'ces-empty-'));
  buildLanding({ reportsDir: dir });
  const html = read(path.join(dir, 'index.html'));
  const live = loadClauses().filter((c) => !c.retired);
  assert.equal((html.match(/<tr id="clause-/g) ?? []).length, live.length);
  for (const c of live) assert.match(row(html, c.id), /data-verdict="not-run"/, c.id);
  assert.match(html, /No run yet/);
});

test('evidence page: failure reason, masked request/response in order, sequence and timeline pictures, clause links', () => {
  const r = makeReports();
  buildAll(opts(r.dir));
  const html = read(path.join(r.dir, r.testRun, 'evidence.html'));
  const ev = readPlaywrightEvidence(path.join(r.dir, r.testRun, 'results.json'));
  const failing = ev.find((k) => k.outcome === 'failed')!;
  const section = new RegExp(`<section class="check failed" id="${failing.anchor}"[\\s\\S]*?</section>`).exec(html)?.[0] ?? '';
  assert.ok(section, 'the failing check has its own anchored section');
  assert.match(section, /class="reason"[^>]*>Error: key was \*\*\*/, 'the reason is shown, masked');
  assert.match(section, /<svg [^>]*class="ces-sequence"/, 'sequence diagram inline');
  assert.match(section, /no reply within 2 s/);
  assert.match(section, /GET https:\/\/127\.0\.0\.1:40000\/api\/2\/operator\?key=\*\*\*<\/code> → <span class="status">/);
  assert.match(section, /href="\.\.\/index\.html#clause-FAKE-FAIL-01"/);
  assert.doesNotMatch(section, /sequence: bot greets the visitor\.svg/, 'the attached SVG copy is not shown twice');
  assert.match(html, /<svg [^>]*class="ces-timeline"/, 'timeline inline');
  assert.ok(html.indexOf(failing.anchor) < html.indexOf('class="check passed"'), 'failed checks come first');
  // The selftest page shows its mutations and links the catching check's evidence in the sub-run.
  const st = read(path.join(r.dir, r.selftestRun, 'evidence.html'));
  assert.match(st, /<tr id="mut-dev-caught">[\s\S]*?href="#dev-caught--check-failing-call/);
  assert.match(st, /<tr id="mut-dev-missed">[\s\S]*?no — missed/);
  assert.match(st, /id="dev-caught--check-failing-call/);
});

test('no secret survives anywhere under the reports folder (plain, base64, zipped), and the check can fail', () => {
  const r = makeReports({ plantLeaks: true });
  const secrets = [...Object.values(SECRETS), ...Object.values(UNREGISTERED)];
  // Control: the planted secrets are really there, so this test would catch a writer that bypasses masking.
  const before = findLeaks(r.dir, secrets);
  for (const s of secrets) assert.ok(before.some((l) => l.secret === s), `planted ${s} is found before scrubbing`);
  assert.ok(before.some((l) => l.where.startsWith('zip:')), 'the zipped Playwright data is searched');
  scrubDir(r.dir);
  buildAll(opts(r.dir));
  assert.deepEqual(findLeaks(r.dir, secrets), []);
  // And a plain grep, independent of findLeaks.
  for (const f of allFiles(r.dir)) {
    const text = read(f);
    for (const s of secrets) assert.ok(!text.includes(s), `${path.relative(r.dir, f)} contains ${s.slice(0, 6)}…`);
  }
  // The scrubbed Playwright archive is still a valid zip with the masked data.
  const pw = read(path.join(r.dir, r.testRun, 'playwright', 'index.html'));
  const data = /base64,([A-Za-z0-9+/=]+)</.exec(pw)![1]!;
  const entries = readZip(Buffer.from(data, 'base64'));
  assert.equal(entries[0]!.name, 'report.json');
  assert.equal(JSON.parse(entries[0]!.data.toString()).password, '***');
});

test('zip round trip', () => {
  const entries = [{ name: 'a.json', data: Buffer.from('{"a":1}') }, { name: 'dir/b.txt', data: Buffer.from('x'.repeat(5000)) }];
  assert.deepEqual(readZip(writeZip(entries)).map((e) => [e.name, e.data.toString()]), entries.map((e) => [e.name, e.data.toString()]));
});

test('compare: clauses whose verdict changed between two runs, including clauses one run does not know', () => {
  const r = makeReports();
  const runs = readRuns(r.dir);
  const a = findRun(runs, r.previousRun)!;
  const b = findRun(runs, 'latest-test')!;
  assert.equal(b.id, r.testRun);
  assert.equal(findRun(runs, path.join(r.dir, r.selftestRun) + '/')?.id, r.selftestRun, 'a folder path works too');
  const changes = compareRuns(a, b, CLAUSES);
  assert.deepEqual(changes.map((c) => `${c.id}:${c.before}->${c.after}`), [
    'FAKE-FAIL-01:pass->fail', 'FAKE-GONE-01:pass->absent', 'FAKE-SKIP-01:absent->skipped',
  ]);
  assert.ok(!changes.some((c) => c.id === 'FAKE-NORUN-01'), 'absent -> not-run is no change');
  const table = compareTable(a, b, changes);
  assert.match(table, /FAKE-FAIL-01\s+MUST\s+fake\s+pass\s+fail/);
  assert.match(table, /3 clause\(s\) changed verdict \(1 newly failing, 0 no longer failing\)/);
  assert.deepEqual(compareRuns(b, b, CLAUSES), []);
});

test('`ces report --compare A B` prints the table and exits 0; an unknown run is a usage error (2); `ces report` rebuilds pages', () => {
  const r = makeReports();
  const env = { ...process.env, CES_REPORTS_DIR: r.dir };
  const cmp = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'report', '--compare', r.previousRun, r.testRun], { env, encoding: 'utf8' });
  assert.equal(cmp.status, 0, cmp.stderr);
  assert.match(cmp.stdout, /FAKE-FAIL-01 .* pass +fail/);
  const bad = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'report', '--compare', r.previousRun, 'no-such-run'], { env, encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown run no-such-run/);
  const rebuild = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'report'], { env, encoding: 'utf8' });
  assert.equal(rebuild.status, 0, rebuild.stderr);
  assert.ok(fs.existsSync(path.join(r.dir, 'index.html')));
  assert.ok(fs.existsSync(path.join(r.dir, r.testRun, 'evidence.html')));
  assert.ok(fs.existsSync(path.join(r.dir, r.selftestRun, 'evidence.html')));
});

test('proofs: caught wins over missed for a clause with several deviations', () => {
  const runs = [{ id: 's', kind: 'selftest', date: '', target: '', reference: true, deviations: [], exitCode: 1, checks: [], verdicts: [],
    mutations: [{ deviation: 'a', clauses: ['X-1'], caught: false, failedChecks: [] }, { deviation: 'b', clauses: ['X-1'], caught: true, failedChecks: ['t'] }] }];
  const p = proofsOf(runs, [{ id: 'a', clauses: ['X-1'], description: '', area: 'x' }, { id: 'b', clauses: ['X-1'], description: '', area: 'x' }], [{ id: 'X-1', severity: 'MUST', text: '', source: '', area: 'x' }], { partnerVariants: [], projectTests: [], exceptions: [] }).get('X-1');
  assert.deepEqual(p?.deviations, ['b']);
  assert.deepEqual(p?.notByItself, ['a']);
});

test('pictures: escaped text, measured times, expected webhook schedule (first, +10 s, +20 s after that)', () => {
  const seq = sequenceSvg({ kind: 'sequence', title: 'evil <script>alert(1)</script>', calls: [
    { from: 'service', to: 'connector', label: 'POST /messages <b>', at: 15, ms: 2300, failed: true, note: 'reply "hi" & bye' },
    { from: 'connector', to: 'service', label: 'reply', at: 2400 },
  ] });
  assert.doesNotMatch(seq, /<script|<b>/);
  assert.match(seq, /evil &lt;script&gt;/);
  assert.match(seq, /2\.30 s/);
  assert.match(seq, /stroke-dasharray="6 3"/, 'a failed call is drawn dashed');
  assert.match(seq, /reply &quot;hi&quot; &amp; bye/);
  assert.deepEqual(expectedAttemptTimes(), [0, 10_000, 30_000]);
  const tl = timelineSvg({ kind: 'timeline', title: 'closed', attempts: [{ attempt: 2, atMs: 10_040, status: 503 }, { attempt: 1, atMs: 0, status: 503 }, { attempt: 3, atMs: 30_100, status: 200 }] });
  assert.match(tl, /expected first/);
  assert.match(tl, /expected \+10 s/);
  assert.match(tl, /expected \+20 s/);
  assert.match(tl, /#3 200/);
  assert.match(tl, /\(\+10\.04 s\)/, 'delay since the previous attempt');
  assert.match(tl, /\(\+20\.06 s\)/);
  assert.equal((tl.match(/<circle [^>]*fill="#1a7f37"/g) ?? []).length, 1, 'only the 200 is green');
  assert.equal((tl.match(/<circle [^>]*fill="#cf222e"/g) ?? []).length, 2, 'the 503s are red');
  assert.match(timelineSvg({ kind: 'timeline', title: 'none', attempts: [] }), /no attempt recorded/);
});

test('Allure metadata of a check: strongest severity mapped (MUST→critical, SHOULD→normal, MAY→minor, REF→trivial), area, clause stories and links', async () => {
  const { allureAnnotations } = await import('../suites/fixtures.js');
  const all = loadClauses().filter((c) => !c.retired);
  const pick = (s: string) => all.find((c) => c.severity === s);
  const expected: Record<string, string> = { MUST: 'critical', SHOULD: 'normal', MAY: 'minor', REF: 'trivial' };
  for (const [sev, allure] of Object.entries(expected)) {
    const c = pick(sev);
    if (!c) continue;
    const a = allureAnnotations([c.id]);
    assert.deepEqual(a.filter((x) => x.type === '@allure.label.severity').map((x) => x.description), [allure], sev);
    assert.deepEqual(a.filter((x) => x.type === '@allure.label.feature').map((x) => x.description), [c.area]);
    assert.deepEqual(a.filter((x) => x.type === '@allure.label.story').map((x) => x.description), [c.id]);
    assert.deepEqual(a.filter((x) => x.type === 'tms').map((x) => x.description), [c.id]);
  }
  const must = pick('MUST');
  const ref = pick('REF');
  if (must && ref) assert.equal(allureAnnotations([ref.id, must.id]).find((x) => x.type === '@allure.label.severity')?.description, 'critical', 'the strongest clause decides');
});

test('scrubDir leaves the files and folders it is told to skip (masked already, or still being written), and masks the rest', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-skip-'));
  try {
    addSecret('skip-test-secret-0123');
    for (const f of ['results.json', 'junit.xml', 'playwright/index.html', 'check/partner.json']) {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.writeFileSync(path.join(dir, f), '{"k": "skip-test-secret-0123"}');
    }
    const changed = scrubDir(dir, { skip: ['results.json', 'playwright'] }).map((f) => path.relative(dir, f)).sort();
    assert.deepEqual(changed, ['check/partner.json', 'junit.xml']);
    assert.deepEqual(findLeaks(dir, ['skip-test-secret-0123']).map((l) => path.relative(dir, l.file)).sort(), ['playwright/index.html', 'results.json'], 'findLeaks still searches them all');
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});
