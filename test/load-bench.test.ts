// `ces bench --quick`: every benchmark runs end to end and writes bench.json with each figure beside its same-run baseline, its rounds, costs and target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../lib/paths.js';
import { k6Gate } from './tools.js';
import { benchBlock, startupBlock } from '../cli/commands/bench-docs.js';

const k6 = k6Gate();

test('ces bench --quick measures the four figures against their baselines, with rounds, CPU per operation, peak RSS and the load generator share', { skip: k6.skip, timeout: 240_000 }, () => {
  k6.require();
  const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-bench-'));
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'bench', '--quick', '--only', 'rest,message,webhook,polling'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CES_REPORTS_DIR: reports } });
  assert.equal(r.status, 0, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
  const bench = JSON.parse(fs.readFileSync(path.join(reports, 'bench.json'), 'utf8'));
  assert.equal(bench.machine.cpus, os.cpus().length);
  assert.match(bench.machine.k6, /v1\.8\.1/);
  const byId = new Map(bench.figures.map((f: { id: string }) => [f.id, f]));
  assert.deepEqual([...byId.keys()].sort(), ['message-path-added-latency', 'polling-capacity-1hz', 'rest-operator-live-throughput', 'webhook-deliveries-sustained']);
  const rest = byId.get('rest-operator-live-throughput') as any;
  assert.ok(rest.value > 0 && rest.baseline.value > 0, 'both sides measured');
  assert.ok(Math.abs(rest.ratio - rest.rounds.value.rounds[0] / rest.rounds.baseline.rounds[0]) < 0.01, `the ratio ${rest.ratio} is computed from the two measured rates`);
  assert.ok(rest.usage.reference.cpuMsPerRequest.median > 0 && rest.usage.bare.cpuMsPerRequest.median > 0, 'CPU per request of both sides');
  assert.ok(rest.usage.reference.peakRssMiB > 0 && rest.usage.bare.peakRssMiB > 0, 'peak RSS of both processes');
  assert.ok(rest.usage.reference.k6CoreShare.median > 0, 'the load generator\'s CPU share');
  assert.equal(typeof rest.target.met, 'boolean');
  const webhook = byId.get('webhook-deliveries-sustained') as any;
  assert.ok(webhook.baseline.value > 0, 'the sink fed directly was measured');
  assert.ok(webhook.details.probes.length >= 1 && webhook.details.probes[0].raised > 0, 'events were raised');
  assert.equal(webhook.details.probes[0].lost, 0, `no event lost at a quick rate: ${JSON.stringify(webhook.details.probes[0].why)}`);
  const polling = byId.get('polling-capacity-1hz') as any;
  assert.ok(polling.details.bare.length >= 1 && polling.details.reference.length >= 1, 'both pollers measured by step');
  assert.ok(polling.details.reference[0].windows[0].intervals > 0, 'intervals counted by the connector');
  // The run folder holds the raw k6 summaries the figures come from, and no copy of the target's credentials.
  const run = fs.readdirSync(reports).find((d) => d.includes('-bench-'))!;
  assert.ok(fs.existsSync(path.join(reports, run, 'rest-reference-1.json')) && fs.existsSync(path.join(reports, run, 'rest-bare-1.json')));
  assert.ok(!fs.readdirSync(path.join(reports, run)).some((f) => f.endsWith('ready.json') || f === 'target.json'));
  // The docs block is generated from this file: every figure and its target verdict appear.
  const block = benchBlock(bench, true);
  for (const f of bench.figures) assert.ok(block.includes(f.target.text), `${f.id}: target shown`);
  assert.match(block, /CPU/);
});

test('ces bench --quick --only startup: ces --help, a stack ready and a connector check, compiled and through tsx, with CPU and targets', { timeout: 300_000 }, () => {
  const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-bench-startup-'));
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'bench', '--quick', '--only', 'startup'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CES_REPORTS_DIR: reports } });
  assert.equal(r.status, 0, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
  const bench = JSON.parse(fs.readFileSync(path.join(reports, 'bench.json'), 'utf8'));
  assert.deepEqual(bench.figures.map((f: { id: string }) => f.id), ['startup-help', 'startup-stack-ready', 'startup-check-connector']);
  for (const f of bench.figures) {
    // Both ways measured in a checkout (the sources and tsx are here), each process's wall and CPU seconds.
    assert.ok(f.value > 0 && f.baseline.value > 0, `${f.id}: compiled and through tsx measured`);
    assert.equal(f.unit, 's');
    // One round: the ratio is of the two times, up to their rounding to milliseconds (and its own to three places).
    const slack = f.ratio * (0.0005 / f.value + 0.0005 / f.baseline.value) + 0.0005;
    assert.ok(Math.abs(f.ratio - f.value / f.baseline.value) <= slack, `${f.id}: the ratio ${f.ratio} is of the two measured times (${f.value} s, ${f.baseline.value} s)`);
    if (process.platform === 'linux') assert.ok(f.usage.compiled.cpuS.median > 0 && f.usage.tsx.cpuS.median > 0, `${f.id}: CPU of both`);
    assert.equal(typeof f.target.met, 'boolean');
  }
  assert.equal(bench.figures[0].target.text, 'under 0.5 s');
  // Its own README block, apart from the service's figures.
  const block = startupBlock(bench);
  for (const f of bench.figures) assert.ok(block.includes(f.title) && block.includes(f.target.text), `${f.id}: row and target shown`);
  assert.doesNotMatch(benchBlock({ ...bench, figures: [] }, false), /startup/);
});
