// `ces bench --quick`: the benchmark code runs end to end and writes bench.json with each figure beside its same-run baseline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../lib/paths.js';
import { findK6 } from '../cli/commands/load.js';

let k6Missing = '';
try { findK6(); } catch (e) { k6Missing = (e as Error).message; }

test('ces bench --quick --only rest writes the REST throughput ratio against the bare server of the same run', { skip: k6Missing || false, timeout: 120_000 }, () => {
  const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-bench-'));
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'bench', '--quick', '--only', 'rest'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CES_REPORTS_DIR: reports } });
  assert.equal(r.status, 0, `${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`);
  const bench = JSON.parse(fs.readFileSync(path.join(reports, 'bench.json'), 'utf8'));
  assert.equal(bench.machine.cpus, os.cpus().length);
  assert.match(bench.machine.k6, /v1\.8\.1/);
  const [f] = bench.figures;
  assert.equal(f.id, 'rest-operator-live-throughput');
  assert.ok(f.value > 0 && f.baseline.value > 0, 'both sides measured');
  assert.ok(Math.abs(f.ratio - f.value / f.baseline.value) < 0.002, `the ratio ${f.ratio} is computed from the two measured rates`);
  // The run folder holds the raw k6 summaries the figures come from, and no copy of the target's credentials.
  const run = fs.readdirSync(reports).find((d) => d.includes('-bench-'))!;
  assert.ok(fs.existsSync(path.join(reports, run, 'rest-reference-1.json')) && fs.existsSync(path.join(reports, run, 'rest-bare-1.json')));
  assert.ok(!fs.existsSync(path.join(reports, run, 'target.json')));
});
