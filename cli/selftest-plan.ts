// The plan of one `ces selftest` run: deviations grouped into few Playwright projects, and the outcome of each deviation read back.
import type { Deviation } from '../lib/catalogue.js';
import { clauseById, isAlternative } from '../lib/catalogue.js';
import type { ListedCheck } from '../lib/list-checks.js';
import { clauseReason, failedClauses, reportedClauses } from '../lib/verdicts.js';
import { readPlaywrightResults } from '../lib/results.js';
import { escapeRegExp, originalTitle } from '../lib/selftest-copies.js';

/**
 * One deviation of a project: its clauses (a check runs under it when it names one) and how many checks that makes. `wire`: a
 * wire fault (fixtures/wire-faults.json) the check's fixture switches on the wire proxy instead of a deviation of the service.
 */
export interface PlannedDeviation { id: string; clauses: string[]; checks: number; wire?: boolean }
/** What the plan needs of a deviation or a wire fault. */
export interface Mutation { id: string; clauses: string[]; wire?: boolean }
/**
 * A Playwright project of the run. In a project of faults every check belongs to exactly one of its deviations, so one worker
 * runs the project's checks one after the other, switching its stack to each check's deviation (suites/fixtures/target.ts); a
 * project per deviation would start a worker process per deviation (185 of them, the bulk of the run's CPU). In a project of
 * alternatives (`together`) every check of its suites runs with all of its deviations on at once. `baseline`: no deviation.
 */
export interface PlannedProject {
  name: string;
  /** Clause-tag filter of its checks (absent: every check of its suites). */
  grep?: string;
  /** Suites it runs (absent: every suite). */
  suites?: string[];
  /** Suites it leaves out. */
  skipSuites?: string[];
  deviations: PlannedDeviation[];
  baseline?: boolean;
  together?: boolean;
  /** A run of alternatives limited to the checks that unsettled its first pass (secondPassPlan): their other reports stand. */
  again?: boolean;
}

/** A grep matching the clause tags exactly (REST-PAGE-01 must not match REST-PAGE-010). */
export const clauseGrep = (ids: string[]) => `(${ids.map((id) => '@' + escapeRegExp(id)).join('|')})(?![\\w-])`;

/**
 * A lookahead matching the checks of these titles (the results' form: describe titles and the check's joined by ` › `): Playwright
 * greps the file, describe and check titles joined by spaces, then the tags; a copy's marker may follow the title
 * (lib/selftest-copies.ts copiesGrep).
 */
export function titlesGrep(titles: string[]): string {
  return `(?=.*(?:^| )(?:${[...new Set(titles.map((t) => escapeRegExp(t.split(' › ').join(' '))))].join('|')})(?: ⟨[\\w-]+⟩)?(?: @|$))`;
}

const key = (c: ListedCheck) => `${c.project}\u0000${c.file}\u0000${c.title}`;

/** The suites (first folder of the spec files) whose checks name one of these clauses. */
const suitesOf = (clauses: string[], checks: ListedCheck[]) => [...new Set(checks.filter((c) => c.clauses.some((id) => clauses.includes(id))).map((c) => c.project))].sort();

type Acting = Deviation & { seam?: string; set?: Record<string, unknown>; edits?: Array<Record<string, unknown> & { at: string }>; where?: string | string[] };

/** An edit's operation as far as two edits of one path can both apply: a `replace` or `map` of different values, a `dropKeys` of different keys, composes. */
const opOf = (e: Record<string, unknown>): string => (e.replace ? `replace ${JSON.stringify((e.replace as unknown[])[0])}` : e.map ? `map ${JSON.stringify((e.map as unknown[])[0])}` : e.dropKeys ? `dropKeys ${JSON.stringify(e.dropKeys)}` : Object.keys(e).filter((k) => k !== 'at').join(','));

/**
 * Whether two alternatives act on the same thing, so that one could undo the other in a shared run: the same policy field, or
 * edits of the same path by the same operation at the same seam where their scopes (`where`) meet. (One hiding the other from
 * a check that judges both is not foreseen here: the hidden one then reports nothing, and the self-test fails on it.)
 */
function clash(x: Deviation, y: Deviation): boolean {
  const a = x as Acting;
  const b = y as Acting;
  if (a.seam !== b.seam) return false;
  if (Object.keys(a.set ?? {}).some((f) => f in (b.set ?? {}))) return true;
  const scope = (d: Acting) => (d.where === undefined ? undefined : [d.where].flat());
  const sa = scope(a);
  const sb = scope(b);
  const meet = !sa || !sb || sa.some((w) => sb.includes(w));
  return meet && (a.edits ?? []).some((ea) => (b.edits ?? []).some((eb) => ea.at === eb.at && opOf(ea) === opOf(eb)));
}

/** The clauses of `d` that no other of `group` names: those that show it by itself when they report. */
export const ownClauses = (d: { id: string; clauses: string[] }, group: Array<{ id: string; clauses: string[] }>): string[] =>
  d.clauses.filter((c) => !group.some((o) => o.id !== d.id && o.clauses.includes(c)));

/**
 * Alternatives grouped so that as few runs as possible cover every check of their suites: greedily, largest first, an alternative
 * joins the first group where it clashes with no member (clash). Each group runs every check of the suites of its members with
 * all of them on; a MUST or SHOULD failure in a group is laid to all of its members. A member that keeps no clause of its own
 * there (another member names each of its clauses, so a report of them says nothing of which one reported it) also runs in a
 * group of the members it can share with (no clash, each keeping a clause of its own) against the checks of their clauses only:
 * what it must report shows there. (A second whole-suite group only for such members ran every REST, GraphQL and bot-runtime
 * check again, 346 checks, to show three alternatives' reports.)
 */
function planAlternatives(alts: Deviation[], checks: ListedCheck[]): PlannedProject[] {
  const size = (suites: string[]) => checks.filter((c) => suites.includes(c.project)).length;
  const group = (devs: Deviation[], fits: (d: Deviation, g: { devs: Deviation[] }) => boolean) => {
    const groups: Array<{ devs: Deviation[] }> = [];
    for (const d of [...devs].sort((x, y) => size(suitesOf(y.clauses, checks)) - size(suitesOf(x.clauses, checks)) || x.id.localeCompare(y.id))) {
      let g = groups.find((x) => fits(d, x));
      if (!g) groups.push((g = { devs: [] }));
      g.devs.push(d);
    }
    return groups;
  };
  const whole = group(alts, (d, g) => !g.devs.some((m) => clash(m, d)));
  const unshown = whole.flatMap((g) => g.devs.filter((d) => ownClauses(d, g.devs).length === 0));
  const shown = group(unshown, (d, g) => {
    if (g.devs.some((m) => clash(m, d))) return false;
    const after = [...g.devs, d];
    return after.every((m) => ownClauses(m, after).length > 0);
  });
  return [
    ...whole.map((g, i) => {
      const suites = suitesOf(g.devs.flatMap((d) => d.clauses), checks);
      return { name: `alternatives-${i + 1}`, suites, together: true, deviations: g.devs.map((d) => ({ id: d.id, clauses: d.clauses, checks: size(suites) })) };
    }),
    ...shown.map((g, i) => {
      const clauses = [...new Set(g.devs.flatMap((d) => d.clauses))];
      const n = checks.filter((c) => c.clauses.some((id) => clauses.includes(id))).length;
      return { name: `alternatives-shown-${i + 1}`, suites: suitesOf(clauses, checks), grep: clauseGrep(clauses), together: true, deviations: g.devs.map((d) => ({ id: d.id, clauses: d.clauses, checks: n })) };
    }),
  ];
}

/** Greedy colouring, largest first: a deviation joins the first project none of whose checks it shares. Alternatives: planAlternatives. */
export function planSelftest(devs: Array<Deviation | Mutation>, checks: ListedCheck[], baseline: boolean): PlannedProject[] {
  // A wire fault is never an alternative: it runs like a deviation that breaks its clauses.
  const isAlt = (d: Deviation | Mutation): d is Deviation => !('wire' in d && d.wire) && isAlternative(d as Deviation);
  const faults = devs.filter((d) => !isAlt(d));
  const alts = devs.filter(isAlt);
  const checksOf = new Map(faults.map((d) => [d.id, new Set(checks.filter((c) => c.clauses.some((id) => d.clauses.includes(id))).map(key))]));
  const groups: Array<{ taken: Set<string>; devs: Array<Deviation | Mutation> }> = [];
  for (const d of [...faults].sort((x, y) => checksOf.get(y.id)!.size - checksOf.get(x.id)!.size)) {
    const mine = checksOf.get(d.id)!;
    let g = groups.find((x) => ![...mine].some((k) => x.taken.has(k)));
    if (!g) groups.push((g = { taken: new Set(), devs: [] }));
    for (const k of mine) g.taken.add(k);
    g.devs.push(d);
  }
  const projects: PlannedProject[] = groups.map((g, i) => ({
    name: `deviations-${i + 1}`,
    grep: clauseGrep([...new Set(g.devs.flatMap((d) => d.clauses))]),
    deviations: g.devs.map((d) => ({ id: d.id, clauses: d.clauses, checks: checksOf.get(d.id)!.size, ...('wire' in d && d.wire ? { wire: true } : {}) })),
  }));
  const alternatives = planAlternatives(alts, checks);
  if (!baseline) return [...projects, ...alternatives];
  // The baseline runs, with no deviation, every check the deviations run: the whole suites of the alternatives, and elsewhere
  // the checks of the faults' clauses.
  const whole = [...new Set(alternatives.flatMap((p) => p.suites ?? []))].sort();
  const clauses = [...new Set(faults.flatMap((d) => d.clauses))];
  return [
    ...(clauses.length ? [{ name: 'baseline', grep: clauseGrep(clauses), ...(whole.length ? { skipSuites: whole } : {}), deviations: [], baseline: true }] : []),
    ...(whole.length ? [{ name: 'baseline-suites', suites: whole, deviations: [], baseline: true }] : []),
    ...projects, ...alternatives,
  ];
}

/**
 * How many runs missed, for the second pass's limit: each unsettled deviation or wire fault, and each run of alternatives with an
 * unsettled member once (one flake in a run of alternatives unsettles all of them: it says nothing of how many missed).
 */
export function missedRuns(unsettled: string[], plan: PlannedProject[]): number {
  const together = plan.filter((p) => p.together);
  const inTogether = new Set(together.flatMap((p) => p.deviations.map((d) => d.id)));
  return unsettled.filter((id) => !inTogether.has(id)).length + together.filter((p) => p.deviations.some((d) => unsettled.includes(d.id))).length;
}

/**
 * The second pass of the runs of alternatives some member of which is `unsettled` (and of every other run a member of those is in,
 * so that each of their reports comes from one pass). When every member made its own clauses report in the first pass, only the
 * checks that reported outside their clauses or broke (`rerun`, titles as the results give them) run again, with the same
 * alternatives on: one late retry under load re-ran all 403 checks of the whole-suite run (about 70 s) while the 402 others had
 * reported what they must. Otherwise the runs run whole again. The unsettled faults are planned as in the first pass.
 */
export function secondPassPlan(unsettled: Array<Deviation | Mutation>, plan: PlannedProject[], checks: ListedCheck[], outcomes: Map<string, AlternativeOutcome>): { plan: PlannedProject[]; rerun?: Set<string>; members: string[] } {
  const together = plan.filter((p) => p.together);
  const ids = new Set(unsettled.map((m) => m.id));
  let runs: PlannedProject[] = [];
  for (let grew = true; grew;) {
    runs = together.filter((p) => p.deviations.some((d) => ids.has(d.id)));
    const before = ids.size;
    for (const p of runs) for (const d of p.deviations) ids.add(d.id);
    grew = ids.size > before;
  }
  const members = [...new Set(runs.flatMap((p) => p.deviations.map((d) => d.id)))];
  const faults = planSelftest(unsettled.filter((m) => !members.includes(m.id)), checks, false);
  const rerun = new Set(members.flatMap((id) => [...(outcomes.get(id)?.outside ?? []), ...(outcomes.get(id)?.harnessErrors ?? [])].map((x) => x.title)));
  const limited = rerun.size > 0 && members.every((id) => (outcomes.get(id)?.failed.length ?? 0) > 0);
  if (!limited) return { plan: [...faults, ...runs], members };
  const isRerun = (c: ListedCheck) => [...rerun].some((t) => t === c.title || t.endsWith(` › ${c.title}`));
  const limitedRuns = runs.map((p) => {
    const grep = `${p.grep ? `(?=.*(?:${p.grep}))` : ''}${titlesGrep([...rerun])}`;
    const clauses = p.grep ? [...new Set(p.deviations.flatMap((d) => d.clauses))] : undefined;
    const n = checks.filter((c) => (!p.suites || p.suites.includes(c.project)) && (!clauses || c.clauses.some((id) => clauses.includes(id))) && isRerun(c)).length;
    return { ...p, grep, again: true, deviations: p.deviations.map((d) => ({ ...d, checks: n })) };
  });
  return { plan: [...faults, ...limitedRuns], rerun, members };
}

/**
 * An alternative's outcome after a limited second pass: the first pass's reports of the checks that did not run again, and the
 * second pass's of those that did (`ranAgain`: the titles that ran with alternatives on in it; a check meant to run again that did
 * not keeps its first report, which unsettled it).
 */
export function mergedOutcome(first: AlternativeOutcome, second: AlternativeOutcome | undefined, ranAgain: Set<string>): AlternativeOutcome {
  const kept = <T extends { title: string }>(xs: T[]) => xs.filter((x) => !ranAgain.has(x.title));
  return {
    ...first,
    failed: [...kept(first.failed), ...(second?.failed ?? [])],
    harnessErrors: [...kept(first.harnessErrors), ...(second?.harnessErrors ?? [])],
    outside: [...kept(first.outside), ...(second?.outside ?? [])],
  };
}

/** `failed`: checks whose own assertions of the deviation's clauses failed (they catch it); `harnessErrors`: checks that broke in the harness (they never do, lib/verdicts.ts). */
export interface DeviationOutcome { deviation: string; ran: number; failed: Array<{ title: string; reason: string; clauses: string[] }>; harnessErrors: Array<{ title: string; reason: string }> }
/**
 * An alternative's outcome: `failed` are the checks that reported its own clauses (as it must); `outside` the clauses reported
 * by a check of its run that are no clause of any alternative of that run (a MUST or SHOULD failure above all: it must have none).
 */
export interface AlternativeOutcome extends DeviationOutcome { outside: Array<{ title: string; clause: string; reason: string }> }

/**
 * Reads the results of a selftest run (lib/results.ts, the same reading as every run): per deviation (the `deviation` annotation
 * its fixture adds), the checks that ran and those that caught it. A check catches a deviation when an assertion of one of the
 * deviation's clauses failed (lib/verdicts.ts failedClauses): a failure of another clause of the same check is no proof.
 * Alternatives (the `alternatives` annotation: all of a project's, on together): per alternative, the checks that reported a
 * clause of its own (named by no other alternative of the run), and every clause reported outside the clauses of the run's alternatives.
 */
export function readSelftestResults(file: string, devs: Array<{ id: string; clauses: string[] }> = []): { byDeviation: Map<string, DeviationOutcome>; byAlternative: Map<string, AlternativeOutcome>; baselineFailed: Array<{ title: string; reason: string }>; baselineRan: number; alternativeTitles: Set<string> } {
  const clausesOf = new Map(devs.map((d) => [d.id, d.clauses]));
  const byDeviation = new Map<string, DeviationOutcome>();
  const byAlternative = new Map<string, AlternativeOutcome>();
  const baselineFailed: Array<{ title: string; reason: string }> = [];
  let baselineRan = 0;
  /** The titles of the checks that ran with alternatives on. */
  const alternativeTitles = new Set<string>();
  // A copy's title is its check's (lib/selftest-copies.ts): every record names the check.
  const checks = readPlaywrightResults(file).map((k) => ({ ...k, title: originalTitle(k.title) }));
  // The checks the plain reference implementation judged in this same run (its baseline project): an alternative that leaves one
  // of them NOT JUDGED hides what its MUST and SHOULD clauses would say.
  const judgedByBaseline = new Set(checks.filter((k) => k.runProject?.startsWith('baseline') && (k.outcome === 'passed' || k.outcome === 'failed')).map((k) => `${k.file}\u0000${k.title}`));
  const catalogue = clauseById();
  for (const k of checks) {
    if (k.outcome === 'skipped') continue;
    const broke = k.outcome === 'failed' || k.outcome === 'harness-error';
    const reason = k.reason ?? k.outcome;
    // A harness error in the baseline is as bad as a failure: the checks do not run cleanly without deviations.
    if (k.runProject?.startsWith('baseline')) { baselineRan++; if (broke) baselineFailed.push({ title: k.title, reason }); continue; }
    if (k.alternatives) {
      alternativeTitles.add(k.title);
      const mine = new Set(k.alternatives.flatMap((a) => clausesOf.get(a) ?? []));
      const reported = reportedClauses(k);
      const outside = reported.filter((c) => !mine.has(c)).map((c) => ({ title: k.title, clause: c, reason: clauseReason(k, c) ?? reason }));
      // NOT JUDGED where the reference was judged, for a reason other than a clause of the run's alternatives (a set-up step of
      // theirs that failed names it): each MUST and SHOULD clause of the check left unjudged is laid to the run.
      if (k.outcome === 'not-judged' && judgedByBaseline.has(`${k.file}\u0000${k.title}`) && ![...mine].some((c) => (k.reason ?? '').includes(`(${c})`))) {
        for (const c of k.clauses) {
          const severity = catalogue.get(c)?.severity;
          if ((severity === 'MUST' || severity === 'SHOULD') && !mine.has(c) && !reported.includes(c)) outside.push({ title: k.title, clause: c, reason: `NOT JUDGED where the reference implementation was judged: ${reason}` });
        }
      }
      const group = k.alternatives.map((a) => ({ id: a, clauses: clausesOf.get(a) ?? [] }));
      for (const a of group) {
        const o: AlternativeOutcome = byAlternative.get(a.id) ?? { deviation: a.id, ran: 0, failed: [], harnessErrors: [], outside: [] };
        o.ran++;
        // Only a clause no other alternative of the run names shows this one (lib/selftest-plan.ts ownClauses).
        const own = reported.filter((c) => ownClauses(a, group).includes(c));
        if (own.length) o.failed.push({ title: k.title, reason, clauses: own });
        if (k.outcome === 'harness-error') o.harnessErrors.push({ title: k.title, reason });
        o.outside.push(...outside);
        byAlternative.set(a.id, o);
      }
      continue;
    }
    if (!k.deviation) continue;
    const o: DeviationOutcome = byDeviation.get(k.deviation) ?? { deviation: k.deviation, ran: 0, failed: [], harnessErrors: [] };
    o.ran++;
    const own = failedClauses(k).filter((c) => (clausesOf.get(k.deviation!) ?? k.clauses).includes(c));
    // A failure of its own clause recorded before the check ended NOT JUDGED still caught it (a harness error never does).
    if (k.outcome !== 'harness-error' && own.length) o.failed.push({ title: k.title, reason, clauses: own });
    if (k.outcome === 'harness-error') o.harnessErrors.push({ title: k.title, reason });
    byDeviation.set(k.deviation, o);
  }
  return { byDeviation, byAlternative, baselineFailed, baselineRan, alternativeTitles };
}
