// The self-test's stored matrix (docs/selftest-matrix.json, written by `ces selftest --matrix`): which checks caught each fault, read to run a fault against one check that caught it before instead of every check naming its clauses.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';
import type { ListedCheck } from '../lib/list-checks.js';
import { clauseGrep, titlesGrep, type Mutation, type PlannedProject } from './selftest-plan.js';

/**
 * The matrix the planner reads: a full run's (`ces selftest --parallel 9 --wire --matrix docs/selftest-matrix.json` refreshes it).
 * Not in the npm package (docs/ is not shipped): an installed `ces selftest` runs every check of each fault's clauses.
 */
export const STORED_MATRIX = path.join(ROOT, 'docs', 'selftest-matrix.json');

/**
 * A fault's row: the titles of the checks that caught it, and the clauses whose own assertions failed there (its proofs);
 * `proved`: per check, the clauses its own assertions proved (rows written before it had none: a check's named clauses count).
 */
export interface MatrixRow { checks: string[]; clauses: string[]; proved?: Record<string, string[]> }
export type SelftestMatrix = Record<string, MatrixRow>;

/** The stored matrix, or undefined when there is none (then nothing is narrowed). A row in the older form (a list of titles) has no clauses. */
export function readStoredMatrix(file = STORED_MATRIX): SelftestMatrix | undefined {
  if (!fs.existsSync(file)) return undefined;
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, MatrixRow | string[]>;
  return Object.fromEntries(Object.entries(raw).map(([id, r]) => [id, Array.isArray(r) ? { checks: r, clauses: [] } : r]));
}

/** A listed check and the title the matrix gives it: its describe titles and its own, joined by ` › ` (lib/results.ts). */
export type MatrixCheck = ListedCheck & { matrixTitle: string };

/**
 * The checks a fault runs against when narrowed: among the checks that caught it in the stored matrix and still exist naming one of
 * its clauses, as few as keep the clauses they proved there proven (greedy: the check naming most of them first; most often one
 * check), or undefined when none of them exists any more (a new fault, a renamed check: every check of its clauses runs).
 */
export function chosenChecks(m: Mutation, row: MatrixRow | undefined, checks: ListedCheck[]): MatrixCheck[] | undefined {
  if (!row) return undefined;
  const candidates = checks.flatMap((c) => {
    if (!c.clauses.some((id) => m.clauses.includes(id))) return [];
    const t = row.checks.find((x) => x === c.title || x.endsWith(` › ${c.title}`));
    return t ? [{ ...c, matrixTitle: t }] : [];
  });
  if (!candidates.length) return undefined;
  const titles = [...new Set(candidates.map((c) => c.matrixTitle))].sort();
  // What a check proved there, else what it names: a check naming two clauses whose first failure ends it proves one.
  const names = (title: string) => new Set(row.proved?.[title] ?? candidates.filter((c) => c.matrixTitle === title).flatMap((c) => c.clauses));
  const chosen: string[] = [];
  let left = new Set(row.clauses.filter((id) => m.clauses.includes(id)));
  do {
    const best = titles.filter((t) => !chosen.includes(t)).sort((a, b) => [...names(b)].filter((id) => left.has(id)).length - [...names(a)].filter((id) => left.has(id)).length)[0];
    if (!best) break;
    chosen.push(best);
    left = new Set([...left].filter((id) => !names(best).has(id)));
  } while (left.size);
  return candidates.filter((c) => chosen.includes(c.matrixTitle));
}

/**
 * The plan with each fault of its projects of faults narrowed to its chosenChecks: the project's grep keeps, per fault, the checks
 * of its clauses whose title is one chosen (Playwright matches a grep against the file, describe and check titles joined by spaces
 * and the tags: the matrix's title with its ` › ` as spaces, followed by a tag or ending the string). The projects stay as planned (no check names clauses of two faults of one
 * project, so each check still runs under one fault). Alternatives and baselines are left whole: an alternative runs against
 * every check of its suites. `narrowed`: the faults that run fewer checks, for the fallback of a miss.
 */
export function narrowPlan(plan: PlannedProject[], mutations: Mutation[], checks: ListedCheck[], matrix: SelftestMatrix): { plan: PlannedProject[]; narrowed: string[] } {
  const byId = new Map(mutations.map((m) => [m.id, m]));
  const narrowed: string[] = [];
  const out = plan.map((p) => {
    if (p.baseline || p.together) return p;
    const parts: string[] = [];
    const deviations = p.deviations.map((d) => {
      const chosen = chosenChecks(byId.get(d.id) ?? d, matrix[d.id], checks);
      if (!chosen || chosen.length >= d.checks) { parts.push(`(?=.*${clauseGrep(d.clauses)})`); return d; }
      narrowed.push(d.id);
      parts.push(`(?=.*${clauseGrep(d.clauses)})${titlesGrep(chosen.map((c) => c.matrixTitle))}`);
      return { ...d, checks: chosen.length };
    });
    return { ...p, grep: `^(?:${parts.join('|')})`, deviations };
  });
  return { plan: out, narrowed };
}

/**
 * Whether a narrowed fault must run again against every check of its clauses: its chosen checks missed it (or broke), or they no
 * longer prove every clause of its own that the stored run proved (a proof `--require-proofs` counts must not be lost to the
 * narrowing).
 */
export function needsFallback(m: Mutation, outcome: { failed: Array<{ clauses: string[] }>; harnessErrors: unknown[] } | undefined, row: MatrixRow | undefined): boolean {
  if (!outcome || !outcome.failed.length || outcome.harnessErrors.length) return true;
  const proved = new Set(outcome.failed.flatMap((f) => f.clauses));
  return (row?.clauses ?? []).some((id) => m.clauses.includes(id) && !proved.has(id));
}
