// A load script runs unchanged split into k6 execution segments: two halves in parallel do exactly the work of one whole run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from '../reference-impl/stack.js';
import { runK6, LOAD_DIR, type K6Summary } from '../cli/commands/load.js';
import { k6Gate } from './tools.js';

const k6 = k6Gate();

let stack: Stack;
let dir: string;
let targetFile: string;
before(async () => {
  if (k6.skip) return;
  k6.require();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-load-seg-'));
  stack = await startStack({ workDir: dir });
  targetFile = path.join(dir, 'target.json');
  fs.writeFileSync(targetFile, JSON.stringify(stack.ready));
});
after(async () => { await stack?.close(); });

const SEQUENCE = '0,1/2,1';
const count = (s: K6Summary | null, key: string) => s?.metrics[key]?.values.count ?? 0;

test('rest-read split in two execution segments run in parallel: the totals equal one whole run', { skip: k6.skip, timeout: 120_000 }, async () => {
  k6.require();
  const common = { script: path.join(LOAD_DIR, 'rest-read.js'), targetFile, caFile: stack.ready.ca_file, rate: 20, duration: '3s', quiet: true };
  const whole = await runK6({ ...common, outDir: dir, summaryName: 'whole.json' });
  const [a, b] = await Promise.all([
    runK6({ ...common, outDir: dir, summaryName: 'seg-a.json', extraArgs: ['--execution-segment', '0:1/2', '--execution-segment-sequence', SEQUENCE], env: { CES_SEGMENT: '0:1/2' } }),
    runK6({ ...common, outDir: dir, summaryName: 'seg-b.json', extraArgs: ['--execution-segment', '1/2:1', '--execution-segment-sequence', SEQUENCE], env: { CES_SEGMENT: '1/2:1' } }),
  ]);
  for (const r of [whole, a, b]) assert.equal(r.code, 0, `k6 exit ${r.code}: thresholds should hold (summary ${r.summaryFile})`);
  // Scheduled iterations = run + dropped (an arrival-rate executor drops an iteration when no VU is free at that instant).
  const scheduled = (s: K6Summary | null) => count(s, 'iterations') + count(s, 'dropped_iterations');
  const total = scheduled(whole.summary);
  const halves = [scheduled(a.summary), scheduled(b.summary)];
  assert.ok(total >= 60, `the whole run made ${total} iterations at 20/s for 3 s`);
  // The iteration due exactly at the end of the duration starts or not depending on timing, in each of the three runs: ±1.
  assert.ok(Math.abs(halves[0]! + halves[1]! - total) <= 1, `segments made ${halves.join(' + ')} iterations, the whole run ${total} (±1 for the iteration due at the end)`);
  assert.ok(Math.abs(halves[0]! - halves[1]!) <= 1, `each half does half the work: ${halves.join(' vs ')}`);
  // Per-endpoint tags survive the split: each half exercises every endpoint, and the request counts add up to the iterations.
  const endpoints = Object.keys(whole.summary!.metrics).filter((k) => k.startsWith('http_reqs{endpoint:'));
  assert.equal(endpoints.length, 8, 'rest-read has 8 endpoints');
  for (const s of [a.summary, b.summary]) {
    for (const key of endpoints) assert.ok(count(s, key) > 0, `${key}: every segment reads every endpoint`);
    assert.equal(endpoints.reduce((n, k) => n + count(s, k), 0), count(s, 'iterations'), 'one tagged request per iteration');
  }
  assert.equal(a.summary?.ces && (a.summary.ces as { segment?: string }).segment, '0:1/2');
});
