// What `ces bench` measures besides rates: CPU time and peak RSS of processes (and of a process's main thread) from /proc, medians with spread.
import fs from 'node:fs';
import os from 'node:os';

const TICK = 100; // USER_HZ: /proc times are in clock ticks of 10 ms on Linux.

/** CPU seconds (user + system) of a process, or of one of its threads when `tid` is given; null when it is gone or not Linux. */
export function cpuSeconds(pid: number, tid?: number): number | null {
  try {
    const stat = fs.readFileSync(tid ? `/proc/${pid}/task/${tid}/stat` : `/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), counted from field 3: utime is 14, stime 15.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICK;
  } catch { return null; }
}

/** Resident set size of a process in MiB, or null. */
export function rssMiB(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch { return null; }
}

export interface Usage {
  /** CPU seconds used during the window. */
  cpuS: number;
  /** CPU seconds of the main thread only (the event loop), when asked for. */
  mainThreadCpuS?: number;
  /** Highest RSS sampled during the window (MiB). */
  peakRssMiB: number;
  wallS: number;
  /** cpuS / wallS: 1.0 is one core busy all the time. */
  coreShare: number;
}

/** Samples processes (every 200 ms) between start() and stop(): CPU used and peak RSS of each. */
export class Sampler {
  private t0 = 0;
  private cpu0 = new Map<number, number>();
  private main0 = new Map<number, number>();
  private last = new Map<number, number>();
  private lastMain = new Map<number, number>();
  private peak = new Map<number, number>();
  private timer?: NodeJS.Timeout;

  constructor(private pids: number[], private mainThread: number[] = []) {}

  start(): this {
    this.t0 = performance.now();
    for (const p of this.pids) {
      this.cpu0.set(p, cpuSeconds(p) ?? 0);
      if (this.mainThread.includes(p)) this.main0.set(p, cpuSeconds(p, p) ?? 0);
    }
    this.sample();
    this.timer = setInterval(() => this.sample(), 200);
    return this;
  }

  private sample(): void {
    for (const p of this.pids) {
      const c = cpuSeconds(p);
      if (c !== null) this.last.set(p, c);
      if (this.mainThread.includes(p)) { const m = cpuSeconds(p, p); if (m !== null) this.lastMain.set(p, m); }
      const r = rssMiB(p);
      if (r !== null) this.peak.set(p, Math.max(this.peak.get(p) ?? 0, r));
    }
  }

  stop(): Map<number, Usage> {
    this.sample();
    clearInterval(this.timer);
    const wallS = (performance.now() - this.t0) / 1000;
    const out = new Map<number, Usage>();
    for (const p of this.pids) {
      const cpuS = (this.last.get(p) ?? 0) - (this.cpu0.get(p) ?? 0);
      const u: Usage = { cpuS: round(cpuS, 2), peakRssMiB: round(this.peak.get(p) ?? NaN, 1), wallS: round(wallS, 2), coreShare: round(cpuS / wallS, 2) };
      if (this.mainThread.includes(p)) u.mainThreadCpuS = round((this.lastMain.get(p) ?? 0) - (this.main0.get(p) ?? 0), 2);
      out.set(p, u);
    }
    return out;
  }
}

export const round = (v: number, d = 1) => (Number.isFinite(v) ? Math.round(v * 10 ** d) / 10 ** d : v);
export const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const quantile = (xs: number[], q: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/** Median of rounds with their spread: `{ median, min, max, rounds }`. */
export function spread(xs: number[], d = 1) {
  const ok = xs.filter(Number.isFinite);
  return { median: round(median(ok), d), min: round(Math.min(...ok), d), max: round(Math.max(...ok), d), rounds: xs.map((x) => round(x, d)) };
}

/** The machine's cores: a load generator or baseline whose core share reaches this fraction of one core saturates it. */
export const SATURATED_CORE_SHARE = 0.9;
export const cores = () => os.cpus().length;

export interface BenchFigure {
  id: string;
  title: string;
  value: number;
  unit: string;
  baseline: { title: string; value: number; unit: string };
  /** value / baseline.value (median of the rounds' ratios), when both measure the same thing. */
  ratio: number | null;
  /** The target and whether this run meets it. */
  target: { text: string; met: boolean };
  /** Median of the rounds with min and max, for the figure and its baseline. */
  rounds: { value: ReturnType<typeof spread>; baseline: ReturnType<typeof spread> };
  /** CPU per operation (ms), peak RSS (MiB) and the load generator's CPU share, per side. */
  usage: Record<string, unknown>;
  /** Which process saturated a core (≥ 90 % of one core), if any: then the figure is that process's limit, not the service's. */
  saturated: string[];
  run: string;
  date: string;
  loadAverage: number[];
  details: Record<string, unknown>;
}
