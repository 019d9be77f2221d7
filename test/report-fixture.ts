// Builds a throwaway reports folder from test/fixtures/reports (Playwright JSON with planted secrets) for the report-builder and browser tests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clause, Deviation } from '../lib/catalogue.js';
import { readPlaywrightResults, clauseVerdicts, exitCodeOf, writeZip } from '../lib/results.js';
import { writeRunSummary, type RunSummary } from '../lib/landing.js';
import { addSecret } from '../lib/mask.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURE_RESULTS = path.join(here, 'fixtures', 'reports', 'results.json');

/** Secrets planted in the fixture (already in results.json's error message) and injected by the builder below. */
export const SECRETS = {
  apiKey: 'fixturekey0123456789abcdefcafe01',
  otherKey: 'fixturekey0123456789abcdefcafe02',
  password: 'fixture-pw-1001',
  bearer: 'eyJfixtureBearerToken.abc123def456ghi789',
  signing: 'whsec-fixture-signing-secret-42',
};

/** Secrets nobody registered with lib/mask.ts (a check invented them): caught by their field names. */
export const UNREGISTERED = { subscription: 'sub-secret-invented-by-a-check-77', password: 'Invented-Passw0rd-99' };

/** A catalogue of its own, so the tests do not depend on the clauses other engineers are still writing. */
export const CLAUSES: Clause[] = [
  { id: 'FAKE-PASS-01', severity: 'MUST', text: 'Operators are listed.', source: 'REST API / Operators', area: 'fake' },
  { id: 'FAKE-FAIL-01', severity: 'MUST', text: 'The key is <never> shown & "quoted".', source: 'Security', area: 'fake' },
  { id: 'FAKE-WARN-01', severity: 'SHOULD', text: 'Advisory behaviour.', source: 'Notes', area: 'fake' },
  { id: 'FAKE-SKIP-01', severity: 'MAY', text: 'Needs the clock.', source: 'Time', area: 'timing' },
  { id: 'FAKE-NORUN-01', severity: 'REF', text: 'Nobody checks this yet.', source: 'G99', area: 'timing' },
  { id: 'FAKE-OLD-01', severity: 'MUST', text: 'Retired clause.', source: 'old', area: 'fake', retired: true },
];
export const DEVIATIONS: Deviation[] = [
  { id: 'dev-caught', clauses: ['FAKE-FAIL-01'], description: 'caught by its checks', area: 'fake' },
  { id: 'dev-missed', clauses: ['FAKE-WARN-01'], description: 'missed by its checks', area: 'fake' },
  { id: 'dev-untested', clauses: ['FAKE-PASS-01'], description: 'not in the selftest run', area: 'fake' },
];

export interface FixtureReports { dir: string; testRun: string; selftestRun: string; previousRun: string }

/** Writes a test run (from the fixture results), an older test run and a selftest run under a fresh temporary folder. */
export function makeReports(opts: { plantLeaks?: boolean } = {}): FixtureReports {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-reports-'));
  for (const s of Object.values(SECRETS)) addSecret(s);
  const testRun = '2026-01-02T10-00-00-test-1';
  const previousRun = '2026-01-01T10-00-00-test-2';
  const selftestRun = '2026-01-02T11-00-00-selftest-3';
  const runDir = path.join(dir, testRun);
  fs.mkdirSync(path.join(runDir, 'test-output', 'gen-failing-call-leaks-the-key-in-its-message-gen'), { recursive: true });
  let results = fs.readFileSync(FIXTURE_RESULTS, 'utf8').replaceAll('<RUN>', runDir);
  if (opts.plantLeaks) {
    // A writer that forgot lib/mask.ts: an attachment with a bearer token and a signing secret, base64 as Playwright stores it.
    const report = JSON.parse(results);
    const body = JSON.stringify({ request: { method: 'POST', url: 'https://x.example/hook', headers: { authorization: `Bearer ${SECRETS.bearer}`, 'x-secret': SECRETS.signing },
      body: JSON.stringify({ callbackUrl: 'https://hook.example', secret: UNREGISTERED.subscription }) }, response: { status: 200, body: { key: SECRETS.otherKey } } });
    const form = `username=a%40b.example&password=${UNREGISTERED.password}&grant_type=password`;
    report.suites[0].specs[1].tests[0].results[0].attachments.push({ name: 'token call', contentType: 'application/json', body: Buffer.from(JSON.stringify({ request: { method: 'POST', body: form } })).toString('base64') });
    report.suites[0].specs[1].tests[0].results[0].attachments.push({ name: 'leaky call', contentType: 'application/json', body: Buffer.from(body).toString('base64') });
    results = JSON.stringify(report, null, 1);
  }
  fs.writeFileSync(path.join(runDir, 'results.json'), results);
  fs.writeFileSync(path.join(runDir, 'test-output', 'gen-failing-call-leaks-the-key-in-its-message-gen', 'error-context.md'),
    opts.plantLeaks ? `# Error\nkey was ${SECRETS.apiKey} and password ${SECRETS.password}\n` : '# Error\n');
  if (opts.plantLeaks) {
    fs.mkdirSync(path.join(runDir, 'embedded'), { recursive: true });
    fs.writeFileSync(path.join(runDir, 'embedded', 'target.json'), JSON.stringify({ api_key: SECRETS.apiKey, user: { username: 'a@b.example', password: SECRETS.password } }));
    fs.writeFileSync(path.join(runDir, 'junit.xml'), `<testsuites><testcase name="x"><failure message="key was ${SECRETS.apiKey}"/></testcase></testsuites>`);
    // Playwright's HTML report keeps its data zipped and base64-encoded inside index.html.
    fs.mkdirSync(path.join(runDir, 'playwright'), { recursive: true });
    const zip = writeZip([{ name: 'report.json', data: Buffer.from(JSON.stringify({ error: `key was ${SECRETS.apiKey}`, password: SECRETS.password })) }]);
    fs.writeFileSync(path.join(runDir, 'playwright', 'index.html'), `<!doctype html><html><body><template id="playwrightReportBase64">data:application/zip;base64,${zip.toString('base64')}</template></body></html>`);
  }
  const checks = readPlaywrightResults(path.join(runDir, 'results.json'));
  const verdicts = clauseVerdicts(checks, { reference: true }, CLAUSES);
  const summary = (id: string, kind: string, date: string, extra: Partial<RunSummary> = {}): RunSummary => ({
    id, kind, date, target: 'https://127.0.0.1:40000', reference: true, deviations: [], exitCode: exitCodeOf(checks, { reference: true }, CLAUSES),
    checks, verdicts: verdicts.map((v) => ({ id: v.clause.id, verdict: v.verdict, checks: v.checks.map((c) => c.title) })), ...extra,
  });
  writeRunSummary(runDir, summary(testRun, 'test', '2026-01-02T10:00:00.000Z'));
  fs.mkdirSync(path.join(dir, previousRun));
  writeRunSummary(path.join(dir, previousRun), summary(previousRun, 'test', '2026-01-01T10:00:00.000Z', {
    exitCode: 0, checks: [],
    verdicts: [{ id: 'FAKE-PASS-01', verdict: 'pass', checks: [] }, { id: 'FAKE-FAIL-01', verdict: 'pass', checks: [] }, { id: 'FAKE-WARN-01', verdict: 'warn', checks: [] }, { id: 'FAKE-GONE-01', verdict: 'pass', checks: [] }],
  }));
  fs.mkdirSync(path.join(dir, selftestRun));
  writeRunSummary(path.join(dir, selftestRun), summary(selftestRun, 'selftest', '2026-01-02T11:00:00.000Z', {
    exitCode: 1, checks: [], verdicts: [],
    mutations: [
      { deviation: 'dev-caught', clauses: ['FAKE-FAIL-01'], caught: true, failedChecks: ['failing call leaks the key in its message'] },
      { deviation: 'dev-missed', clauses: ['FAKE-WARN-01'], caught: false, failedChecks: [] },
    ],
  }));
  // The selftest's sub-run for the caught deviation reuses the fixture results (its evidence page links to them).
  fs.mkdirSync(path.join(dir, selftestRun, 'dev-caught'));
  fs.writeFileSync(path.join(dir, selftestRun, 'dev-caught', 'results.json'), results);
  return { dir, testRun, selftestRun, previousRun };
}

/** Every file under a folder. */
export function allFiles(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile())
    .map((d) => path.join((d as { parentPath?: string }).parentPath ?? dir, d.name));
}
