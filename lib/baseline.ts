// Baseline of known failures (issue 18): a team gates CI on regressions; clauses failing in the baseline are reported but do not fail the run, new failures do, fixed ones are listed so the baseline shrinks.
import fs from 'node:fs';

export interface Baseline {
  /** Format version of this file. */
  version: 1;
  written: string;
  /** The target's base URL when written (informative). */
  target: string;
  /** Clauses that failed (a failing severity) when the baseline was written. */
  failing: Array<{ id: string; severity: string; text?: string }>;
}

export class BaselineError extends Error {}

export function readBaseline(file: string): Baseline {
  let raw: any;
  try { raw = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) {
    throw new BaselineError(`cannot read baseline ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file (write one with --write-baseline)' : (e as Error).message}`);
  }
  if (raw?.version !== 1 || !Array.isArray(raw.failing) || !raw.failing.every((f: any) => typeof f?.id === 'string')) {
    throw new BaselineError(`baseline ${file}: not a baseline written by \`ces test --write-baseline\` (expected {"version": 1, "failing": [{"id": "<clause>"}, ...]})`);
  }
  return raw as Baseline;
}

export interface BaselineOutcome {
  file: string;
  /** Failing now and in the baseline: reported, do not fail the run. */
  known: string[];
  /** Failing now, not in the baseline: regressions, fail the run. */
  regressions: string[];
  /** In the baseline, judged and no longer failing: remove them from the baseline. */
  fixed: string[];
  /** In the baseline, not judged in this run (skipped, not run): kept. */
  unjudged: string[];
}

/** Compares this run's failing clauses with a baseline. `failing`: clauses whose verdict fails a run; `judged`: clauses with a verdict. */
export function compareWithBaseline(file: string, baseline: Baseline, failing: string[], judged: Set<string>): BaselineOutcome {
  const known = new Set(baseline.failing.map((f) => f.id));
  const now = new Set(failing);
  return {
    file,
    known: failing.filter((id) => known.has(id)),
    regressions: failing.filter((id) => !known.has(id)),
    fixed: [...known].filter((id) => !now.has(id) && judged.has(id)),
    unjudged: [...known].filter((id) => !now.has(id) && !judged.has(id)),
  };
}

export function writeBaseline(file: string, target: string, failing: Array<{ id: string; severity: string; text?: string }>): void {
  const b: Baseline = { version: 1, written: new Date().toISOString(), target, failing };
  fs.writeFileSync(file, JSON.stringify(b, null, 2) + '\n');
}

export function baselineLines(o: BaselineOutcome): string[] {
  const out = [`baseline ${o.file}: ${o.regressions.length} new failure(s), ${o.known.length} known failure(s) (reported, not failing the run), ${o.fixed.length} fixed`];
  if (o.regressions.length) out.push(`  new failures (fail the run): ${o.regressions.join(', ')}`);
  if (o.known.length) out.push(`  known failures: ${o.known.join(', ')}`);
  if (o.fixed.length) out.push(`  now passing, remove from the baseline (or rewrite it with --write-baseline): ${o.fixed.join(', ')}`);
  return out;
}
