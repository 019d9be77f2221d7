// `ces bench --compare`: figures recorded in two runs, compared; a ratio worse by more than 10 % (or a value worse while its baseline held) flagged, the others not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../lib/paths.js';
import type { BenchFigure } from '../load/bench/measure.js';
import { compareBench, comparisonLines } from '../cli/commands/bench-compare.js';
import { benchBlock } from '../cli/commands/bench-docs.js';

/** A figure as `ces bench` records it, with only what the comparison reads filled in. */
function fig(id: string, unit: string, value: number, baseline: number, ratio: number | null, run: string): BenchFigure {
  const r = { median: value, min: value, max: value, rounds: [value] };
  return {
    id, title: id, value, unit, baseline: { title: 'baseline', value: baseline, unit }, ratio, target: { text: 'target', met: true },
    rounds: { value: r, baseline: { ...r, median: baseline } } as BenchFigure['rounds'], usage: {}, saturated: [], run, date: `2026-11-2${run.endsWith('a') ? 6 : 7}T10:00:00.000Z`, loadAverage: [0.5], details: {},
  };
}

// The figures of issue 42: the live view before and after G32 (0.885 → 0.672), and others that moved less, or moved with their baseline.
const then = [
  fig('rest-operator-live-throughput', 'requests/s', 16_300, 18_400, 0.885, 'run-a'),
  fig('polling-capacity-1hz', 'bot operators', 6_400, 6_400, 1, 'run-a'),
  fig('webhook-deliveries-sustained', 'deliveries/s', 2_500, 5_000, 0.5, 'run-a'),
  fig('message-path-added-latency', 'ms', 1.0, 3, null, 'run-a'),
  fig('startup-help', 's', 0.35, 0.55, 0.636, 'run-a'),
  fig('startup-stack-ready', 's', 1.6, 2.7, 0.6, 'run-a'),
];
const now = [
  fig('rest-operator-live-throughput', 'requests/s', 12_506, 18_391, 0.672, 'run-b'), // ratio −24 %: regressed
  fig('polling-capacity-1hz', 'bot operators', 6_400, 6_400, 1, 'run-b'), // the same
  fig('webhook-deliveries-sustained', 'deliveries/s', 2_000, 4_000, 0.5, 'run-b'), // value −20 %, but the baseline fell as much: the machine, not the service
  fig('message-path-added-latency', 'ms', 1.3, 3, null, 'run-b'), // no ratio: latency +30 % while the connector's own time held: regressed
  fig('startup-help', 's', 0.37, 0.55, 0.673, 'run-b'), // lower is better: ratio 5.5 % worse, under the threshold
  fig('startup-stack-ready', 's', 2.0, 2.7, 0.741, 'run-b'), // ratio 19 % worse (seconds: higher is worse): regressed
];

test('a figure whose same-run ratio fell by more than 10 % is flagged, and one whose value fell while its baseline held; the others are not', () => {
  const c = compareBench({ run: 'run-a', date: then[0]!.date, figures: then }, now, 'reports/bench.previous.json');
  const flagged = Object.fromEntries(c.figures.map((f) => [f.id, f.regressed]));
  assert.deepEqual(flagged, {
    'rest-operator-live-throughput': true, 'polling-capacity-1hz': false, 'webhook-deliveries-sustained': false,
    'message-path-added-latency': true, 'startup-help': false, 'startup-stack-ready': true,
  });
  const rest = c.figures.find((f) => f.id === 'rest-operator-live-throughput')!;
  assert.ok(Math.abs(rest.change - (0.672 / 0.885 - 1)) < 1e-9, `the change is the ratio's: ${rest.change}`);
  assert.match(rest.why, /ratio 0\.885 → 0\.672/);
  const lines = comparisonLines(c).join('\n');
  assert.match(lines, /compared with run run-a/);
  assert.match(lines, /REGRESSED rest-operator-live-throughput: ratio 0\.885 → 0\.672/);
  assert.match(lines, /held +polling-capacity-1hz/);
  assert.match(lines, /3 of 6 figure\(s\) regressed/);
});

test('an --only run compares only what it measured; figures kept from the same run are not compared with themselves', () => {
  const kept = [...then.slice(1), fig('rest-operator-live-throughput', 'requests/s', 12_000, 18_000, 0.667, 'run-b')];
  const c = compareBench({ run: 'run-b', date: now[0]!.date, figures: kept }, [now[1]!], 'x.json');
  assert.deepEqual(c.figures.map((f) => f.id), ['polling-capacity-1hz']);
  const none = compareBench({ run: 'run-b', date: now[0]!.date, figures: kept }, [kept.at(-1)!], 'x.json');
  assert.equal(none.figures.length, 0, 'a figure of the same run is not a comparison');
  assert.match(comparisonLines(none).join('\n'), /no figure of this run was measured there/);
});

test('the README block shows the last comparison of the figures it lists', () => {
  const c = compareBench({ run: 'run-a', date: then[0]!.date, figures: then }, now, 'reports/bench.previous.json');
  const machine = { cpus: 2, cpuModel: 'x', memoryGiB: 24, os: 'Linux', node: 'v20', k6: 'k6 v1.8.1', loadAverageAtStart: [1], loadAverageAtEnd: [1] };
  const block = benchBlock({ date: now[0]!.date, run: 'run-b', quick: false, machine, figures: now.filter((f) => !f.id.startsWith('startup')), comparison: c }, false);
  assert.match(block, /Compared with the run before \(`run-a`/);
  assert.match(block, /\| rest-operator-live-throughput \| ratio 0\.885 .*\| ratio 0\.672 .*\| −?-?24\.1 % \| \*\*regressed\*\* \|/);
  assert.match(block, /\| polling-capacity-1hz \| .* \| held \|/);
  assert.doesNotMatch(block, /startup-help/, 'the start-up figures have their own block');
});

test('ces bench --compare with a file that is not there: one line, exit 2, before anything is measured', () => {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'bench', '--only', 'startup', '--compare', path.join(ROOT, 'no-such-bench.json')], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--compare .*no-such-bench\.json: no such file \(give a bench\.json written by `ces bench`\)/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(r.stdout.trim(), '', 'nothing measured');
});
