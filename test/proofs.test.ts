// Unit tests of the proofs per clause (lib/proofs.ts): a clause is proven only by an assertion of its own failing; the record of partner variants and project tests is well-formed; every MUST clause is proven or listed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { ROOT } from '../lib/paths.js';
import { loadClauses, type Clause } from '../lib/catalogue.js';
import { MAX_EXCEPTIONS, clauseProofs, confirmedRecord, isProven, loadProofRecord, proofLine, readUnitPasses, unprovenMust } from '../lib/proofs.js';

const C = (id: string, severity: Clause['severity'] = 'MUST'): Clause => ({ id, severity, text: '', source: '', area: 'x' });
const NONE = { partnerVariants: [], projectTests: [], exceptions: [] };

test('a deviation proves only the clauses whose own assertions failed under it, not every clause it names', () => {
  const catalogue = [C('A'), C('B'), C('R', 'REF')];
  const devs = [{ id: 'd', clauses: ['A', 'B'], description: '', area: 'x' }, { id: 'e', clauses: ['R'], description: '', area: 'x' }];
  const run = { mutations: [{ deviation: 'd', clauses: ['A', 'B'], caught: true, failedClauses: ['A'] }] };
  const p = clauseProofs(catalogue, devs, run, NONE);
  assert.deepEqual(p.get('A')?.deviations, ['d']);
  assert.deepEqual(p.get('B')?.notByItself, ['d'], 'caught by A\'s assertion: no proof of B');
  assert.deepEqual(p.get('R')?.notRun, ['e']);
  assert.deepEqual(unprovenMust(catalogue, p).map((c) => c.id), ['B']);
  assert.match(proofLine(p.get('B')), /caught by another clause or missed: d/);
  // A summary written before per-clause records (no failedClauses): a caught deviation proves every clause it names.
  assert.ok(isProven(clauseProofs(catalogue, devs, { mutations: [{ deviation: 'd', clauses: ['A', 'B'], caught: true }] }, NONE).get('B')));
});

test('wire faults, partner variants and project tests prove clauses; an exception is listed, never a proof', () => {
  const catalogue = [C('W'), C('V'), C('T'), C('X')];
  const p = clauseProofs(catalogue, [], { wireFaults: [{ fault: 'f', clauses: ['W'], caught: true, failedClauses: ['W'] }] }, {
    partnerVariants: [{ id: 'v', side: 'connector', what: '', fails: ['V'], test: 't', name: 'v' }],
    projectTests: [{ clauses: ['T'], test: 'test/t.test.ts', name: 't', what: '' }],
    exceptions: [{ clause: 'X', reason: 'cannot break it' }],
  });
  for (const id of ['W', 'V', 'T']) assert.ok(isProven(p.get(id)), id);
  assert.ok(!isProven(p.get('X')));
  assert.deepEqual(unprovenMust(catalogue, p), [], 'the exception is listed, so not counted as unproven');
  assert.match(proofLine(p.get('X')), /^exception: cannot break it/);
});

test('the proof record names known MUST clauses, existing tests, and at most five exceptions', () => {
  const record = loadProofRecord();
  const byId = new Map(loadClauses().map((c) => [c.id, c]));
  for (const v of record.partnerVariants) {
    assert.ok(v.fails.length, `${v.id}: fails at least one clause`);
    for (const c of v.fails) assert.equal(byId.get(c)?.severity, 'MUST', `${v.id}: ${c} is a MUST clause of the catalogue`);
    assert.ok(fs.existsSync(path.join(ROOT, v.test)), `${v.id}: ${v.test} exists`);
  }
  for (const t of record.projectTests) {
    assert.ok(fs.existsSync(path.join(ROOT, t.test)), `${t.test} exists`);
    for (const c of t.clauses) assert.ok(byId.has(c), `${t.test}: ${c} is in the catalogue`);
  }
  assert.ok(record.exceptions.length <= MAX_EXCEPTIONS, `at most ${MAX_EXCEPTIONS} exceptions`);
  for (const e of record.exceptions) {
    assert.equal(byId.get(e.clause)?.severity, 'MUST', `exception ${e.clause} is a MUST clause`);
    assert.ok(e.reason.length > 20, `exception ${e.clause} says why`);
    assert.match(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), new RegExp(e.clause), `exception ${e.clause} is listed in the README`);
  }
});

test('issue 38: an entry of the proof record proves its clauses only when its test passed in the same run; run alone, none is confirmed', () => {
  const catalogue = [C('V'), C('W'), C('T')];
  const record = {
    partnerVariants: [
      { id: 'connector:slow', side: 'connector' as const, what: '', fails: ['V'], test: 'test/check-connector.test.ts', name: 'mistakes slow-answer are reported under' },
      { id: 'receiver:500', side: 'receiver' as const, what: '', fails: ['W'], test: 'test/check-receiver.test.ts', name: 'receiver mistake status-500 is reported under' },
    ],
    projectTests: [{ clauses: ['T'], test: 'test/load.test.ts', name: 'exits 1 against the deviation', what: '' }],
    exceptions: [],
  };
  const passed = [
    { file: 'test/check-connector.test.ts', name: 'mistakes slow-answer are reported under CONN-EP7-01' },
    // The receiver's test ran in another file's name only: no proof.
    { file: 'test/check-connector.test.ts', name: 'receiver mistake status-500 is reported under RECV-ANSWER-01' },
    { file: 'test/load.test.ts', name: 'ces load message-path exits 1 against the deviation whose visitor messages never reach endpoint 7 (LOAD-MSG-01)' },
  ];
  const { record: confirmed, unconfirmed } = confirmedRecord(record, passed);
  assert.deepEqual(unconfirmed, ['receiver:500: test/check-receiver.test.ts › receiver mistake status-500 is reported under']);
  const p = clauseProofs(catalogue, [], undefined, confirmed);
  assert.ok(isProven(p.get('V')));
  assert.ok(isProven(p.get('T')));
  assert.equal(isProven(p.get('W')), false, 'a partner variant whose test did not pass in the run proves nothing');
  assert.deepEqual(unprovenMust(catalogue, p).map((c) => c.id), ['W']);
  // Run alone (no record of this run's unit tests): every entry is unconfirmed.
  assert.equal(readUnitPasses(path.join(os.tmpdir(), 'no-such-ces-unit-passes.json')), undefined);
  assert.equal(confirmedRecord(record, undefined).unconfirmed.length, 3);
});

test('every entry of the proof record names its test by file and by a part of its name', () => {
  const record = loadProofRecord();
  for (const e of [...record.partnerVariants, ...record.projectTests]) {
    assert.match(e.test, /^test\/[\w-]+\.test\.ts$/, JSON.stringify(e));
    assert.ok(e.name.length >= 10, `${e.test}: names its test (${e.name})`);
  }
});
