// Coverage of a run (judged, skipped per missing part, not run) and the baseline of known failures: pure rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { coverageOf, coverageLines } from '../lib/coverage.js';
import { compareWithBaseline, readBaseline, writeBaseline, BaselineError } from '../lib/baseline.js';
import { lacksReason } from '../lib/target.js';

test('coverage: judged, skipped for each lacking part with what to expose, other skips, not run', () => {
  const checks = [
    { clauses: ['A'], outcome: 'passed' },
    { clauses: ['B'], outcome: 'skipped', reason: lacksReason(['sim', 'connector_url']) },
    { clauses: ['C'], outcome: 'skipped', reason: lacksReason(['second_client_key']) },
    { clauses: ['D'], outcome: 'skipped', reason: 'nothing to judge: no strategy answered' },
    { clauses: ['E'], outcome: 'failed' },
    { clauses: ['F'], outcome: 'not-judged', reason: 'the target stopped answering at 2026-01-01T00:00:00Z' },
  ];
  const verdicts = [{ id: 'A', verdict: 'pass' }, { id: 'B', verdict: 'skipped' }, { id: 'C', verdict: 'skipped' }, { id: 'D', verdict: 'skipped' }, { id: 'E', verdict: 'fail' }, { id: 'F', verdict: 'not-judged' }, { id: 'G', verdict: 'not-run' }];
  const c = coverageOf(checks, verdicts);
  assert.equal(c.judged, 2);
  assert.deepEqual(c.byPart.map((p) => [p.part, p.clauses]), [['sim', ['B']], ['connector_url', ['B']], ['second_client_key', ['C']]]);
  assert.deepEqual(c.skippedOther.map((u) => u.id), ['D', 'F']);
  assert.deepEqual(c.notRun.map((u) => u.id), ['G']);
  assert.equal(c.unjudged.length, 5);
  for (const u of c.unjudged) assert.ok(u.why);
  const lines = coverageLines(c).join('\n');
  assert.match(lines, /2 of 7 clauses judged/);
  assert.match(lines, /1 skipped: target lacks capability sim\. To get them judged, expose the simulation API of DESIGN\.md/);
});

test('baseline: known failures forgiven, new ones listed, fixed ones listed, unjudged kept; a bad file is one clear error', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-baseline-'));
  const f = path.join(dir, 'known.json');
  writeBaseline(f, 'https://ces.example', [{ id: 'A', severity: 'MUST' }, { id: 'B', severity: 'MUST' }, { id: 'C', severity: 'MUST' }]);
  const b = readBaseline(f);
  const o = compareWithBaseline(f, b, ['A', 'D'], new Set(['A', 'B', 'D']));
  assert.deepEqual(o, { file: f, known: ['A'], regressions: ['D'], fixed: ['B'], unjudged: ['C'] });
  fs.writeFileSync(f, '{"failing": 3}');
  assert.throws(() => readBaseline(f), (e: Error) => e instanceof BaselineError && /not a baseline written by `ces test --write-baseline`/.test(e.message));
  assert.throws(() => readBaseline(path.join(dir, 'none.json')), /no such file \(write one with --write-baseline\)/);
  fs.rmSync(dir, { recursive: true, force: true });
});
