// `ces bench --only startup`: start-up of `ces` from the compiled JavaScript against the same commands from the TypeScript sources through tsx (every start before issue 27).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT, packageDir } from '../../lib/paths.js';
import { round, spread, median } from '../../load/bench/measure.js';
import type { BenchFigure } from '../../load/bench/measure.js';

/** `ces --help` must answer within this (issue 27), measured as the wall time of the whole process. */
export const HELP_LIMIT_S = 0.5;

/** How `ces` is started: the compiled JavaScript (bin/ces.js, as installed), or the sources through tsx as bin/ces.js did before. */
type Way = 'compiled' | 'tsx';

/** The sources and tsx are in a checkout only: the package ships neither, so there the baseline is not measured. */
function tsxAvailable(): boolean {
  try { packageDir('tsx'); return fs.existsSync(path.join(ROOT, 'cli', 'ces.ts')); } catch { return false; }
}

function command(way: Way, args: string[]): { argv: string[]; env: NodeJS.ProcessEnv } {
  if (way === 'compiled') return { argv: [path.join(ROOT, 'bin', 'ces.js'), ...args], env: process.env };
  // The start-up as it was: tsx's loader and the TypeScript sources, without the source maps of the compiled code.
  const env = { ...process.env, NODE_OPTIONS: (process.env.NODE_OPTIONS ?? '').replace(/--enable-source-maps/g, '').trim() };
  return { argv: ['--import', 'tsx', path.join(ROOT, 'cli', 'ces.ts'), ...args], env };
}

/**
 * CPU seconds of this process's reaped children (user + system, /proc/self/stat cutime + cstime, in 10 ms ticks): read before a
 * child starts and after it has exited, the difference is that child's CPU with everything it started and waited for. Null off Linux.
 */
function childrenCpu(): number | null {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) / 100;
  } catch { return null; }
}

interface Sample { wallS: number; cpuS: number | null; code: number | null }

/**
 * Runs one `ces` process to its end, or until `readyWhen` matches its output (then stops it with SIGTERM and waits); the wall time
 * is to the end or to the match, the CPU that of the whole process.
 */
function timed(way: Way, args: string[], env: Record<string, string>, readyWhen?: RegExp): Promise<Sample> {
  const { argv, env: base } = command(way, args);
  const cpu0 = childrenCpu();
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let wall: number | undefined;
    const limit = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`ces ${args[0]} (${way}) did not finish within 180 s: ${out.slice(-500)}`)); }, 180_000);
    const seen = (b: Buffer) => {
      out += String(b);
      if (readyWhen && wall === undefined && readyWhen.test(out)) { wall = (performance.now() - t0) / 1000; child.kill('SIGTERM'); }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => {
      clearTimeout(limit);
      if (readyWhen && wall === undefined) { reject(new Error(`ces ${args[0]} (${way}) exited (${code}) before it was ready: ${out.slice(-500)}`)); return; }
      const cpu1 = childrenCpu();
      resolve({ wallS: wall ?? (performance.now() - t0) / 1000, cpuS: cpu0 === null || cpu1 === null ? null : round(cpu1 - cpu0, 2), code });
    });
  });
}

/** What the start-up figures are measured against: the fake connector of the bench's own `ces serve`. */
export interface StartupTarget { connectorUrl: string; connectorSecret: string; caFile: string; dir: string }

interface Case { id: string; title: string; args: (work: string) => string[]; readyWhen?: RegExp; rounds: number; expect: number | null; target: (value: number, baseline: number) => { text: string; met: boolean } }

/** The three start-ups of the issue: the command list, one stack ready, one `ces check connector` on the fake connector. */
function cases(t: StartupTarget, quick: boolean): Case[] {
  // Without the baseline (the package has neither the sources nor tsx) there is nothing to be faster than: not met, and said so.
  const faster = (what: string) => (value: number, baseline: number) => ({ text: `${what} faster than through tsx${Number.isFinite(baseline) ? '' : ' (no baseline here: needs a checkout)'}`, met: Number.isFinite(baseline) && value < baseline });
  return [
    {
      id: 'startup-help', title: '`ces --help` (process start to exit)', args: () => ['--help'], rounds: quick ? 1 : 5, expect: 0,
      target: (v) => ({ text: `under ${HELP_LIMIT_S} s`, met: v < HELP_LIMIT_S }),
    },
    {
      id: 'startup-stack-ready', title: 'one stack ready (`ces serve` start to its `ready` line)', args: (w) => ['serve', '--ready-file', path.join(w, 'ready.json')],
      readyWhen: /^ready \{/m, rounds: quick ? 1 : 3, expect: null, target: faster('ready'),
    },
    {
      id: 'startup-check-connector', title: '`ces check connector` on the fake connector, one clause (`--only CONN-EP1-01`: pre-flight, Playwright runner, one worker)',
      args: (w) => ['check', 'connector', t.connectorUrl, '--secret', t.connectorSecret, '--ca-file', t.caFile, '--only', 'CONN-EP1-01', '--workers', '1', '--no-allure', '--report-dir', path.join(w, 'check')],
      rounds: quick ? 1 : 3, expect: 0, target: faster('done'),
    },
  ];
}

/** Start-up figures: each case run compiled and through tsx in alternating order, `rounds` times; medians of wall and CPU seconds. */
export async function startupFigures(t: StartupTarget, opts: { quick: boolean; runId: string; date: string; log: (line: string) => void }): Promise<BenchFigure[]> {
  const ways: Way[] = tsxAvailable() ? ['compiled', 'tsx'] : ['compiled'];
  const figures: BenchFigure[] = [];
  for (const c of cases(t, opts.quick)) {
    const samples: Record<Way, Sample[]> = { compiled: [], tsx: [] };
    for (let r = 0; r < c.rounds; r++) {
      // Alternating which goes first, so neither always runs on a warmer machine (file cache, CPU frequency).
      for (const way of r % 2 ? [...ways].reverse() : ways) {
        const work = fs.mkdtempSync(path.join(t.dir, `startup-${way}-`));
        // Reports of the measured runs stay in the bench's run folder.
        const s = await timed(way, c.args(work), { CES_REPORTS_DIR: path.join(work, 'reports') }, c.readyWhen);
        if (c.expect !== null && s.code !== c.expect) throw new Error(`${c.id}: ces ${c.args(work)[0]} (${way}) exited ${s.code}, expected ${c.expect}`);
        samples[way].push(s);
        fs.rmSync(work, { recursive: true, force: true });
      }
    }
    // Milliseconds kept: `ces --help` takes under a tenth of a second, where hundredths would move its ratio by several per cent.
    const wall = (w: Way) => spread(samples[w].map((s) => s.wallS), 3);
    const cpu = (w: Way) => (samples[w].every((s) => s.cpuS !== null) && samples[w].length ? spread(samples[w].map((s) => s.cpuS!), 2) : null);
    const value = wall('compiled');
    const base = samples.tsx.length ? wall('tsx') : { median: NaN, min: NaN, max: NaN, rounds: [] as number[] };
    const ratio = samples.tsx.length ? round(median(samples.compiled.map((s, i) => s.wallS / samples.tsx[i]!.wallS)), 3) : null;
    const f: BenchFigure = {
      id: c.id, title: c.title, value: value.median, unit: 's',
      baseline: { title: samples.tsx.length ? 'the same command from the TypeScript sources through tsx (as every start was before issue 27)' : 'through tsx: not measured (needs a checkout: the TypeScript sources and tsx)', value: base.median, unit: 's' },
      ratio, target: c.target(value.median, base.median), rounds: { value, baseline: base },
      usage: { compiled: { cpuS: cpu('compiled') }, tsx: { cpuS: cpu('tsx') } }, saturated: [],
      run: opts.runId, date: opts.date, loadAverage: os.loadavg().map((x) => round(x, 2)),
      details: { rounds: c.rounds, note: 'wall seconds from spawn to exit (or to the ready line); CPU seconds of the process and everything it started and waited for (/proc cutime + cstime)' },
    };
    opts.log(`  ${c.id}: compiled ${value.median} s (CPU ${cpu('compiled')?.median ?? '?'} s)${samples.tsx.length ? `, through tsx ${base.median} s (CPU ${cpu('tsx')?.median ?? '?'} s)` : ''}`);
    figures.push(f);
  }
  return figures;
}
