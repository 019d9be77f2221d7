// Coverage of a run (issue 18): how many clauses were judged, skipped for lack of each part of the target, or not run, and what a service team must expose to get them judged.
import { PARTS, PART_NAMES, partsOfReason, type TargetPart } from './target.js';

/** What coverage needs of a check and of a clause verdict (kept structural, so every run kind can feed it). */
export interface CoverageCheck { clauses: string[]; outcome: string; reason?: string; project?: string }
export interface CoverageVerdict { id: string; verdict: string }

export interface Unjudged { id: string; why: string; parts: TargetPart[] }
export interface Coverage {
  total: number;
  judged: number;
  /** Per part the target lacks: the clauses skipped only for that lack (a clause lacking two parts counts under each). */
  byPart: Array<{ part: TargetPart; lacks: string; expose: string; clauses: string[] }>;
  /** Skipped for another reason (a check's own condition), NOT JUDGED, or broken by a harness error. */
  skippedOther: Unjudged[];
  /** No check of this run verifies them (load thresholds, vendor checks, a --grep or --suite that left them out). */
  notRun: Unjudged[];
  /** Every clause not judged, with its reason. */
  unjudged: Unjudged[];
}

/** A clause is judged when at least one of its checks ran to a verdict (passed or failed: pass, fail, warn, note). */
const JUDGED = new Set(['pass', 'fail', 'warn', 'note']);

export function coverageOf(checks: CoverageCheck[], verdicts: CoverageVerdict[]): Coverage {
  const byPart = new Map<TargetPart, string[]>();
  const skippedOther: Unjudged[] = [];
  const notRun: Unjudged[] = [];
  const unjudged: Unjudged[] = [];
  let judged = 0;
  for (const v of verdicts) {
    if (JUDGED.has(v.verdict)) { judged++; continue; }
    const mine = checks.filter((c) => c.clauses.includes(v.id));
    const skipped = mine.filter((c) => c.outcome === 'skipped');
    const parts = [...new Set(skipped.flatMap((c) => partsOfReason(c.reason)))];
    let u: Unjudged;
    if (parts.length) {
      u = { id: v.id, why: `target lacks ${parts.map((p) => PARTS[p].lacks).join(', ')}`, parts };
      for (const p of parts) byPart.set(p, [...(byPart.get(p) ?? []), v.id]);
    } else if (skipped.length) {
      u = { id: v.id, why: skipped.map((c) => c.reason).find((r) => r) ?? 'skipped', parts: [] };
      skippedOther.push(u);
    } else if (mine.some((c) => c.outcome === 'not-judged' || c.outcome === 'harness-error')) {
      const k = mine.find((c) => c.outcome === 'not-judged') ?? mine.find((c) => c.outcome === 'harness-error')!;
      u = { id: v.id, why: `${k.outcome === 'not-judged' ? 'not judged' : 'harness error'}: ${k.reason ?? ''}`, parts: [] };
      skippedOther.push(u);
    } else {
      const why = mine.length ? `its checks did not run (${[...new Set(mine.map((c) => c.outcome))].join(', ')})`
        : v.verdict === 'not-run' ? 'no check of this run verifies it (judged by `ces load`, `ces check`, or left out by --suite/--grep)' : v.verdict;
      u = { id: v.id, why, parts: [] };
      notRun.push(u);
    }
    unjudged.push(u);
  }
  return {
    total: verdicts.length,
    judged,
    byPart: PART_NAMES.filter((p) => byPart.has(p)).map((p) => ({ part: p, lacks: PARTS[p].lacks, expose: PARTS[p].expose, clauses: byPart.get(p)! })),
    skippedOther,
    notRun,
    unjudged,
  };
}

/** The terminal lines of a coverage: judged, skipped per lacking part with what to expose, not run. */
export function coverageLines(c: Coverage): string[] {
  const out = [`coverage: ${c.judged} of ${c.total} clauses judged; ${c.unjudged.length - c.notRun.length} skipped or not judged; ${c.notRun.length} not run${c.byPart.length ? ' (a clause lacking several parts counts under each):' : ''}`];
  for (const p of c.byPart) out.push(`  ${p.clauses.length} skipped: target lacks ${p.lacks}. To get them judged, expose ${p.expose}.`);
  if (c.skippedOther.length) out.push(`  ${c.skippedOther.length} skipped or not judged for other reasons (e.g. ${c.skippedOther[0]!.id}: ${c.skippedOther[0]!.why.split('\n')[0]})`);
  return out;
}
