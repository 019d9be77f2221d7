// Faults of the harness itself are HARNESS ERROR, never a verdict on the target: a fixture that throws (set-up or tear-down), a clock-lock wait that would outlive its check, a fake partner gone; in `ces test` and in `ces selftest` (exit 2, never "caught").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from '../lib/paths.js';
import type { RunSummary } from '../lib/landing.js';
import { runCesReported } from './ces-process.js';

const CES = path.join(ROOT, 'bin', 'ces.js');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-harness-faults-'));
let serve: ChildProcess | undefined;
let ready: Record<string, any> = {};

before(async () => {
  const file = path.join(work, 'ready.json');
  serve = spawn(process.execPath, [CES, 'serve', '--ready-file', file], { cwd: ROOT, stdio: 'ignore' });
  const deadline = Date.now() + 60_000;
  while (!fs.existsSync(file) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  ready = JSON.parse(fs.readFileSync(file, 'utf8'));
});
after(() => { serve?.kill('SIGKILL'); fs.rmSync(work, { recursive: true, force: true }); });

/** Runs `ces <args>` with its reports in a folder of its own; its exit code, output and summary. */
const ces = (args: string[], env: Record<string, string> = {}) => runCesReported(args, work, env);

/** Every check of the run broke in the harness: HARNESS ERROR, no FAIL, exit 2, said so. */
function allHarness(r: { code: number | null; out: string; summary: RunSummary }, what: string): void {
  const checks = r.summary.checks;
  assert.ok(checks.length > 0, `${what}: checks ran\n${r.out.slice(-2000)}`);
  assert.deepEqual(checks.map((c) => c.outcome).filter((o) => o !== 'harness-error'), [], `${what}: every check is a harness error\n${r.out.slice(-2000)}`);
  assert.deepEqual(r.summary.verdicts.filter((v) => v.verdict === 'fail').map((v) => v.id), [], `${what}: no clause FAILs`);
  assert.equal(r.code, 2, `${what}: exit 2\n${r.out.slice(-2000)}`);
  assert.match(r.out, /HARNESS ERROR/);
}

/**
 * One `ces test` run meets six faults, each in checks of its own: four injected (CES_HARNESS_FAULT=FAULT@CLAUSE,...: a check meets
 * the fault of a clause it names); the sink gone (the run's target names an address that refuses connections; pre-flight skipped,
 * as if it died after it), which only the webhook checks reach; and the clock lock held alone by this process (as a check moving
 * the service clock would) for longer than a check may last (--timeout 15), which only WH-RETRY-04's check takes. Each test below
 * judges its fault by its own checks' reasons, and the run as a whole by allHarness: every check a harness error, no clause FAIL,
 * exit 2.
 */
const FAULTS = 'fixture-throws@REST-AUTH-01,teardown-throws@REST-AUTH-03,unclaimed-assertion@AUTH-TOKEN-04,soft-inside-under@REST-AUTH-04';
const GREP = '@REST-AUTH-0[13]\\b|grant_type=PASSWORD issues no token|a request without any key is Forbidden|@WH-SUB-01\\b|@WH-RETRY-04\\b';
let faultsRun: ReturnType<typeof ces> | undefined;
const faulty = () => faultsRun ??= (async () => {
  const dead = path.join(work, 'dead-sink.json');
  fs.writeFileSync(dead, JSON.stringify({ ...ready, sink_url: 'https://127.0.0.1:9' }), { mode: 0o600 });
  // The suites' clock lock of this target (suites/clock-lock.ts: a folder keyed by its base_url), held alone by this process.
  const dir = path.join(os.tmpdir(), 'ces-clock-lock-' + crypto.createHash('sha256').update(ready.base_url).digest('hex').slice(0, 12));
  fs.mkdirSync(dir, { recursive: true });
  const marker = path.join(dir, `exclusive-${String(Date.now()).padStart(15, '0')}-${process.pid}-${crypto.randomUUID()}`);
  fs.writeFileSync(marker, '');
  try {
    return await ces(['test', '--target', dead, '--no-preflight', '--suite', 'rest,auth,webhooks', '--grep', GREP, '--timeout', '15', '--no-allure', '--workers', '1'], { CES_HARNESS_FAULT: FAULTS });
  } finally { fs.rmSync(marker, { force: true }); }
})();
/** The checks of the run naming `clause`: at least one, each a harness error whose reason matches `reason`. */
function judgedBy(r: Awaited<ReturnType<typeof ces>>, clause: string, reason: RegExp): void {
  const mine = r.summary.checks.filter((c) => c.clauses.includes(clause));
  assert.ok(mine.length > 0, `a check naming ${clause} ran\n${r.out.slice(-2000)}`);
  for (const c of mine) {
    assert.equal(c.outcome, 'harness-error', `${c.title}: HARNESS ERROR`);
    assert.match((c.reason ?? '').replace(/\s+/g, ' '), reason, c.title);
  }
}

for (const [fault, clause] of [['fixture-throws', 'REST-AUTH-01'], ['teardown-throws', 'REST-AUTH-03']] as const) {
  test(`a fixture that throws (${fault}) is HARNESS ERROR in ces test, exit 2`, { timeout: 120_000 }, async () => {
    const r = await faulty();
    allHarness(r, fault);
    judgedBy(r, clause, fault === 'fixture-throws' ? /a fixture of the harness threw \(CES_HARNESS_FAULT=fixture-throws\)/ : /a fixture of the harness threw while tearing down/);
  });
}

test('an assertion no clause claims, in a check naming several clauses, is HARNESS ERROR check-bug naming the check and its place (never PASS, never another clause\'s FAIL)', { timeout: 120_000 }, async () => {
  const r = await faulty();
  allHarness(r, 'unclaimed-assertion');
  judgedBy(r, 'AUTH-TOKEN-04', /^check-bug: .*names 2 clauses \(AUTH-TOKEN-04, AUTH-TOKEN-05\) and asserts outside any under\(\) at suites\/fixtures\/target\.ts:\d+/);
  assert.match(r.out, /check-bug/);
  assert.match(r.out.replace(/\s+/g, ' '), /names 2 clauses \(AUTH-TOKEN-04, AUTH-TOKEN-05\) and asserts outside any under\(\) at suites\/fixtures\/target\.ts:\d+/);
});

test('expect.soft inside under() is refused (it would let the clause pass whatever it saw): HARNESS ERROR check-bug', { timeout: 120_000 }, async () => {
  const r = await faulty();
  allHarness(r, 'soft-inside-under');
  judgedBy(r, 'REST-AUTH-04', /^check-bug: .*expect\.soft inside under\('REST-AUTH-04'\)/);
  assert.match(r.out.replace(/\s+/g, ' '), /check-bug: .*expect\.soft inside under\('REST-AUTH-04'\)/);
});

test('a fixture that throws is HARNESS ERROR in ces selftest: exit 2, the deviation never counted as caught', { timeout: 180_000 }, async () => {
  const r = await ces(['selftest', '--only', 'rest-forbidden-text', '--no-baseline'], { CES_HARNESS_FAULT: 'fixture-throws' });
  assert.equal(r.code, 2, r.out.slice(-2000));
  const m = r.summary.mutations?.find((x) => x.deviation === 'rest-forbidden-text');
  assert.equal(m?.caught, false, 'a harness error never catches a deviation');
  assert.ok(m?.harnessErrors?.length, 'the harness errors are named');
  assert.match(r.out, /HARNESS ERROR/);
  // One second pass (the fallback to every check of its clauses), not settled either; no third run of the same checks.
  assert.equal(r.out.match(/second pass for /g)?.length, 1, r.out.slice(-2000));
  assert.match(r.out, /rest-forbidden-text: first pass .*harness error.*; second pass not settled either/);
});

test('ces selftest gives what the first pass did not settle one second pass, and says so: a harness error once is a flake, not exit 2; a run of alternatives runs again only its broken check', { timeout: 240_000 }, async () => {
  // One flake in the fault's check (REST-AUTH-04), one in a check of the alternative's run (the auth suite, AUTH-TOKEN-03's).
  const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ces-once-')), 'marker');
  for (const clause of ['REST-AUTH-04', 'AUTH-TOKEN-03']) fs.writeFileSync(`${marker}@${clause}`, '');
  const r = await ces(['selftest', '--only', 'rest-forbidden-text,auth-throttle-body-wrong', '--no-baseline'], { CES_HARNESS_FAULT: 'fixture-throws-once@REST-AUTH-04,fixture-throws-once@AUTH-TOKEN-03', CES_HARNESS_FAULT_MARKER: marker });
  fs.rmSync(path.dirname(marker), { recursive: true, force: true });
  assert.equal(r.code, 0, r.out.slice(-3000));
  assert.match(r.out, /rest-forbidden-text: first pass .*harness error.*; second pass caught: flaky under load/);
  assert.match(r.out, /second pass for 1 not settled by the first \(missed or a harness error\): auth-throttle-body-wrong/);
  assert.match(r.out, /the runs of alternatives again on the 1 check\(s\) that reported outside their clauses or broke[^\n]*: [^\n;]*wrong credentials/);
  assert.match(r.out, /\] settled auth-throttle-body-wrong \(alternative\): 1 check\(s\) ran again, nothing reported outside its run's clauses/);
  assert.match(r.out, /auth-throttle-body-wrong: first pass 1 harness error\(s\).*; second pass caught: flaky under load/);
  assert.deepEqual([...(r.summary.secondPass ?? [])].sort(), ['auth-throttle-body-wrong', 'rest-forbidden-text']);
  for (const id of ['rest-forbidden-text', 'auth-throttle-body-wrong']) {
    const m = r.summary.mutations?.find((x) => x.deviation === id);
    assert.equal(m?.caught, true, id);
    assert.equal(m?.harnessErrors, undefined, `${id}: the second pass stands: no harness error left`);
  }
  // The alternative's run kept the first pass's reports of its other checks: all of them counted, one ran again.
  const alt = r.summary.mutations?.find((x) => x.deviation === 'auth-throttle-body-wrong');
  assert.ok((alt?.checksRun ?? 0) > 10, `every check of the auth suite counted: ${alt?.checksRun}`);
});

test('a clock-lock wait that would outlive its check gives up before the check\'s time-out: HARNESS ERROR, not FAIL', { timeout: 120_000 }, async () => {
  const r = await faulty();
  allHarness(r, 'clock lock held');
  judgedBy(r, 'WH-RETRY-04', /^clock: /);
  assert.ok(r.ms < 90_000);
});

test('a fake partner gone mid-run (its control API unreachable) is HARNESS ERROR, not FAIL', { timeout: 120_000 }, async () => {
  const r = await faulty();
  allHarness(r, 'sink gone');
  judgedBy(r, 'WH-SUB-01', /^partner-control: .*127\.0\.0\.1:9\b/);
});
