// Shared by the `ces check` project tests (test/check-*.test.ts, split so their Playwright runs proceed in parallel): a file's TLS material and work folder, one `ces check` run in a child process, and the assertions on its verdicts.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { generateTls, type TlsMaterial } from '../lib/tls.js';
import { ROOT } from '../lib/paths.js';
import { loadClauses } from '../lib/catalogue.js';

export const CONNECTOR_SECRET = 'integrator-connector-secret-7f3a';
export const RECEIVER_SECRET = 'integrator-receiver-secret-91bc';
/** Parallel `ces check` runs of one describe (each is a Playwright run with one or two workers). */
export const PARALLEL_RUNS = 3;

/** A test file's TLS material, work folder (removed after the file) and the CA file trusting its servers; filled before its tests. */
export interface CheckFolder { tls: TlsMaterial; work: string; caFile: string }

export function checkFolder(): CheckFolder {
  const f = {} as CheckFolder;
  before(() => {
    f.tls = generateTls();
    f.work = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-check-test-'));
    f.caFile = path.join(f.work, 'ca.pem');
    fs.writeFileSync(f.caFile, f.tls.ca.cert);
  });
  after(() => { fs.rmSync(f.work, { recursive: true, force: true }); });
  return f;
}

export interface CheckRun { code: number | null; out: string; dir: string; verdicts: Map<string, string> }

/** Runs `ces check ...` in a child process with its reports in a temporary folder under `work`. */
export async function runCheck(work: string, args: string[], opts: { workers?: number; allure?: boolean } = {}): Promise<CheckRun> {
  const dir = fs.mkdtempSync(path.join(work, 'run-'));
  const full = ['check', ...args, '--report-dir', dir, '--workers', String(opts.workers ?? 1), ...(opts.allure ? [] : ['--no-allure'])];
  const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), ...full], { cwd: ROOT, env: { ...process.env, CES_REPORTS_DIR: path.join(work, 'reports') } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (c) => resolve({ code: c, out }));
  });
  const summaryFile = path.join(dir, 'summary.json');
  const verdicts = new Map<string, string>();
  if (fs.existsSync(summaryFile)) for (const v of JSON.parse(fs.readFileSync(summaryFile, 'utf8')).verdicts) verdicts.set(v.id, v.verdict);
  return { code, out, dir, verdicts };
}

/** The clauses a mode asserts, for a test's title. */
export const clausesOf = (m: { fail?: string[]; warn?: string[]; note?: string[] }) => [...(m.fail ?? []), ...(m.warn ?? []), ...(m.note ?? [])].join(', ');
export const tail = (r: CheckRun) => r.out.split('\n').slice(-60).join('\n');
export const areaIds = (area: string) => loadClauses().filter((c) => c.area === area && !c.retired).map((c) => c.id);

/** Asserts a mode's clauses; `code` is the run's exit code (default: 1 when this mode fails a MUST, else 0; a run shared with a failing mode gives 1). */
export function assertMode(r: CheckRun, name: string, fail: string[] = [], warn: string[] = [], note: string[] = [], code: number = fail.length ? 1 : 0) {
  for (const id of fail) assert.equal(r.verdicts.get(id), 'fail', `${name}: ${id} should fail, got ${r.verdicts.get(id)}\n${tail(r)}`);
  for (const id of warn) assert.equal(r.verdicts.get(id), 'warn', `${name}: ${id} should warn, got ${r.verdicts.get(id)}\n${tail(r)}`);
  for (const id of note) assert.equal(r.verdicts.get(id), 'note', `${name}: ${id} should be a note, got ${r.verdicts.get(id)}\n${tail(r)}`);
  assert.equal(r.code, code, `${name}: exit code (a MUST failed: 1, else 0)\n${tail(r)}`);
  for (const id of [...fail, ...warn, ...note]) assert.match(r.out, new RegExp(`${id}\\s+\\S+\\s+(FAIL|WARN|NOTE)\\s+\\S`), `${name}: the terminal summary gives the verdict and a reason for ${id}`);
  assert.doesNotMatch(r.out, /HARNESS ERROR \[/, `${name}: no harness error`);
}

/** The checks of a run as summary.json records them (outcome, reason, WARN/NOTE reasons, reproductions). */
export function checksOf(r: CheckRun): Array<{ title: string; clauses: string[]; outcome: string; reason?: string; warnings?: string[]; notes?: string[]; reproductions?: string[] }> {
  const f = path.join(r.dir, 'summary.json');
  return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')).checks : [];
}
/** Everything a run said about a clause: failure and skip reasons, WARN and NOTE reasons. */
export const saidAbout = (r: CheckRun, id: string) => checksOf(r).filter((c) => c.clauses.includes(id)).flatMap((c) => [c.reason ?? '', ...(c.warnings ?? []), ...(c.notes ?? [])]).join(' | ');

/**
 * A reproduction parted into its re-run command (the line that starts ces by its absolute path, under "# re-run just this
 * clause:" beside curls, alone in a concurrency check's) and the rest (the curls and their comments): a test replays the curls
 * and runs the re-run command only where the re-run is the proof it makes (each re-run is a whole `ces check --only` run).
 */
export function partReproduction(text: string): { rerun?: string; rest: string } {
  const lines = text.split('\n');
  const rerun = lines.find((l) => l.startsWith(`'${path.join(ROOT, 'bin', 'ces.js')}' `));
  return { rerun, rest: lines.filter((l) => l !== rerun && l !== '# re-run just this clause:').join('\n').trim() };
}

/** The re-run command of a clause as `ces check` prints it: the absolute path of the ces that ran, the partner, the secret as $CES_SECRET, `--only` the clause. */
export function assertRerunCommand(command: string | undefined, kind: 'connector' | 'webhook-receiver', url: string, caFile: string, clause: string): void {
  assert.ok(command, `a re-run command of ${clause}`);
  assert.ok(command!.startsWith(`'${path.join(ROOT, 'bin', 'ces.js')}' check ${kind} '${url}' --secret "$CES_SECRET" --ca-file '${caFile}'`), `the re-run command names ces, the partner and its trust: ${command}`);
  assert.match(command!, new RegExp(` --only ${clause}$`), `the re-run command judges ${clause} alone`);
}

/**
 * Runs a reproduction as a user would paste it, as printed (CES_SECRET set), from an empty folder of its own (or `cwd`): its
 * paths and its re-run command (the absolute path of ces) must work from anywhere. Answers what it printed. Asynchronous: the
 * fakes answer from this process.
 */
export function runReproduction(work: string, text: string, secret: string, opts: { cwd?: string } = {}): Promise<string> {
  const cwd = opts.cwd ?? fs.mkdtempSync(path.join(work, 'paste-'));
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', text], { cwd, env: { ...process.env, CES_SECRET: secret, CES_REPORTS_DIR: path.join(work, 'reports') } });
    let out = '';
    const timer = setTimeout(() => child.kill(), 240_000);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', () => { clearTimeout(timer); resolve(out); });
  });
}
