// The package test: packs ces-harness (and publishes it dry), installs the tarball into an empty folder and runs `ces` from there as a user would (version, a connector check, embedded runs (a check, a deviation, the report), a failing check's re-run command, every `ces` command of docs/ci.md).
// Usage: node scripts/package-test.mjs [--keep]. Exit 0 when every step passed. --keep leaves the temporary folder for a look.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readRecipes } from './ci-recipes.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-package-test-'));
const project = path.join(work, 'project');
fs.mkdirSync(project);
const t0 = performance.now();
const secs = (from) => `${((performance.now() - from) / 1000).toFixed(1)} s`;
const failures = [];
const children = new Set();

/** One step: its title, time and outcome; a failed step is listed at the end and fails the test, the others still run. */
async function step(title, fn) {
  const t = performance.now();
  try {
    const note = await fn();
    console.log(`ok   ${title} (${secs(t)})${note ? `: ${note}` : ''}`);
  } catch (e) {
    failures.push(title);
    console.log(`FAIL ${title} (${secs(t)}): ${e.message}`);
  }
}
const check = (ok, message) => { if (!ok) throw new Error(message); };
const tail = (text, n = 25) => text.trim().split('\n').slice(-n).join('\n');

/** The user's environment: npx never installs anything itself (a missing `ces` must fail, not fetch a namesake from the registry). */
const userEnv = { ...process.env, npm_config_yes: 'false', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
// The tests' own settings must not reach the installed tool: it finds its reports, k6 and Chromium by itself.
for (const k of ['CES_REPORTS_DIR', 'CES_RUN_DIR', 'CES_TARGET', 'CES_TARGETS', 'CES_WORKERS', 'NODE_OPTIONS']) delete userEnv[k];

/** Runs a shell command line in `cwd` as a user types it; resolves with its exit code and output. */
function sh(line, { cwd = project, env = {}, timeoutS = 300 } = {}) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', line], { cwd, env: { ...userEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => { out += `\n(package test: stopped after ${timeoutS} s)`; child.kill('SIGKILL'); }, timeoutS * 1000);
    child.on('exit', (code) => { clearTimeout(timer); children.delete(child); resolve({ code, out }); });
  });
}

/** `npx ces serve` in the background until its ready file exists; stop() ends it. */
async function serve(name) {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  const readyFile = path.join(dir, 'ready.json');
  const child = spawn('npx', ['ces', 'serve', '--ready-file', readyFile], { cwd: project, env: userEnv, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  children.add(child);
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  for (let i = 0; i < 600 && !fs.existsSync(readyFile); i++) {
    if (child.exitCode !== null) throw new Error(`ces serve exited ${child.exitCode}: ${tail(err)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const ready = JSON.parse(fs.readFileSync(readyFile, 'utf8'));
  const secrets = JSON.parse(fs.readFileSync(ready.secrets_file, 'utf8'));
  return { ready, readyFile, secret: secrets.connector_secret, stop: () => stopTree(child) };
}

/** Ends a process started detached with everything it started (npx → node → worker threads). */
function stopTree(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => { children.delete(child); resolve(); });
    try { process.kill(-child.pid, 'SIGTERM'); } catch { resolve(); }
    setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, 10_000).unref();
  });
}

/** The newest run folder under `dir`/reports of a kind (test, check, load). */
const latestRun = (dir, kind) => fs.readdirSync(path.join(dir, 'reports')).filter((d) => d.includes(`-${kind}-`)).sort().at(-1);

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
let tarball;
let ready;

try {
  await step('npm pack: the tarball holds the compiled code and data, no TypeScript, tests or build state', async () => {
    const r = spawnSync('npm', ['pack', '--pack-destination', work, '--json'], { cwd: ROOT, encoding: 'utf8', env: userEnv });
    check(r.status === 0, `npm pack exited ${r.status}: ${tail(r.stderr)}`);
    const info = JSON.parse(r.stdout)[0];
    tarball = path.join(work, info.filename);
    const files = info.files.map((f) => f.path);
    const needed = ['bin/ces.js', 'package.json', 'dist/cli/ces.js', 'dist/cli/ces.js.map', 'dist/suites/playwright.config.js', 'dist/suites/rest', 'dist/reference-impl/store/schema.sql', 'dist/reference-impl/console/public/chat.html', 'fixtures/clauses', 'fixtures/schemas', 'fixtures/openapi.json', 'load/rest-read.js', 'load/lib/ces.js', 'lib/limits.ts', 'reports/template/landing.js'];
    const missing = needed.filter((n) => !files.some((f) => f === n || f.startsWith(`${n}/`)));
    check(!missing.length, `missing from the tarball: ${missing.join(', ')}`);
    // One TypeScript file: the spec's limits, which k6 reads from the load scripts (k6 runs TypeScript itself) as the code reads them.
    const unwanted = files.filter((f) => (/\.ts$/.test(f) && f !== 'lib/limits.ts') || /^(dist\/)?(test|scripts)\//.test(f) || f.includes('node_modules/') || f.endsWith('.manifest.json'));
    check(!unwanted.length, `in the tarball but not for users: ${unwanted.slice(0, 10).join(', ')}`);
    check(info.size < 2 * 1024 * 1024, `the tarball is ${info.size} bytes (over 2 MiB: what grew?)`);
    return `${info.filename}, ${(info.size / 1024).toFixed(0)} kB packed, ${(info.unpackedSize / 1024 / 1024).toFixed(1)} MB unpacked, ${files.length} files`;
  });
  if (!tarball) throw new Error('no tarball');

  await step('npm publish --dry-run: the package can be published (not private; the registry is never reached)', async () => {
    // --offline: a dry run needs no registry, and the test must not depend on one (without it npm waits about 70 s on an
    // unreachable registry before the same answer).
    const r = spawnSync('npm', ['publish', '--dry-run', '--offline'], { cwd: ROOT, encoding: 'utf8', env: userEnv });
    const out = `${r.stdout}${r.stderr}`;
    check(r.status === 0 && out.includes(`+ ${pkg.name}@${pkg.version}`), `npm publish --dry-run exited ${r.status}: ${tail(out)}`);
    return `${pkg.name}@${pkg.version}`;
  });

  await step('npm install of the tarball into an empty folder (install scripts not run: npm leaves better-sqlite3 unbuilt)', async () => {
    // --ignore-scripts stands for an npm that does not run dependencies' install scripts unapproved (npm 11's allowScripts):
    // the next step checks what `ces` then says, and that its command fixes it.
    const r = await sh(`npm install --ignore-scripts --prefer-offline --no-audit --no-fund ${JSON.stringify(tarball)}`, { timeoutS: 600 });
    check(r.code === 0, `npm install exited ${r.code}: ${tail(r.out)}`);
    check(fs.existsSync(path.join(project, 'node_modules', '.bin', 'ces')), 'node_modules/.bin/ces is missing');
  });

  await step('a missing native part: one line naming it and the command that builds it, and that command works', async () => {
    const r = await sh('npx ces serve');
    check(r.code === 2, `ces serve exited ${r.code} (expected 2): ${tail(r.out)}`);
    check(!/^\s+at /m.test(r.out), `a stack trace was printed: ${tail(r.out)}`);
    const fix = /better-sqlite3[^\n]*run `([^`]+)`/.exec(r.out)?.[1];
    check(fix, `no command in: ${tail(r.out, 5)}`);
    // The build from a local prebuild of the checkout's own module (same version, same Node) instead of compiling it for minutes.
    const prebuilds = path.join(work, 'prebuilds');
    fs.mkdirSync(prebuilds);
    const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')).version;
    spawnSync('tar', ['-czf', path.join(prebuilds, `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`), '-C', path.join(ROOT, 'node_modules', 'better-sqlite3'), 'build/Release/better_sqlite3.node']);
    const built = await sh(fix, { env: { npm_config_better_sqlite3_local_prebuilds: prebuilds }, timeoutS: 600 });
    check(built.code === 0, `\`${fix}\` exited ${built.code}: ${tail(built.out)}`);
    const setup = await sh('npx ces setup --only sqlite');
    check(setup.code === 0, `ces setup --only sqlite after the fix: ${tail(setup.out)}`);
    return `\`${fix}\``;
  });

  await step('npx ces --version is the package version', async () => {
    const r = await sh('npx ces --version');
    check(r.code === 0 && r.out.trim() === pkg.version, `got ${JSON.stringify(r.out.trim())} (exit ${r.code}), expected ${pkg.version}`);
  });

  await step('npx ces setup finds k6 and Chromium', async () => {
    const r = await sh('npx ces setup --no-download');
    check(r.code === 0, `exit ${r.code}: ${tail(r.out)}`);
    return r.out.split('\n').filter((l) => /^\s+ok/.test(l)).map((l) => l.trim().replace(/^ok\s+/, '')).join('; ');
  });

  const a = await serve('serve-a');
  const b = await serve('serve-b');
  ready = a.ready;
  try {
    const caFile = a.ready.ca_file;
    // The embedded reference implementation from the package: its stacks in worker threads, the self-test's reporter, the pages.
    const embedded = () => step('embedded runs from the package: ces test (one check), ces selftest (one deviation), ces report', async () => {
      const dir = path.join(project, 'embedded');
      fs.mkdirSync(dir);
      const t = await sh('npx ces test --suite rest --grep @REST-PAGE-01 --workers 1 --no-allure', { cwd: dir });
      // REST-PAGE-01's check, and REST-OAS-03 (every answer of the reference against its own OpenAPI document) beside it: all PASS.
      check(t.code === 0 && /clauses checked \((\d+)\): \1 PASS/.test(t.out) && /checks \(1\): 1 PASS/.test(t.out), `ces test exited ${t.code}: ${tail(t.out)}`);
      const s = await sh('npx ces selftest --only rest-limit-not-clamped --no-baseline', { cwd: dir });
      check(s.code === 0 && /caught\s+rest-limit-not-clamped/.test(s.out), `ces selftest exited ${s.code}: ${tail(s.out)}`);
      const rep = await sh('npx ces report', { cwd: dir });
      check(rep.code === 0 && fs.existsSync(path.join(dir, 'reports', 'index.html')), `ces report exited ${rep.code}: ${tail(rep.out)}`);
    });
    const rerun = () => step('a failing connector check prints a re-run command that works from this folder', async () => {
      // The fake connector of the second `ces serve` answers first messages late: CONN-EP5-01 (2 s) fails, a timing clause whose
      // reproduction is the command that re-runs it.
      const fault = await fetchJson(`${b.ready.connector_control_url}/faults`, b.ready, { endpoint: 'first-messages', delayMs: 2600 });
      check(fault.ok, `the fault was refused: ${fault.status}`);
      const dir = path.join(project, 'rerun');
      fs.mkdirSync(dir);
      const first = await sh(`npx ces check connector ${b.ready.connector_url} --secret "$CES_SECRET" --ca-file ${b.ready.ca_file} --only CONN-EP5-01`, { cwd: dir, env: { CES_SECRET: b.secret } });
      check(first.code === 1, `the failing check exited ${first.code} (expected 1): ${tail(first.out)}`);
      // The command names the ces that ran by its absolute path (bin/ces.js of the installed package), so it works where it is
      // pasted: it is run from an empty folder outside the project, where `npx ces` could not find the package.
      const command = first.out.split('\n').map((l) => l.trim()).find((l) => /^'[^']*\/bin\/ces\.js' check connector /.test(l));
      check(command, `no re-run command printed: ${tail(first.out)}`);
      const elsewhere = fs.mkdtempSync(path.join(work, 'pasted-'));
      const again = await sh(command, { cwd: elsewhere, env: { CES_SECRET: b.secret } });
      check(!/could not determine executable|command not found/i.test(again.out), `the re-run command did not start ces: ${tail(again.out)}`);
      check(again.code === 1 && /CONN-EP5-01\s+MUST\s+FAIL/.test(again.out), `the re-run exited ${again.code} without judging CONN-EP5-01 again: ${tail(again.out)}`);
      return command;
    });
    // The connector vendor's job of docs/ci.md is `npx ces check connector` against the fake connector: exit 0, reports in ./reports.
    const ci = () => step('every ces command of docs/ci.md (a check connector, target init, test --target, setup, load), run from the installation against the ces serve', async () => runRecipes(a));
    // Independent: three lines of work at once (most of it waits on the network and on real-time limits). `ces test --target`
    // from the installation is the service team's job of docs/ci.md (its JUnit and landing page checked there); a whole suite
    // from the package adds nothing the embedded run's REST check and the conformance step of npm test do not show.
    await Promise.all([rerun(), ci(), embedded()]);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
} catch (e) {
  failures.push(e.message);
  console.log(`FAIL ${e.message}`);
} finally {
  await Promise.all([...children].map(stopTree));
  if (keep) console.log(`kept: ${work}`); else fs.rmSync(work, { recursive: true, force: true });
}
console.log(`\npackage test: ${failures.length ? `${failures.length} step(s) failed` : 'every step passed'} in ${secs(t0)}`);
process.exit(failures.length ? 1 : 0);

/** A call of a fake's control API (bearer sim_token), trusting the stack's CA. */
async function fetchJson(url, r, body) {
  const { Agent, fetch } = await import(path.join(ROOT, 'node_modules', 'undici', 'index.js'));
  const dispatcher = new Agent({ connect: { ca: fs.readFileSync(r.ca_file, 'utf8') } });
  const res = await fetch(url, { method: 'POST', dispatcher, headers: { authorization: `Bearer ${r.sim_token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.text();
  return { ok: res.ok, status: res.status };
}

/**
 * Runs each job of docs/ci.md in a folder of its own (beside the installation, as a CI workspace), its `ces` commands in order,
 * with the job's variables and, for the deployment and secrets, a `ces serve`'s. A job whose commands are the same as an earlier
 * job's (GitHub and GitLab run the same ones) is not run twice. A job that logs in (its target file names the users) gets a
 * `ces serve` of its own (about 2 CPU-s): the login throttle (10 a minute per user) of the shared one is spent by the steps beside
 * and before it (a release job's `ces load graphql-read` got 1 token of 2 after the conformance job's auth suite), so its
 * outcome would depend on what ran before it. The others share `shared` (its connector).
 */
async function runRecipes(shared) {
  const done = new Map();
  const lines = [];
  for (const recipe of readRecipes()) {
    for (const job of recipe.jobs) {
      const key = JSON.stringify(job.commands.map((c) => [c.text, { ...c.env, CES_PACKAGE: '' }]));
      if (done.has(key)) { lines.push(`${recipe.heading}: the same commands as ${done.get(key)}`); continue; }
      done.set(key, recipe.heading);
      const logsIn = job.commands.some((c) => c.text.includes('$CES_USER_'));
      const own = logsIn ? await serve(`serve-${recipe.system}-${job.name}`) : undefined;
      try {
        await runJob(recipe, job, own ?? shared);
      } finally { await own?.stop(); }
      lines.push(`${recipe.heading}: ${job.commands.length} command(s) passed${own ? ' (against a ces serve of its own)' : ''}`);
    }
  }
  return `\n       ${lines.join('\n       ')}`;
}

/** One job of docs/ci.md in its own folder, against `svc`: every command exits 0 and leaves its reports in ./reports. */
async function runJob(recipe, job, svc) {
  const r = svc.ready;
  const keys = r.api_keys.map((k) => `${k.client_id}:${k.key}`);
  const users = r.users.map((u) => `${u.client_id}:${u.username}:${u.password}`);
  const deployment = {
    CES_BASE_URL: r.base_url, CES_REST_HA_BASE_URL: r.rest_ha_base_url, CES_CA_FILE: r.ca_file, NODE_EXTRA_CA_CERTS: r.ca_file, CES_API_KEY_1: keys[0], CES_API_KEY_2: keys[1], CES_USER_1: users[0], CES_USER_2: users[1],
    CONNECTOR_URL: r.connector_url, CES_SECRET: svc.secret, LOAD_DURATION: '5s', LOAD_RATE: '5',
    // One small suite: what is tested here is the commands, from the installation (the embedded run above judges a REST check).
    CES_SUITES: 'auth',
  };
  const dir = path.join(project, 'jobs', `${recipe.system}-${job.name}`);
  fs.mkdirSync(dir, { recursive: true });
  // Day one of a service team: an empty baseline, committed beside the workflow.
  fs.writeFileSync(path.join(dir, 'ces-baseline.json'), JSON.stringify({ version: 1, written: new Date().toISOString(), target: r.base_url, failing: [] }));
  for (const c of job.commands) {
    const res = await sh(c.text, { cwd: dir, env: { ...c.env, ...deployment }, timeoutS: 600 });
    check(res.code === 0, `${recipe.heading}: \`${c.text}\` exited ${res.code}: ${tail(res.out)}`);
  }
  const runs = fs.existsSync(path.join(dir, 'reports')) ? fs.readdirSync(path.join(dir, 'reports')).filter((d) => fs.existsSync(path.join(dir, 'reports', d, 'summary.json'))) : [];
  check(runs.length === job.commands.filter((c) => / (test|check|load) /.test(c.text)).length && fs.existsSync(path.join(dir, 'reports', 'index.html')), `${recipe.heading}: not every run left its reports in ./reports of the job's folder`);
  // What a CI system reads: JUnit beside every run (GitLab's junit artifact, GitHub's test reporters).
  const withoutJunit = runs.filter((d) => !fs.existsSync(path.join(dir, 'reports', d, 'junit.xml')));
  check(!withoutJunit.length, `${recipe.heading}: no junit.xml in ${withoutJunit.join(', ')}`);
}
