// Runs the unit-test files (test/*.test.ts, or those named) with node:test, compiled (dist/test/*.test.js, as the package's code runs), the longest first and several at a time; prints TAP and each file's time.
// Run it with `node scripts/unit-tests.mjs [test/x.test.ts ...]`: it brings dist/ up to date first (scripts/build.mjs).
// Why a script: `node --test` sorts its files by name, so a 3-minute file named late starts last and the step waits for it.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';
import { ensureBuilt } from './build.mjs';

// Started the former way (`node --import tsx scripts/unit-tests.mjs`): the test processes would inherit tsx's loader and pay for
// it in every module they load. Run again without it (node:test gives its children this process's options).
if (process.execArgv.some((a) => a.includes('tsx'))) {
  const r = spawnSync(process.execPath, [...process.execArgv.filter((a, i, all) => !a.includes('tsx') && !(a === '--import' && all[i + 1]?.includes('tsx'))), ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
await ensureBuilt();
// Stack traces of the compiled code point at the TypeScript, in the test processes and in what they start.
if (!/--enable-source-maps/.test(process.env.NODE_OPTIONS ?? '')) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --enable-source-maps`.trim();

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Files by their time in a whole step (4 at a time on 2 cores, 2026-11-26: check-evidence 340 s, fuzz-deviations 337 s, check-receiver
 * 261 s, check-connector 256 s, alternatives-proxy 221 s, sigkill-stream 213 s, harness-faults 126 s, load-bench 120 s...), longest
 * first; the rest follow by name. The four longest start together, and no long file starts last (the step's tail).
 */
const LONGEST_FIRST = [
  'check-evidence', 'fuzz-deviations', 'check-receiver', 'check-connector', 'alternatives-proxy', 'sigkill-stream', 'harness-faults', 'load-bench', 'degraded-proxy', 'check-fake-connector',
  'check-variants', 'check-proofs', 'bare-target', 'load', 'webhooks-durable', 'wire', 'transcripts-trust', 'transcripts-replay', 'target-lost', 'report-run', 'load-segments', 'sink',
];
/**
 * Test processes at once (CES_UNIT_CONCURRENCY overrides). 4: since the SIGKILL lives start from a bundle and the check files
 * start fewer Playwright workers, 3 at a time left the cores idle a sixth of the step (495 CPU-s in 295 s); 4 at a time used
 * 519 CPU-s in 269 s, every file passing (it was no faster when the step was CPU-bound, and starved the SIGKILL stream's restarts).
 */
const CONCURRENCY = Number(process.env.CES_UNIT_CONCURRENCY ?? 4);

/** A test file as named (test/x.test.ts, or its compiled dist/test/x.test.js) → the compiled file that runs. */
const compiled = (f) => {
  const rel = path.relative(ROOT, path.resolve(f)).replace(/^dist[\\/]/, '').replace(/\.ts$/, '.js');
  return path.join(ROOT, 'dist', rel);
};
const named = process.argv.slice(2).map(compiled);
const missing = named.filter((f) => !fs.existsSync(f));
if (missing.length) { console.error(`unit-tests: no such test file: ${missing.map((f) => path.relative(ROOT, f)).join(', ')} (name them as test/x.test.ts)`); process.exit(2); }
const all = named.length ? named : fs.readdirSync(path.join(ROOT, 'test')).filter((f) => f.endsWith('.test.ts')).sort().map((f) => compiled(path.join(ROOT, 'test', f)));
const rank = (file) => { const i = LONGEST_FIRST.indexOf(path.basename(file, '.test.js')); return i < 0 ? LONGEST_FIRST.length : i; };
const files = [...all].sort((a, b) => rank(a) - rank(b));

const started = new Map();
const took = [];
let failed = 0;
const stream = run({ files, concurrency: CONCURRENCY });
stream.on('test:dequeue', (d) => { if (d.name === d.file && !started.has(d.file)) started.set(d.file, Date.now()); });
const t0 = Date.now();
stream.on('test:complete', (d) => { if (d.name === d.file) took.push([path.relative(ROOT, d.file), (Date.now() - (started.get(d.file) ?? Date.now())) / 1000, ((started.get(d.file) ?? t0) - t0) / 1000]); });
stream.on('test:fail', () => { failed++; });
// The tests that passed (not skipped), for `ces selftest --require-proofs` in the same run: a proof of fixtures/proofs.json
// counts only when its test passed (CES_UNIT_PASSED names the file; scripts/test.sh sets it).
const passed = [];
const sourceOf = (file) => path.relative(ROOT, file).replace(/^dist[\\/]/, '').replace(/\.js$/, '.ts').split(path.sep).join('/');
stream.on('test:pass', (d) => { if (d.file && !d.skip && !d.todo && d.name !== d.file) passed.push({ file: sourceOf(d.file), name: d.name }); });
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
  if (process.env.CES_UNIT_PASSED) fs.writeFileSync(process.env.CES_UNIT_PASSED, JSON.stringify({ passed }, null, 1) + '\n');
  process.exitCode = failed ? 1 : 0;
});
