// Unit tests of the verdict vocabulary (lib/verdicts.ts): outcome per clause severity, precedence, harness errors, exit codes, --strict, wrapping, and how Playwright results are read into it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COUNTED, HarnessError, LABEL, LEGEND, VERDICT_ORDER, checkVerdict, countsLine, isHarnessError, runVerdict, strongest, verdictFor, wrapText, ANNOTATION, type Judged } from '../lib/verdicts.js';
import { readPlaywrightResults, clauseVerdicts, exitCodeOf, type CheckResult } from '../lib/results.js';
import { junitXml } from '../lib/junit.js';
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

test('harness errors are told apart from failures by their message', () => {
  assert.ok(isHarnessError(new HarnessError('the fixture could not start').message));
  assert.ok(isHarnessError('HarnessError: harness error: x'));
  assert.ok(isHarnessError("TypeError: Cannot read properties of undefined (reading 'foo')"));
  assert.ok(isHarnessError('\u001b[31mTest timeout of 3000ms exceeded while setting up "conversation".\u001b[39m'));
  assert.ok(isHarnessError('Error: harness: the shared conversation was not ready'));
  assert.ok(!isHarnessError('Error: custom reason\n\nexpect(received).toBe(expected)'));
  assert.ok(!isHarnessError('Error: connect ECONNREFUSED 127.0.0.1:9'), "the target's transport errors are failures of the target");
  assert.ok(!isHarnessError('Test timeout of 3000ms exceeded.'));
  // What Playwright throws for expect(undefined).toMatch(/re/) when the target left a header out: the target's failure.
  assert.ok(!isHarnessError('TypeError: expect(received).toMatch(expected)\n\nMatcher error: received value must be a string\n\nReceived has value: undefined'));
  assert.ok(isHarnessError('TypeError: expect(received).toMatch(expected)\n\nMatcher error: expected value must be a string or regular expression'));
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
  const spec = (title: string, status: string, result: object, annotations: object[] = []) => ({ title, file: 'x.spec.ts', tags: ['@V-MUST'], tests: [{ projectName: 'p', status, annotations, results: [{ duration: 5, ...result }] }] });
  const report = { suites: [{ title: 'x.spec.ts', file: 'x.spec.ts', specs: [
    spec('fails', 'unexpected', { error: { message: 'Error: wrong\n\nexpect(received).toBe(expected)' } }),
    spec('crashes', 'unexpected', { error: { message: "TypeError: Cannot read properties of undefined (reading 'x')" } }),
    spec('cannot judge', 'skipped', {}, [{ type: 'skip', description: 'not judged: no answer' }, { type: ANNOTATION.notJudged, description: 'no answer' }]),
    spec('lacks', 'skipped', {}, [{ type: 'skip', description: 'target lacks clock' }]),
    spec('variant', 'expected', {}, [{ type: ANNOTATION.warn, description: 'Java zoned date' }, { type: ANNOTATION.reproduction, description: 'curl -sS https://x' }]),
  ] }] };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-verdicts-'));
  const file = path.join(dir, 'results.json');
  fs.writeFileSync(file, JSON.stringify(report));
  const checks = readPlaywrightResults(file);
  const by = new Map(checks.map((c) => [c.title, c]));
  assert.equal(by.get('fails')?.outcome, 'failed');
  assert.equal(by.get('crashes')?.outcome, 'harness-error');
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
  assert.match(xml, /failures="1" errors="1" skipped="2"/);
  fs.rmSync(dir, { recursive: true, force: true });
});
