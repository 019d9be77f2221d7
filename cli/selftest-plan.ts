// The plan of one `ces selftest` run: deviations grouped into few Playwright projects, and the outcome of each deviation read back.
import fs from 'node:fs';
import type { Deviation } from '../lib/catalogue.js';
import type { ListedCheck } from '../lib/list-checks.js';
import { ANNOTATION, isHarnessError } from '../lib/verdicts.js';

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

/** `failed`: checks that failed under the deviation (they catch it); `harnessErrors`: checks that broke in the harness (they never do, lib/verdicts.ts). */
export interface DeviationOutcome { deviation: string; ran: number; failed: Array<{ title: string; reason: string }>; harnessErrors: Array<{ title: string; reason: string }> }

/**
 * Reads Playwright's results.json of a selftest run: per deviation (the `deviation` annotation its fixture adds), the checks that ran
 * and those that failed. A failed check under a deviation is marked "expected to fail" by the fixture (no worker restart), so the
 * actual status of its last result is what counts here.
 */
export function readSelftestResults(file: string): { byDeviation: Map<string, DeviationOutcome>; baselineFailed: Array<{ title: string; reason: string }>; baselineRan: number } {
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byDeviation = new Map<string, DeviationOutcome>();
  const baselineFailed: Array<{ title: string; reason: string }> = [];
  let baselineRan = 0;
  const walk = (suite: any, titles: string[]) => {
    for (const spec of suite.specs ?? []) for (const t of spec.tests ?? []) {
      const last = t.results?.[t.results.length - 1];
      if (!last || last.status === 'skipped') continue;
      const annotations = [...(t.annotations ?? []), ...(last.annotations ?? [])];
      const title = [...titles, spec.title].filter(Boolean).join(' › ');
      const broke = last.status === 'failed' || last.status === 'timedOut' || last.status === 'interrupted';
      const reason = String(last.error?.message ?? last.errors?.[0]?.message ?? last.status).replace(/\u001b\[[0-9;]*m/g, '');
      const harness = broke && (isHarnessError(reason) || annotations.some((a: any) => a.type === ANNOTATION.harness));
      const failed = broke && !harness;
      // A harness error in the baseline is as bad as a failure: the checks do not run cleanly without deviations.
      if (t.projectName === 'baseline') { baselineRan++; if (broke) baselineFailed.push({ title, reason }); continue; }
      const id = annotations.find((a: any) => a.type === 'deviation')?.description;
      if (!id) continue;
      const o: DeviationOutcome = byDeviation.get(id) ?? { deviation: id, ran: 0, failed: [], harnessErrors: [] };
      o.ran++;
      if (failed) o.failed.push({ title, reason });
      if (harness) o.harnessErrors.push({ title, reason });
      byDeviation.set(id, o);
    }
    for (const s of suite.suites ?? []) walk(s, [...titles, s.title && !/\.[jt]s$/.test(s.title) ? s.title : ''].filter(Boolean));
  };
  for (const s of report.suites ?? []) walk(s, []);
  return { byDeviation, baselineFailed, baselineRan };
}
