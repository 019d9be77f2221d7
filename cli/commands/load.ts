// `ces load <scenario>`: runs a k6 scenario of load/ against a target; each k6 threshold is a check judged under its clause, and the run's verdict is the exit code.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import type { CommandModule } from 'yargs';
import { ROOT } from '../../lib/paths.js';
import type { CheckResult } from '../../lib/results.js';
import { newRunDir, finishRun } from '../run.js';
import { resolveTarget } from '../embedded.js';
import { UsageError } from '../usage.js';
import { preflightOrStop } from '../preflight-stop.js';
import { writeFileAtomic } from '../../lib/write-atomic.js';
import { requireK6 } from '../../lib/optional-parts.js';

export const LOAD_DIR = path.join(ROOT, 'load');
/** k6's exit code when a threshold is crossed. */
export const K6_THRESHOLDS_CROSSED = 99;

/** Scenario names: the k6 scripts directly under load/. */
export function scenarios(): string[] {
  return fs.readdirSync(LOAD_DIR).filter((f) => f.endsWith('.js')).map((f) => f.replace(/\.js$/, '')).sort();
}

/** The k6 binary (lib/optional-parts.ts: CES_K6, where `ces setup` put it, or the PATH); a MissingPartError (exit 2) says how to get it. */
export const findK6 = (): string => requireK6();

const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

/**
 * k6 has no CA-file option; Go's TLS stack reads its roots from SSL_CERT_FILE, so k6 trusts the target's CA when that file
 * holds the system roots plus the target's `ca_file`. Returns the bundle's path, or undefined when the target has no CA file.
 */
export function caBundle(caFile: string | undefined, dir: string, name = 'ca-bundle.pem'): string | undefined {
  if (!caFile) return undefined;
  const system = SYSTEM_BUNDLES.find((f) => fs.existsSync(f));
  const file = path.join(dir, name);
  // Atomic: a k6 started in parallel never reads a half-written bundle.
  writeFileAtomic(file, (system ? fs.readFileSync(system, 'utf8') + '\n' : '') + fs.readFileSync(caFile, 'utf8'));
  return file;
}

export interface K6Options {
  script: string;
  targetFile: string;
  caFile?: string;
  /** Where the JSON summary (and the dashboard export, when asked) go. */
  outDir: string;
  summaryName?: string;
  dashboard?: boolean;
  vus?: number;
  rate?: number;
  duration?: string;
  /** e.g. ['--execution-segment', '0:1/2', '--execution-segment-sequence', '0,1/2,1'] */
  extraArgs?: string[];
  env?: Record<string, string>;
  quiet?: boolean;
  /** Called with k6's process id once it runs (benchmarks sample its CPU). */
  onSpawn?: (pid: number) => void;
}
export interface K6Run { code: number | null; summaryFile: string; summary: K6Summary | null }
export interface K6Summary { metrics: Record<string, { type: string; values: Record<string, number>; thresholds?: Record<string, { ok: boolean }> }>; ces?: { scenario: string } }

/** Spawns `k6 run` (never blocking this process's event loop: the embedded stack may live here). */
export async function runK6(o: K6Options): Promise<K6Run> {
  const k6 = findK6();
  const summaryFile = path.join(o.outDir, o.summaryName ?? 'k6-summary.json');
  // One bundle per run name: parallel runs in one folder (segments) never share the file.
  const bundle = caBundle(o.caFile, o.outDir, o.summaryName ? `ca-bundle-${o.summaryName.replace(/\.json$/, '')}.pem` : 'ca-bundle.pem');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    CES_TARGET: o.targetFile,
    CES_SUMMARY: summaryFile,
    K6_NO_USAGE_REPORT: 'true',
    ...(bundle ? { SSL_CERT_FILE: bundle } : {}),
    ...(o.vus ? { CES_VUS: String(o.vus) } : {}),
    ...(o.rate ? { CES_RATE: String(o.rate) } : {}),
    ...(o.duration ? { CES_DURATION: o.duration } : {}),
    // The dashboard skips its export when it saw fewer than two aggregation periods: 1 s periods let a 5 s smoke have one.
    ...(o.dashboard ? { K6_WEB_DASHBOARD: 'true', K6_WEB_DASHBOARD_EXPORT: path.join(o.outDir, 'k6-dashboard.html'), K6_WEB_DASHBOARD_PORT: '-1', K6_WEB_DASHBOARD_PERIOD: '1s' } : {}),
    ...o.env,
  };
  const args = ['run', '--quiet', ...(o.extraArgs ?? []), o.script];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(k6, args, { cwd: ROOT, env, stdio: o.quiet ? ['ignore', 'ignore', 'pipe'] : 'inherit' });
    if (child.pid) o.onSpawn?.(child.pid);
    let err = '';
    child.stderr?.on('data', (b) => { err += String(b); });
    child.on('error', reject);
    child.on('exit', (c) => {
      // Quiet runs keep k6's log next to their summary (warnings of the scripts say why a threshold was crossed).
      if (o.quiet) fs.writeFileSync(summaryFile.replace(/\.json$/, '') + '.log', err);
      if (o.quiet && c !== 0 && c !== K6_THRESHOLDS_CROSSED) process.stderr.write(err.slice(-4000));
      resolve(c);
    });
  });
  const summary = fs.existsSync(summaryFile) ? (JSON.parse(fs.readFileSync(summaryFile, 'utf8')) as K6Summary) : null;
  return { code, summaryFile, summary };
}

/** One check per threshold (metric key with its expressions), naming the clause ids of its `clause:` tag. */
export function thresholdChecks(summary: K6Summary, scenario: string): CheckResult[] {
  const out: CheckResult[] = [];
  for (const [key, m] of Object.entries(summary.metrics).sort(([a], [b]) => a.localeCompare(b))) {
    if (!m.thresholds) continue;
    const clauses = [...key.matchAll(/clause:([A-Z][A-Z0-9-]+)/g)].map((x) => x[1]!);
    const crossed = Object.entries(m.thresholds).filter(([, t]) => !t.ok).map(([e]) => e);
    const shown = Object.entries(m.values).map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(2)}`).join(' ');
    out.push({
      title: `${scenario}: ${key} ${Object.keys(m.thresholds).join(', ')}`,
      file: `load/${scenario}.js`,
      project: 'k6',
      clauses,
      outcome: crossed.length ? 'failed' : 'passed',
      reason: crossed.length ? `threshold crossed: ${crossed.join(', ')} (${shown})` : undefined,
      durationMs: 0,
    });
  }
  return out;
}

/**
 * The connector secret signs k6's endpoint-4 calls (G2): the embedded stack's own, the private secrets file a `ces serve` ready file
 * names, or CES_CONNECTOR_SECRET. Passed by environment only, so it never lands in a target file or a report.
 */
export function connectorEnv(embeddedSecret: string | undefined, target?: object): Record<string, string> {
  let secret = embeddedSecret ?? process.env.CES_CONNECTOR_SECRET;
  const file = (target as { secrets_file?: string } | undefined)?.secrets_file;
  if (!secret && file && fs.existsSync(file)) secret = (JSON.parse(fs.readFileSync(file, 'utf8')) as { connector_secret?: string }).connector_secret;
  return secret ? { CES_CONNECTOR_SECRET: secret } : {};
}

interface Args { scenario: string; target?: string; vus?: number; rate?: number; duration?: string; deviate: string[]; dashboard: boolean; preflight: boolean }

export const loadCommand: CommandModule<{}, Args> = {
  command: 'load <scenario>',
  describe: 'Run a k6 load scenario (thresholds decide pass/fail) against a target file, or the embedded reference implementation',
  builder: (y) => y
    .positional('scenario', { type: 'string', demandOption: true, describe: `One of: ${scenarios().join(', ')}` })
    .option('target', { type: 'string', describe: 'Target file (JSON, e.g. a `ces serve` ready file); default: the embedded reference implementation' })
    .option('vus', { type: 'number', describe: 'Virtual users / concurrent conversations / bot operators (per scenario, see docs/load.md)' })
    .option('rate', { type: 'number', describe: 'Arrival rate per second (arrival-rate scenarios)' })
    .option('duration', { type: 'string', describe: 'Duration of the load phase, e.g. 5s (smoke) or 2m' })
    .option('deviate', { type: 'string', array: true, default: [] as string[], describe: 'Embedded target only: switch on a deviation (repeatable)' })
    .option('dashboard', { type: 'boolean', default: true, describe: 'Export k6\'s web dashboard as k6-dashboard.html' })
    .option('preflight', { type: 'boolean', default: true, describe: 'With --target: check first, in under 10 s, that every URL answers over trusted TLS and every key, user and capability is accepted, so a wrong target file stops with exit 2 instead of k6 failing every request (--no-preflight: run anyway)' })
    .check((a) => {
      if (!scenarios().includes(a.scenario)) throw new UsageError(`unknown scenario ${a.scenario}; accepted: ${scenarios().join(', ')}`);
      for (const k of ['vus', 'rate'] as const) if (a[k] !== undefined && (!Number.isInteger(a[k]) || a[k]! <= 0)) throw new UsageError(`--${k} must be a positive integer (got ${a[k]})`);
      if (a.duration !== undefined && !/^\d+(ms|s|m|h)$/.test(a.duration)) throw new UsageError(`--duration must look like 5s, 90s or 2m (got ${a.duration})`);
      return true;
    }),
  handler: async (a) => {
    // Before anything starts: without k6 there is nothing to run (exit 2, saying how to get it).
    findK6();
    const run = newRunDir('load');
    const resolved = await resolveTarget({ target: a.target, deviate: a.deviate, runDir: run.dir });
    let code: number;
    try {
      // k6 logs in by itself: the pre-flight's tokens are not needed, only its verdict on the target file.
      if (a.target && a.preflight) (await preflightOrStop(resolved.target, a.target)).remove();
      console.log(`ces load ${a.scenario}: target ${resolved.target.base_url}${resolved.stack ? ' (embedded reference implementation)' : ''}; reports in ${run.dir}`);
      const k6 = await runK6({
        script: path.join(LOAD_DIR, `${a.scenario}.js`), targetFile: resolved.file, caFile: resolved.target.ca_file, outDir: run.dir,
        dashboard: a.dashboard, vus: a.vus, rate: a.rate, duration: a.duration, env: connectorEnv(undefined, resolved.target),
      });
      if (!k6.summary || (k6.code !== 0 && k6.code !== K6_THRESHOLDS_CROSSED)) {
        throw new UsageError(`k6 stopped with exit code ${k6.code} before judging the thresholds (script or set-up error: see its output above)`);
      }
      const checks = thresholdChecks(k6.summary, a.scenario);
      // Each crossed threshold is judged under its own clause, as every run's checks are: the exit code is the one the verdict
      // line prints (a crossed threshold of a REF clause is a WARN, exit 0, against a target other than the reference
      // implementation), not k6's exit 99, which counts every threshold alike.
      code = finishRun(run, 'load', resolved.target, checks);
      console.log(`k6 summary: ${k6.summaryFile}${a.dashboard ? `\nk6 dashboard: ${path.join(run.dir, 'k6-dashboard.html')}` : ''}`);
    } finally {
      await resolved.close();
    }
    process.exitCode = code;
  },
};
