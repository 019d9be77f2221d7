// Unit tests of the verdict vocabulary (lib/verdicts.ts): outcome per clause severity, precedence, harness errors, exit codes, --strict, wrapping, and how Playwright results are read into it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COUNTED, HarnessError, LABEL, LEGEND, VERDICT_ORDER, checkVerdict, classifyOutcome, clauseReason, countsLine, failedClauses, runVerdict, strongest, verdictFor, wrapText, ANNOTATION, type Judged, type RunFacts } from '../lib/verdicts.js';
import { FACTS_FILE, factKey } from '../lib/run-facts.js';
import { readPlaywrightResults, clauseVerdicts, exitCodeOf, type CheckResult } from '../lib/results.js';
import { junitXml } from '../lib/junit.js';
import { targetLost } from '../cli/commands/test.js';
import { TARGET_LOST_FILE } from '../lib/preflight.js';
import type { Clause } from '../lib/catalogue.js';

const CATALOGUE: Clause[] = [
  { id: 'V-MUST', severity: 'MUST', text: 'm', source: 's', area: 'v' },
  { id: 'V-SHOULD', severity: 'SHOULD', text: 's', source: 's', area: 'v' },
  { id: 'V-MAY', severity: 'MAY', text: 'y', source: 's', area: 'v' },
  { id: 'V-REF', severity: 'REF', text: 'r', source: 's', area: 'v' },
];
const k = (outcome: Judged['outcome'], clauses: string[], extra: Partial<CheckResult> = {}): CheckResult => ({ title: `${outcome} ${clauses.join(',')}`, file: 'f', project: 'p', clauses, outcome, durationMs: 1, ...extra });

test('every verdict has a label and a legend; the labels are the vocabulary of the issue', () => {
  for (const v of VERDICT_ORDER) { assert.ok(LABEL[v]); assert.ok(LEGEND[v].length > 20, v); }
  assert.deepEqual(COUNTED.map((v) => LABEL[v]).sort(), ['FAIL', 'HARNESS ERROR', 'NOTE', 'NOT JUDGED', 'PASS', 'SKIP', 'WARN'].sort());
});

test('a check gives each clause a verdict by its outcome and the clause severity', () => {
  assert.equal(verdictFor(k('failed', []), 'MUST', false), 'fail');
  assert.equal(verdictFor(k('failed', []), 'SHOULD', false), 'warn');
  assert.equal(verdictFor(k('failed', []), 'MAY', false), 'note');
  assert.equal(verdictFor(k('failed', []), 'REF', true), 'fail', 'REF fails against the reference implementation');
  assert.equal(verdictFor(k('failed', []), 'REF', false), 'warn', 'REF is a warning elsewhere');
  assert.equal(verdictFor(k('failed', []), undefined, false), 'fail', 'a clause not in the catalogue counts as MUST');
  assert.equal(verdictFor(k('passed', [], { warnings: ['non-UUID id'] }), 'MUST', false), 'warn');
  assert.equal(verdictFor(k('passed', [], { notes: ['extra field'] }), 'MUST', false), 'note');
  assert.equal(verdictFor(k('passed', []), 'MUST', false), 'pass');
  assert.equal(verdictFor(k('not-judged', []), 'MUST', false), 'not-judged');
  assert.equal(verdictFor(k('skipped', []), 'MUST', false), 'skipped');
  assert.equal(verdictFor(k('harness-error', []), 'MAY', false), 'harness-error');
});

test('a clause takes the strongest verdict of its checks; none is not-run', () => {
  assert.equal(strongest(['pass', 'fail', 'harness-error']), 'fail');
  assert.equal(strongest(['pass', 'harness-error']), 'harness-error', 'a broken check leaves the clause unproven');
  assert.equal(strongest(['pass', 'not-judged']), 'pass');
  assert.equal(strongest(['skipped', 'not-judged']), 'not-judged');
  assert.equal(strongest([]), 'not-run');
  const v = new Map(clauseVerdicts([k('passed', ['V-MUST']), k('harness-error', ['V-SHOULD']), k('not-judged', ['V-MAY'])], { reference: false }, CATALOGUE).map((x) => [x.clause.id, x.verdict]));
  assert.deepEqual(Object.fromEntries(v), { 'V-MUST': 'pass', 'V-SHOULD': 'harness-error', 'V-MAY': 'not-judged', 'V-REF': 'not-run' });
});

test('a failed check naming no clause is a harness error', () => {
  assert.equal(checkVerdict(k('failed', []), () => undefined, false), 'harness-error');
  assert.equal(exitCodeOf([k('failed', [])], { reference: false }, CATALOGUE), 2);
});

test('exit code: 2 on a harness error, 1 on a FAIL or on a WARN with --strict, else 0; the sentence says the same', () => {
  const code = (checks: CheckResult[], strict = false) => exitCodeOf(checks, { reference: false, strict }, CATALOGUE);
  assert.equal(code([k('passed', ['V-MUST'])]), 0);
  assert.equal(code([k('failed', ['V-MUST'])]), 1);
  assert.equal(code([k('failed', ['V-SHOULD'])]), 0);
  assert.equal(code([k('failed', ['V-SHOULD'])], true), 1, '--strict makes WARN fail');
  assert.equal(code([k('failed', ['V-MAY'])], true), 0, 'NOTE never fails, even with --strict');
  assert.equal(code([k('passed', ['V-MUST'], { warnings: ['w'] })], true), 1, 'a pass with WARN fails under --strict');
  assert.equal(code([k('not-judged', ['V-MUST']), k('skipped', ['V-MUST'])]), 0, 'NOT JUDGED and SKIP never fail');
  assert.equal(code([k('harness-error', ['V-MAY']), k('failed', ['V-MUST'])]), 2, 'a harness error makes the run untrustworthy');
  for (const [vs, strict, label] of [[['pass'], false, 'PASS'], [['fail', 'pass'], false, 'FAIL'], [['warn'], false, 'PASS'], [['warn'], true, 'FAIL'], [['harness-error', 'fail'], false, 'HARNESS ERROR']] as const) {
    const r = runVerdict([...vs], { strict });
    assert.ok(r.sentence.startsWith(label), `${vs} strict=${strict}: ${r.sentence}`);
    assert.equal(r.code, label === 'PASS' ? 0 : label === 'FAIL' ? 1 : 2);
  }
});

test('how a check ended is decided from structure and types, never from message text', () => {
  const f = (over: Partial<RunFacts>): RunFacts => ({ status: 'failed', hookFailed: false, ended: true, harness: false, notJudged: false, ...over });
  assert.equal(classifyOutcome(f({})), 'failed', 'an assertion of the check failed');
  assert.equal(classifyOutcome(f({ status: 'timedOut' })), 'failed', 'the check itself ran out of time waiting on the target');
  assert.equal(classifyOutcome(f({ harness: true })), 'harness-error', 'a HarnessError was raised inside the check');
  assert.equal(classifyOutcome(f({ hookFailed: true })), 'harness-error', 'a fixture or hook failed (set-up, tear-down, beforeEach)');
  assert.equal(classifyOutcome(f({ status: 'timedOut', hookFailed: true })), 'harness-error', 'a fixture set-up or tear-down ran out of time');
  assert.equal(classifyOutcome(f({ ended: false })), 'harness-error', 'the worker exited before the check ended');
  assert.equal(classifyOutcome(f({ status: 'interrupted' })), 'harness-error');
  assert.equal(classifyOutcome(f({ status: 'passed' })), 'passed');
  assert.equal(classifyOutcome(f({ status: 'passed', harness: true })), 'harness-error', 'a harness error the check swallowed still counts');
  assert.equal(classifyOutcome(f({ status: 'skipped', notJudged: true })), 'not-judged');
  assert.equal(classifyOutcome(f({ status: 'skipped' })), 'skipped');
  // The type decides, whatever the message says: a HarnessError carries its code; an error that merely mentions "harness" is not one.
  const e = new HarnessError('partner-control', 'POST /_control/plan answered 500');
  assert.equal(e.code, 'partner-control');
  assert.match(e.message, /^harness error: /);
});

test('each assertion is judged under its own clause (G34): a REF decision taken otherwise never fails the MUST clause of the same check', () => {
  // A wrong key answered 401 with the spec's Forbidden message: REST-AUTH-04 (MUST) passed, REST-AUTH-05 (REF, 403) failed.
  const mixed = k('failed', ['V-MUST', 'V-REF'], { clauseResults: { 'V-MUST': { passed: 1, failed: [] }, 'V-REF': { passed: 0, failed: ['expected 403, got 401'] } }, failure: { unattributed: 0, stopped: false } });
  assert.equal(verdictFor(mixed, 'MUST', false, 'V-MUST'), 'pass');
  assert.equal(verdictFor(mixed, 'REF', false, 'V-REF'), 'warn', 'another implementation: WARN');
  assert.equal(verdictFor(mixed, 'REF', true, 'V-REF'), 'fail', 'the reference implementation: FAIL');
  assert.equal(verdictFor(mixed, 'MUST', true, 'V-MUST'), 'pass', 'even against the reference, the MUST clause keeps its own verdict');
  assert.equal(checkVerdict(mixed, (id) => CATALOGUE.find((c) => c.id === id)?.severity, false), 'warn');
  assert.deepEqual(failedClauses(mixed), ['V-REF']);
  assert.equal(clauseReason(mixed, 'V-REF'), 'expected 403, got 401');
  const cv = new Map(clauseVerdicts([mixed], { reference: false }, CATALOGUE).map((x) => [x.clause.id, x.verdict]));
  assert.equal(cv.get('V-MUST'), 'pass');
  assert.equal(cv.get('V-REF'), 'warn');
  // The run's exit code (as cli/run.ts finishRun: each check's verdict, then the run's): another target's run with a REF decision
  // taken otherwise and nothing else passes, exit 0; the same answers from the reference implementation fail it.
  assert.equal(exitCodeOf([mixed, k('passed', ['V-MUST'])], { reference: false }, CATALOGUE), 0, 'another implementation: WARN, exit 0');
  assert.equal(exitCodeOf([mixed, k('passed', ['V-MUST'])], { reference: true }, CATALOGUE), 1, 'the reference implementation: FAIL, exit 1');
  // Assertions outside any `under` belong to the primary clauses (those with no record): an unattributed failure fails them only.
  const primary = k('failed', ['V-MUST', 'V-REF'], { clauseResults: { 'V-REF': { passed: 1, failed: [] } }, failure: { unattributed: 1, stopped: false } });
  assert.equal(verdictFor(primary, 'MUST', false, 'V-MUST'), 'fail');
  assert.equal(verdictFor(primary, 'REF', false, 'V-REF'), 'pass');
  assert.deepEqual(failedClauses(primary), ['V-MUST']);
  // A MUST assertion under one clause stopped the check before the primary clause's own assertions ended: NOT JUDGED, never a pass.
  const stopped = k('failed', ['V-MUST', 'V-SHOULD'], { clauseResults: { 'V-MUST': { passed: 0, failed: ['no'] } }, failure: { unattributed: 0, stopped: true } });
  assert.equal(verdictFor(stopped, 'SHOULD', false, 'V-SHOULD'), 'not-judged');
  assert.match(clauseReason(stopped, 'V-SHOULD')!, /stopped at another clause's failure \(V-MUST\)/);
  // A check read from an older results file (no record of how it ended): every failure fails every clause, as before.
  assert.equal(verdictFor(k('failed', ['V-MUST', 'V-REF']), 'MUST', false, 'V-MUST'), 'fail');
  assert.deepEqual(failedClauses(k('failed', ['V-MUST', 'V-REF'])), ['V-MUST', 'V-REF']);
});

test('counts are over the area checked: not-run is never counted', () => {
  assert.equal(countsLine(['pass', 'pass', 'fail', 'not-run', 'not-judged']), '1 FAIL, 2 PASS, 1 NOT JUDGED');
  assert.equal(countsLine(['not-run']), 'nothing checked');
});

test('reasons wrap at word boundaries and are never cut', () => {
  const text = 'the connector answered idConversation "abc" which is not a UUID; the service joins it and uses it on every later call of that conversation';
  const wrapped = wrapText(text, 40, '    ');
  assert.equal(wrapped.replace(/\n\s+/g, ' '), text, 'nothing lost');
  for (const line of wrapped.split('\n')) assert.ok(line.trimStart().length <= 40, line);
  const long = 'x'.repeat(60);
  assert.equal(wrapText(`a ${long} b`, 20), `a\n${long}\nb`, 'a word longer than a line stays whole');
});

test('Playwright results are read into the vocabulary: harness errors, not judged, WARN/NOTE annotations, reproductions', () => {
  const ended = { type: ANNOTATION.ended, description: JSON.stringify({ unattributed: 1, stopped: false }) };
  const spec = (title: string, status: string, result: object, annotations: object[] = []) => ({ title, file: 'x.spec.ts', tags: ['@V-MUST'], tests: [{ projectName: 'p', status, annotations, results: [{ duration: 5, status: status === 'skipped' ? 'skipped' : status === 'expected' ? 'passed' : 'failed', ...result }] }] });
  const report = { suites: [{ title: 'x.spec.ts', file: 'x.spec.ts', specs: [
    spec('fails', 'unexpected', { error: { message: 'Error: wrong\n\nexpect(received).toBe(expected)' } }, [ended]),
    spec('malformed answer', 'unexpected', { error: { message: "TypeError: Cannot read properties of undefined (reading 'x')" } }, [ended]),
    spec('partner down', 'unexpected', { error: { message: 'Error: wrong\n\nexpect(received).toBe(expected)' } }, [ended, { type: ANNOTATION.harness, description: 'partner-control: POST /_control/plan answered 500' }]),
    spec('worker exited', 'unexpected', { error: { message: 'Error: wrong' } }),
    spec('teardown broke', 'unexpected', { error: { message: 'Error: teardown' } }, [ended]),
    spec('cannot judge', 'skipped', {}, [{ type: 'skip', description: 'not judged: no answer' }, { type: ANNOTATION.notJudged, description: 'no answer' }]),
    spec('lacks', 'skipped', {}, [{ type: 'skip', description: 'target lacks clock' }]),
    spec('variant', 'expected', {}, [{ type: ANNOTATION.warn, description: 'Java zoned date' }, { type: ANNOTATION.reproduction, description: 'curl -sS https://x' }]),
  ] }] };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-verdicts-'));
  const file = path.join(dir, 'results.json');
  fs.writeFileSync(file, JSON.stringify(report));
  fs.writeFileSync(path.join(dir, FACTS_FILE), JSON.stringify({ [factKey('p', 'x.spec.ts', 'teardown broke')]: { hookFailed: true } }));
  const checks = readPlaywrightResults(file);
  const by = new Map(checks.map((c) => [c.title, c]));
  assert.equal(by.get('fails')?.outcome, 'failed');
  assert.equal(by.get('malformed answer')?.outcome, 'failed', "a TypeError on the target's malformed answer is the target's failure");
  assert.equal(by.get('partner down')?.outcome, 'harness-error');
  assert.match(by.get('partner down')?.reason ?? '', /^partner-control: /);
  assert.equal(by.get('worker exited')?.outcome, 'harness-error');
  assert.equal(by.get('teardown broke')?.outcome, 'harness-error');
  assert.equal(by.get('cannot judge')?.outcome, 'not-judged');
  assert.equal(by.get('cannot judge')?.reason, 'no answer');
  assert.equal(by.get('lacks')?.outcome, 'skipped');
  assert.deepEqual(by.get('variant')?.warnings, ['Java zoned date']);
  assert.deepEqual(by.get('variant')?.reproductions, ['curl -sS https://x']);
  assert.equal(exitCodeOf(checks, { reference: false }, CATALOGUE), 2);
  // JUnit speaks the same words: FAIL is <failure>, HARNESS ERROR is <error>, NOT JUDGED and SKIP are <skipped>.
  const xml = junitXml('t', checks, checks.map((c) => checkVerdict(c, () => 'MUST', false)));
  assert.match(xml, /<failure type="FAIL"/);
  assert.match(xml, /<error type="HARNESS ERROR"/);
  assert.match(xml, /<skipped message="NOT JUDGED: no answer"\/>/);
  assert.match(xml, /<skipped message="SKIP: target lacks clock"\/>/);
  assert.match(xml, /<property name="verdict" value="WARN"\/>/);
  assert.match(xml, /failures="2" errors="3" skipped="2"/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a lost target: the checks that recorded a request without answer, or timed out, are NOT JUDGED; a failure that only says so in its text stays FAIL', () => {
  const ended = { type: ANNOTATION.ended, description: JSON.stringify({ unattributed: 1, stopped: false }) };
  const spec = (title: string, result: object, annotations: object[] = []) => ({ title, file: 'x.spec.ts', tags: ['@V-MUST'], tests: [{ projectName: 'p', status: 'unexpected', annotations, results: [{ duration: 5, status: 'failed', ...result }] }] });
  const report = { suites: [{ title: 'x.spec.ts', file: 'x.spec.ts', specs: [
    spec('refused', { error: { message: 'Error: connect failed' } }, [ended, { type: ANNOTATION.noAnswer, description: 'GET https://t/x: ECONNREFUSED' }]),
    spec('timed out', { status: 'timedOut', error: { message: 'waiting' } }, [ended]),
    // Its text looks like a lost connection, but its requests were all answered: the target answered wrongly.
    spec('wrong answer', { error: { message: 'expected "ECONNREFUSED socket hang up" to be "ok"' } }, [ended]),
    // A refusal the check expected (the http:// form of a base): it passed, and its record says nothing of a lost target.
    { ...spec('refusal expected', { status: 'passed' }, [ended, { type: ANNOTATION.noAnswer, description: 'GET http://t/x: ECONNREFUSED' }]), tests: [{ projectName: 'p', status: 'expected', annotations: [ended, { type: ANNOTATION.noAnswer, description: 'GET http://t/x: ECONNREFUSED' }], results: [{ duration: 5, status: 'passed' }] }] },
  ] }] };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-lost-'));
  try {
    fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(report));
    const checks = readPlaywrightResults(path.join(dir, 'results.json'));
    assert.equal(targetLost(dir, checks), undefined, 'no target-lost.json: the target stayed, every failure stands');
    assert.deepEqual(checks.map((c) => c.outcome), ['failed', 'failed', 'failed', 'passed']);
    assert.equal(checks[3]!.unanswered, undefined, 'a passed check carries no sign of a lost target');
    fs.writeFileSync(path.join(dir, TARGET_LOST_FILE), JSON.stringify({ since: '2026-01-01T00:00:00.000Z', cause: 'connection refused', check: 'other' }));
    const lost = targetLost(dir, checks);
    const by = new Map(checks.map((c) => [c.title, c]));
    assert.equal(by.get('refused')?.outcome, 'not-judged');
    assert.match(by.get('refused')?.reason ?? '', /^the target stopped answering at .*\(this check saw: GET https:\/\/t\/x: ECONNREFUSED\)$/);
    assert.equal(by.get('timed out')?.outcome, 'not-judged');
    assert.match(by.get('timed out')?.reason ?? '', /this check saw: its time-out \(5 ms\)/);
    assert.equal(by.get('wrong answer')?.outcome, 'failed');
    assert.equal(by.get('refusal expected')?.outcome, 'passed');
    assert.equal(lost?.notJudged, 2);
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});

test('issue 38: a clause is judged by its own assertions only; its recorded failure stands whatever the check\'s ending', () => {
  // A check naming one clause owns every assertion it makes: a failure outside any `under` is its failure, even when its
  // `under` records passed (it was PASS while Playwright marked the check failed).
  const owned = k('failed', ['V-MUST', 'V-REF'], { clauseResults: { 'V-MUST': { passed: 2, failed: [] }, 'V-REF': { passed: 3, failed: [] } }, failure: { unattributed: 1, stopped: false, owner: 'V-MUST' }, reason: 'expected 3 rows' });
  assert.equal(verdictFor(owned, 'MUST', true, 'V-MUST'), 'fail');
  assert.equal(verdictFor(owned, 'REF', true, 'V-REF'), 'pass', 'the answers\' own REF clause keeps its verdict');
  assert.deepEqual(failedClauses(owned), ['V-MUST']);
  assert.equal(clauseReason(owned, 'V-MUST'), 'expected 3 rows');
  // A failure of the reference's OpenAPI answers is its own REF clause's only: the check's MUST clause passes on its own assertions.
  const openapi = k('failed', ['V-MUST', 'V-REF'], { clauseResults: { 'V-REF': { passed: 0, failed: ['GET /operator: 200 not documented'] } }, failure: { unattributed: 0, stopped: false, owner: 'V-MUST' } });
  assert.equal(verdictFor(openapi, 'MUST', true, 'V-MUST'), 'pass');
  assert.equal(verdictFor(openapi, 'REF', true, 'V-REF'), 'fail');
  // A failure recorded before the check ended NOT JUDGED (a later step could not be judged), or before a harness error, stands.
  const later = k('not-judged', ['V-MUST', 'V-REF'], { clauseResults: { 'V-REF': { passed: 0, failed: ['offsite channel named sms2'] } }, reason: 'no social conversation' });
  assert.equal(verdictFor(later, 'REF', true, 'V-REF'), 'fail');
  assert.equal(verdictFor(later, 'MUST', true, 'V-MUST'), 'not-judged');
  assert.deepEqual(failedClauses(later), ['V-REF']);
  const broke = k('harness-error', ['V-MUST', 'V-SHOULD'], { clauseResults: { 'V-SHOULD': { passed: 0, failed: ['no Retry-After'] } } });
  assert.equal(verdictFor(broke, 'SHOULD', false, 'V-SHOULD'), 'warn');
  assert.equal(verdictFor(broke, 'MUST', false, 'V-MUST'), 'harness-error');
  assert.equal(checkVerdict(broke, (id) => CATALOGUE.find((c) => c.id === id)?.severity, false), 'harness-error', 'the run still says the harness broke (exit 2)');
  assert.deepEqual(failedClauses(broke), [], 'a harness error never proves a clause');
  // A check naming several clauses that passed without one assertion of one of them: that one is not judged by it, never PASS.
  const silent = k('passed', ['V-MUST', 'V-SHOULD'], { clauseResults: { 'V-MUST': { passed: 2, failed: [] } }, failure: { unattributed: 0, stopped: false } });
  assert.equal(verdictFor(silent, 'MUST', false, 'V-MUST'), 'pass');
  assert.equal(verdictFor(silent, 'SHOULD', false, 'V-SHOULD'), 'not-judged');
  assert.match(clauseReason(silent, 'V-SHOULD')!, /made no assertion of it/);
});

test('issue 38: a failed set-up step gives its own clause\'s verdict and NOT JUDGED for the rest, exit 1 against the reference (not 2)', () => {
  // The check failed softly under the set-up step's REF clause, then ended NOT JUDGED naming the step (suites/verdicts.ts step).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-step-'));
  const file = path.join(dir, 'results.json');
  fs.writeFileSync(file, JSON.stringify({ suites: [{ title: 'x.spec.ts', file: 'webhooks/x.spec.ts', specs: [{
    title: 'an event arrives', file: 'webhooks/x.spec.ts', tags: ['@V-MUST'],
    tests: [{ projectName: 'suites', annotations: [], results: [{ status: 'failed', duration: 5, error: { message: 'G17: a subscription is created with 201' }, annotations: [
      { type: ANNOTATION.clause, description: JSON.stringify({ clause: 'V-REF', failed: 'expected 201, got 500', failsRun: true }) },
      { type: ANNOTATION.notJudged, description: 'the set-up step POST {platform_url}/webhooks failed (V-REF): expected 201, got 500' },
      { type: 'skip', description: 'not judged: the set-up step POST {platform_url}/webhooks failed (V-REF): expected 201, got 500' },
      { type: ANNOTATION.ended, description: JSON.stringify({ unattributed: 0, stopped: false, owner: 'V-MUST' }) },
    ] }] }],
  }] }] }));
  const [c] = readPlaywrightResults(file);
  assert.equal(c!.outcome, 'not-judged');
  assert.deepEqual(c!.clauses.sort(), ['V-MUST', 'V-REF'], 'the step\'s clause is one of the check\'s clauses');
  const v = new Map(clauseVerdicts([c!], { reference: true }, CATALOGUE).map((x) => [x.clause.id, x.verdict]));
  assert.equal(v.get('V-REF'), 'fail');
  assert.equal(v.get('V-MUST'), 'not-judged');
  assert.equal(exitCodeOf([c!], { reference: true }, CATALOGUE), 1);
  assert.equal(exitCodeOf([c!], { reference: false }, CATALOGUE), 0, 'another implementation: a WARN');
  fs.rmSync(dir, { recursive: true, force: true });
});
