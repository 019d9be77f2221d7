// The plan of one `ces selftest` run: deviations grouped into few Playwright projects, and the outcome of each deviation read back.
import type { Deviation } from '../lib/catalogue.js';
import type { ListedCheck } from '../lib/list-checks.js';
import { failedClauses } from '../lib/verdicts.js';
import { readPlaywrightResults } from '../lib/results.js';

/** One deviation of a project: its clauses (a check runs under it when it names one) and how many checks that makes. */
export interface PlannedDeviation { id: string; clauses: string[]; checks: number }
/**
 * A Playwright project of the run. Every check of a project belongs to exactly one of its deviations, so one worker runs the
 * project's checks one after the other, switching its stack to each check's deviation (suites/fixtures.ts); a project per deviation
 * would start a worker process per deviation (185 of them, the bulk of the run's CPU). `baseline`: the checks with no deviation.
 */
export interface PlannedProject { name: string; grep: string; deviations: PlannedDeviation[]; baseline?: boolean }

/** A grep matching the clause tags exactly (REST-PAGE-01 must not match REST-PAGE-010). */
export const clauseGrep = (ids: string[]) => `(${ids.map((id) => '@' + id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?![\\w-])`;

const key = (c: ListedCheck) => `${c.project}\u0000${c.file}\u0000${c.title}`;

/** Greedy colouring, largest first: a deviation joins the first project none of whose checks it shares. */
export function planSelftest(devs: Deviation[], checks: ListedCheck[], baseline: boolean): PlannedProject[] {
  const checksOf = new Map(devs.map((d) => [d.id, new Set(checks.filter((c) => c.clauses.some((id) => d.clauses.includes(id))).map(key))]));
  const groups: Array<{ taken: Set<string>; devs: Deviation[] }> = [];
  for (const d of [...devs].sort((x, y) => checksOf.get(y.id)!.size - checksOf.get(x.id)!.size)) {
    const mine = checksOf.get(d.id)!;
    let g = groups.find((x) => ![...mine].some((k) => x.taken.has(k)));
    if (!g) groups.push((g = { taken: new Set(), devs: [] }));
    for (const k of mine) g.taken.add(k);
    g.devs.push(d);
  }
  const projects: PlannedProject[] = groups.map((g, i) => ({
    name: `deviations-${i + 1}`,
    grep: clauseGrep([...new Set(g.devs.flatMap((d) => d.clauses))]),
    deviations: g.devs.map((d) => ({ id: d.id, clauses: d.clauses, checks: checksOf.get(d.id)!.size })),
  }));
  const all = [...new Set(devs.flatMap((d) => d.clauses))];
  return baseline ? [{ name: 'baseline', grep: clauseGrep(all), deviations: [], baseline: true }, ...projects] : projects;
}

/** `failed`: checks whose own assertions of the deviation's clauses failed (they catch it); `harnessErrors`: checks that broke in the harness (they never do, lib/verdicts.ts). */
export interface DeviationOutcome { deviation: string; ran: number; failed: Array<{ title: string; reason: string; clauses: string[] }>; harnessErrors: Array<{ title: string; reason: string }> }

/**
 * Reads the results of a selftest run (lib/results.ts, the same reading as every run): per deviation (the `deviation` annotation
 * its fixture adds), the checks that ran and those that caught it. A check catches a deviation when an assertion of one of the
 * deviation's clauses failed (lib/verdicts.ts failedClauses): a failure of another clause of the same check is no proof.
 */
export function readSelftestResults(file: string, devs: Array<{ id: string; clauses: string[] }> = []): { byDeviation: Map<string, DeviationOutcome>; baselineFailed: Array<{ title: string; reason: string }>; baselineRan: number } {
  const clausesOf = new Map(devs.map((d) => [d.id, d.clauses]));
  const byDeviation = new Map<string, DeviationOutcome>();
  const baselineFailed: Array<{ title: string; reason: string }> = [];
  let baselineRan = 0;
  for (const k of readPlaywrightResults(file)) {
    if (k.outcome === 'skipped') continue;
    const broke = k.outcome === 'failed' || k.outcome === 'harness-error';
    const reason = k.reason ?? k.outcome;
    // A harness error in the baseline is as bad as a failure: the checks do not run cleanly without deviations.
    if (k.runProject === 'baseline') { baselineRan++; if (broke) baselineFailed.push({ title: k.title, reason }); continue; }
    if (!k.deviation) continue;
    const o: DeviationOutcome = byDeviation.get(k.deviation) ?? { deviation: k.deviation, ran: 0, failed: [], harnessErrors: [] };
    o.ran++;
    const own = failedClauses(k).filter((c) => (clausesOf.get(k.deviation!) ?? k.clauses).includes(c));
    if (k.outcome === 'failed' && own.length) o.failed.push({ title: k.title, reason, clauses: own });
    if (k.outcome === 'harness-error') o.harnessErrors.push({ title: k.title, reason });
    byDeviation.set(k.deviation, o);
  }
  return { byDeviation, baselineFailed, baselineRan };
}
