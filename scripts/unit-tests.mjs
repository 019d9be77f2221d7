// Runs the unit-test files (test/*.test.ts, or those named) with node:test, the longest first and several at a time, prints TAP and each file's time.
// Run it with `node --import tsx scripts/unit-tests.mjs [files]`: the test processes inherit `--import tsx`.
// Why a script: `node --test` sorts its files by name, so a 3-minute file named late starts last and the step waits for it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Files by their time, longest first (alone on the 2-core machine: check-connector 80 s for 99 s of CPU, sigkill-stream 78/86,
 * check-receiver 62/77, fuzz-deviations 61/78, bare-target 29/49); the rest follow by name. The SIGKILL stream needs CPU for its
 * restarts, so it starts with the second wave rather than beside the three heaviest.
 */
const LONGEST_FIRST = [
  'check-connector', 'check-receiver', 'fuzz-deviations', 'sigkill-stream', 'check-fake-connector', 'load-bench', 'check-variants',
  'bare-target', 'webhooks-durable', 'load', 'target-lost', 'transcripts-replay', 'report-run', 'load-segments', 'sink',
];
/**
 * Test processes at once (CES_UNIT_CONCURRENCY overrides). 3 keeps both cores busy: with 4 the step was CPU-bound (no idle time)
 * and no faster, and the load-sensitive files (50 SIGKILLs during a steady stream) starved.
 */
const CONCURRENCY = Number(process.env.CES_UNIT_CONCURRENCY ?? 3);

const named = process.argv.slice(2).map((f) => path.resolve(f));
const all = named.length ? named : fs.readdirSync(path.join(ROOT, 'test')).filter((f) => f.endsWith('.test.ts')).sort().map((f) => path.join(ROOT, 'test', f));
const rank = (file) => { const i = LONGEST_FIRST.indexOf(path.basename(file, '.test.ts')); return i < 0 ? LONGEST_FIRST.length : i; };
const files = [...all].sort((a, b) => rank(a) - rank(b));

const started = new Map();
const took = [];
let failed = 0;
const stream = run({ files, concurrency: CONCURRENCY });
stream.on('test:dequeue', (d) => { if (d.name === d.file && !started.has(d.file)) started.set(d.file, Date.now()); });
const t0 = Date.now();
stream.on('test:complete', (d) => { if (d.name === d.file) took.push([path.relative(ROOT, d.file), (Date.now() - (started.get(d.file) ?? Date.now())) / 1000, ((started.get(d.file) ?? t0) - t0) / 1000]); });
stream.on('test:fail', () => { failed++; });
const out = stream.compose(tap);
out.pipe(process.stdout);
out.on('end', () => {
  took.sort((a, b) => b[1] - a[1]);
  console.log(`\nunit-test files (${files.length}, ${CONCURRENCY} at a time), slowest first:`);
  // With where each began: the step ends with its last file, so a long file that starts late is the one to move up the list.
  for (const [f, s, at] of took.slice(0, 20)) console.log(`  ${s.toFixed(1).padStart(6)} s  ${f}  (from ${at.toFixed(0)} s to ${(at + s).toFixed(0)} s)`);
  const last = [...took].sort((a, b) => (b[2] + b[1]) - (a[2] + a[1])).slice(0, 3);
  console.log(`last to end: ${last.map(([f, s, at]) => `${path.basename(f)} (${(at + s).toFixed(0)} s)`).join(', ')}`);
  if (failed) console.log(`${failed} test(s) failed`);
  process.exitCode = failed ? 1 : 0;
});
