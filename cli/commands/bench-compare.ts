// `ces bench --compare`: each figure of this run beside the same figure of an earlier run, and which of them regressed.
import type { BenchFigure } from '../../load/bench/measure.js';

/** A figure regressed when its same-run ratio got worse by more than this share (10 %), or its value did while its baseline did not. */
export const REGRESSION_SHARE = 0.1;

/** Time-like units are better when lower (latency, start-up seconds); rates and capacities when higher. */
const LOWER_IS_BETTER = new Set(['ms', 's']);
export const lowerIsBetter = (f: Pick<BenchFigure, 'unit'>) => LOWER_IS_BETTER.has(f.unit);

/** What one figure did between two runs. `change` is the relative change in goodness (+0.05: 5 % better, −0.2: 20 % worse). */
export interface FigureComparison {
  id: string; title: string; unit: string;
  then: { run: string; date: string; value: number; baseline: number; ratio: number | null };
  now: { run: string; date: string; value: number; baseline: number; ratio: number | null };
  /** The relative change of the ratio (when both runs have one), else of the value; in goodness terms. */
  change: number;
  /** Relative change of the value and of the baseline, in goodness terms. */
  valueChange: number; baselineChange: number;
  regressed: boolean;
  why: string;
}

export interface BenchComparison { against: { run: string; date: string; file: string }; figures: FigureComparison[]; onlyThen: string[]; onlyNow: string[] }

/** Relative change from `a` to `b` in goodness terms: positive when `b` is better. NaN when either is not a positive number. */
function better(a: number, b: number, lower: boolean): number {
  if (!(a > 0) || !(b > 0) || !Number.isFinite(a) || !Number.isFinite(b)) return NaN;
  return lower ? a / b - 1 : b / a - 1;
}

/** A relative change as shown to readers (+5.0 %, -24.1 %); `none` where it could not be computed. */
export const changeText = (x: number, none = 'n/a') => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %` : none);
const pct = (x: number) => changeText(x);

/** Compares one figure measured in two runs (pure: the test feeds it recorded figures). */
export function compareFigure(then: BenchFigure, now: BenchFigure): FigureComparison {
  const lower = lowerIsBetter(now);
  const hasRatio = then.ratio !== null && now.ratio !== null;
  const ratioChange = hasRatio ? better(then.ratio!, now.ratio!, lower) : NaN;
  const valueChange = better(then.value, now.value, lower);
  const baselineChange = better(then.baseline.value, now.baseline.value, lower);
  const ratioFell = ratioChange < -REGRESSION_SHARE;
  // The value fell while the baseline held (did not fall by as much as the threshold): the service got slower, not the machine.
  const valueFell = valueChange < -REGRESSION_SHARE && !(baselineChange < -REGRESSION_SHARE);
  const why = ratioFell
    ? `ratio ${then.ratio} → ${now.ratio} (${pct(ratioChange)}, worse by more than ${REGRESSION_SHARE * 100} %)`
    : valueFell
      ? `${now.unit} ${then.value} → ${now.value} (${pct(valueChange)}) while the baseline ${Number.isFinite(baselineChange) ? `moved ${pct(baselineChange)}` : 'was not measured'}`
      : '';
  return {
    id: now.id, title: now.title, unit: now.unit,
    then: { run: then.run, date: then.date, value: then.value, baseline: then.baseline.value, ratio: then.ratio },
    now: { run: now.run, date: now.date, value: now.value, baseline: now.baseline.value, ratio: now.ratio },
    change: hasRatio ? ratioChange : valueChange, valueChange, baselineChange, regressed: ratioFell || valueFell, why,
  };
}

/**
 * Compares the figures measured in this run (`measured`) with those of an earlier bench.json. A figure that the earlier file holds
 * from the same run (kept by an `--only` run) is not compared with itself.
 */
export function compareBench(then: { run: string; date: string; figures: BenchFigure[] }, measured: BenchFigure[], file: string): BenchComparison {
  const before = new Map(then.figures.map((f) => [f.id, f]));
  const figures = measured.filter((f) => before.has(f.id) && before.get(f.id)!.run !== f.run).map((f) => compareFigure(before.get(f.id)!, f));
  return {
    against: { run: then.run, date: then.date, file },
    figures,
    onlyThen: then.figures.filter((f) => !measured.some((m) => m.id === f.id)).map((f) => f.id),
    onlyNow: measured.filter((f) => !before.has(f.id)).map((f) => f.id),
  };
}

const num = (v: number | null) => (v === null || !Number.isFinite(v) ? '—' : v.toLocaleString('en-US', { maximumFractionDigits: 3 }));

/** The comparison as printed at the end of `ces bench`: one line per figure, the regressions flagged. */
export function comparisonLines(c: BenchComparison): string[] {
  const out = [`compared with run ${c.against.run} (${c.against.date.slice(0, 16).replace('T', ' ')} UTC, ${c.against.file}):`];
  if (!c.figures.length) out.push('  no figure of this run was measured there');
  for (const f of c.figures) {
    const ratio = f.then.ratio !== null && f.now.ratio !== null ? `ratio ${num(f.then.ratio)} → ${num(f.now.ratio)}, ` : '';
    out.push(`  ${f.regressed ? 'REGRESSED' : 'held     '} ${f.title}: ${ratio}${num(f.then.value)} → ${num(f.now.value)} ${f.unit} (baseline ${num(f.then.baseline)} → ${num(f.now.baseline)}): ${pct(f.change)}${f.regressed ? ` — ${f.why}` : ''}`);
  }
  const regressed = c.figures.filter((f) => f.regressed).length;
  out.push(`  ${regressed} of ${c.figures.length} figure(s) regressed (a ratio worse by more than ${REGRESSION_SHARE * 100} %, or a value worse while its baseline held)`);
  return out;
}
