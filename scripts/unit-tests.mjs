// Runs the unit-test files (test/*.test.ts, or those named) with node:test, compiled (dist/test/*.test.js, as the package's code runs), the longest first and several at a time; prints TAP and each file's wall and CPU time.
// Run it with `node scripts/unit-tests.mjs [--elsewhere | --quick] [test/x.test.ts ...]`: it brings dist/ up to date first (scripts/build.mjs).
// --quick: only the QUICK files (`npm run test:quick`), each failing if it starts a server or a thread (scripts/no-server.mjs).
// --elsewhere: the path-sensitive files (PATH_SENSITIVE) run from a copy of the checkout at another depth of the file system.
// --main / --beside: all files but BESIDE / only BESIDE (scripts/test.sh runs the latter beside the self-test).
// Why a script: `node --test` sorts its files by name, so a 3-minute file named late starts last and the step waits for it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
 * Files by their time in a whole step (4 at a time on 2 cores, 2026-11-28, after issue 40's cuts: sigkill-stream 173 s,
 * check-evidence 148 s, check-connector 111 s, check-receiver 91 s, load-bench 87 s, load 81 s, explore 61 s...), longest first;
 * the rest follow by name. The four longest start together, and no long file starts last (the step's tail).
 */
const LONGEST_FIRST = [
  'sigkill-stream', 'check-evidence', 'check-connector', 'check-receiver', 'load-bench', 'load', 'explore', 'harness-faults', 'wire', 'webhooks-durable',
  'bare-target', 'check-variants', 'degraded-proxy', 'fuzz-deviations', 'check-proofs', 'transcripts-trust', 'transcripts-replay', 'clock-lock', 'sink', 'fuzz',
  'target-lost', 'report-run', 'load-segments',
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
/**
 * Files whose subject is where things are (the build's paths and error locations, the thread bundles' import.meta, the compile
 * cache's folder, file names shown relative to the working directory): with --elsewhere they run from a copy of the checkout at
 * another depth than the checkout's, with that copy as their working directory (the build named a syntax error's file wrongly
 * from every depth but two, and passed where it was developed, two folders deep).
 */
const PATH_SENSITIVE = ['build', 'thread-bundles', 'compile-cache', 'transcripts'];
/**
 * The quick tier (`npm run test:quick`): the files that start no server, no thread and no `ces` process, and wait on no real-time
 * limit (unit tests of pure functions, Fastify's inject(), the catalogue and the documents): about 40 CPU-s. A file of it that
 * starts a server or a thread fails there (scripts/no-server.mjs), so the list cannot drift into slow files unnoticed.
 */
const QUICK = [
  'alternatives', 'alternatives-coverage', 'auth-tokens', 'catalogue', 'check-unit', 'ci-docs', 'coverage-baseline', 'decisions', 'deviation-seams', 'doc-counts',
  'graphql-limits', 'graphql-sdl', 'lean-stacks', 'lib', 'openapi', 'openapi-answers', 'openapi-drift', 'proofs', 'report', 'report-allure',
  'plain-matchers', 'rest-activity', 'rest-agreement', 'rest-people', 'runner-lazy-babel', 'runner-snippets', 'schema-standalone', 'seed-snapshot', 'selftest-copies', 'selftest-matrix', 'structure', 'transcripts', 'verdicts', 'webhooks', 'write-atomic',
];
/**
 * Files scripts/test.sh runs beside the self-test instead of in the unit-test step (`--beside` runs them, `--main` the others):
 * the self-test mostly waits for webhook retries in real time and leaves a core idle, while the unit-test step keeps both busy.
 * Each is heavy on CPU, proves no entry of fixtures/proofs.json (the self-test credits those only from the unit-test step) and
 * has no time limit that load could make it miss (and meets less load there: the unit-test step runs 4 files at once on 2 cores).
 * 2026-11-28: sigkill-stream 48 CPU-s, harness-faults 28-34 CPU-s.
 */
const BESIDE = ['sigkill-stream', 'harness-faults'];
const elsewhere = process.argv.includes('--elsewhere');
const quick = process.argv.includes('--quick');
const part = process.argv.includes('--beside') ? 'beside' : process.argv.includes('--main') ? 'main' : undefined;
if (elsewhere && quick) { console.error('unit-tests: --elsewhere and --quick do not go together (the quick tier runs here)'); process.exit(2); }
if (part && quick) { console.error('unit-tests: --beside and --main split the whole suite, not the quick tier'); process.exit(2); }
const proofs = fs.readFileSync(path.join(ROOT, 'fixtures', 'proofs.json'), 'utf8');
const proving = BESIDE.filter((b) => proofs.includes(`test/${b}.test.ts`));
if (proving.length) { console.error(`unit-tests: ${proving.join(', ')} prove entries of fixtures/proofs.json: they cannot run beside the self-test (BESIDE)`); process.exit(2); }
const named = process.argv.slice(2).filter((a) => !['--elsewhere', '--quick', '--beside', '--main'].includes(a)).map(compiled);
const missing = named.filter((f) => !fs.existsSync(f));
if (missing.length) { console.error(`unit-tests: no such test file: ${missing.map((f) => path.relative(ROOT, f)).join(', ')} (name them as test/x.test.ts)`); process.exit(2); }
const every = fs.readdirSync(path.join(ROOT, 'test')).filter((f) => f.endsWith('.test.ts')).sort().map((f) => compiled(path.join(ROOT, 'test', f)));
const unknownQuick = [...QUICK, ...BESIDE].filter((q) => !every.some((f) => path.basename(f, '.test.js') === q));
if (unknownQuick.length) { console.error(`unit-tests: QUICK or BESIDE names no test file: ${unknownQuick.join(', ')}`); process.exit(2); }
const isBeside = (f) => BESIDE.includes(path.basename(f, '.test.js'));
const all = named.length ? named : quick ? every.filter((f) => QUICK.includes(path.basename(f, '.test.js'))) : part === 'beside' ? every.filter(isBeside) : part === 'main' ? every.filter((f) => !isBeside(f)) : every;
const rank = (file) => { const i = LONGEST_FIRST.indexOf(path.basename(file, '.test.js')); return i < 0 ? LONGEST_FIRST.length : i; };
const away = elsewhere ? all.filter((f) => PATH_SENSITIVE.includes(path.basename(f, '.test.js'))) : [];
const files = all.filter((f) => !away.includes(f)).sort((a, b) => rank(a) - rank(b));

// Each test process reports its CPU time (its own and its children's) at exit (scripts/cpu-report.mjs, preloaded).
const cpuDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-unit-cpu-'));
const preload = `--import=${pathToFileURL(path.join(ROOT, 'scripts', 'cpu-report.mjs')).href}`;
process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${preload}`.trim();
process.env.CES_CPU_REPORT_DIR = cpuDir;
if (quick) {
  process.env.NODE_OPTIONS += ` --import=${pathToFileURL(path.join(ROOT, 'scripts', 'no-server.mjs')).href}`;
  process.env.CES_NO_SERVER = '1';
}
/** The CPU seconds each test file's process reported, by its path relative to ROOT. */
function cpuByFile() {
  const out = new Map();
  for (const f of fs.readdirSync(cpuDir)) {
    const r = JSON.parse(fs.readFileSync(path.join(cpuDir, f), 'utf8'));
    out.set(path.relative(ROOT, r.file), r.self + (r.children ?? 0));
  }
  return out;
}

const away$ = away.length ? runElsewhere(away) : Promise.resolve(0);
if (!files.length) {
  // Every file named runs from the copy: nothing runs here (given no files, node:test would look for test files of its own).
  const code = await away$;
  fs.rmSync(cpuDir, { recursive: true, force: true });
  process.exit(code);
}
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
out.on('end', async () => {
  const cpu = cpuByFile();
  fs.rmSync(cpuDir, { recursive: true, force: true });
  took.sort((a, b) => (cpu.get(b[0]) ?? 0) - (cpu.get(a[0]) ?? 0) || b[1] - a[1]);
  console.log(`\nunit-test files (${files.length}, ${CONCURRENCY} at a time), by CPU time (the test process and the processes it started; wall time beside):`);
  // With where each began: the step ends with its last file, so a long file that starts late is the one to move up the list.
  for (const [f, s, at] of took) console.log(`  ${(cpu.has(f) ? cpu.get(f).toFixed(1) : '?').padStart(6)} CPU-s ${s.toFixed(1).padStart(6)} s  ${f}  (from ${at.toFixed(0)} s to ${(at + s).toFixed(0)} s)`);
  const total = [...cpu.values()].reduce((a, b) => a + b, 0);
  console.log(`CPU of the test files: ${total.toFixed(0)} CPU-s in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  const last = [...took].sort((a, b) => (b[2] + b[1]) - (a[2] + a[1])).slice(0, 3);
  console.log(`last to end: ${last.map(([f, s, at]) => `${path.basename(f)} (${(at + s).toFixed(0)} s)`).join(', ')}`);
  const awayCode = await away$;
  if (failed) console.log(`${failed} test(s) failed`);
  if (process.env.CES_UNIT_PASSED) fs.writeFileSync(process.env.CES_UNIT_PASSED, JSON.stringify({ passed }, null, 1) + '\n');
  process.exitCode = failed || awayCode ? 1 : 0;
});

/**
 * Runs `away` (compiled files of this checkout) from a copy of the checkout at another depth than ROOT's: the files git knows
 * (tracked, and new ones not ignored; every file but node_modules, dist, reports and caches without git), node_modules linked,
 * its own dist/ built by its own runner, one file at a time beside this run. Prints its output when it ends; answers its exit code.
 */
async function runElsewhere(away) {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-elsewhere-'));
  const depth = (p) => p.split(path.sep).filter(Boolean).length;
  // Three levels below the temporary folder, or four when that is the checkout's own depth.
  const levels = depth(base) + 3 === depth(ROOT) ? ['w', 'x', 'y', 'z'] : ['x', 'y', 'z'];
  const copy = path.join(base, ...levels);
  try {
    copyCheckout(copy);
    fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules')), path.join(copy, 'node_modules'), 'dir');
    const rel = away.map((f) => path.relative(path.join(ROOT, 'dist'), f).replace(/\.js$/, '.ts'));
    const child = spawn(process.execPath, [path.join(copy, 'scripts', 'unit-tests.mjs'), ...rel], {
      cwd: copy, env: { ...process.env, CES_UNIT_CONCURRENCY: '1', CES_CPU_REPORT_DIR: '', CES_UNIT_PASSED: '', NODE_OPTIONS: (process.env.NODE_OPTIONS ?? '').replace(preload, '').trim() }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const code = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)));
    console.log(`\n# ${away.length} path-sensitive file(s) run from a copy of the checkout ${depth(copy)} folders deep (the checkout is ${depth(ROOT)}), ${copy}:\n${output}`);
    return code;
  } catch (e) {
    console.log(`\n# the copy of the checkout for the path-sensitive files failed: ${e.message}`);
    return 1;
  } finally { fs.rmSync(base, { recursive: true, force: true }); }
}

function copyCheckout(to) {
  fs.mkdirSync(to, { recursive: true });
  const git = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (git.status === 0) {
    for (const rel of git.stdout.split('\0').filter(Boolean)) {
      const from = path.join(ROOT, rel);
      if (!fs.existsSync(from) || rel === 'node_modules') continue; // deleted in the work tree; the link made after
      fs.mkdirSync(path.dirname(path.join(to, rel)), { recursive: true });
      fs.copyFileSync(from, path.join(to, rel));
    }
    return;
  }
  const skip = new Set(['node_modules', 'dist', 'reports', '.git', '.cache', 'test-results', 'allure-results', 'playwright-report']);
  fs.cpSync(ROOT, to, { recursive: true, filter: (src) => !skip.has(path.relative(ROOT, src).split(path.sep)[0]) || path.relative(ROOT, src).startsWith(path.join('reports', 'template')) || path.relative(ROOT, src) === 'reports' });
}
