// The explore run in the vocabulary of `ces check`: one check per clause judged (FAIL with the shrunk session, PASS on evidence, NOT JUDGED when never exercised, a NOTE for a flaky failure), and the lines printed before the verdict table.
import { loadClauses } from '../lib/catalogue.js';
import type { CheckResult } from '../lib/results.js';
import { EXPLORE_CLAUSES } from './oracle.js';
import { REPLAYS, type ExploreFailure, type ExploreResult } from './run.js';
import { numbered } from './transcript.js';

/** Where a failure's session was written and the command that replays it. */
export interface Written { failure: ExploreFailure; file: string; replay: string }

const shrunkText = (f: ExploreFailure) => `shrunk from ${f.foundSteps} to ${f.steps.length} steps (${f.shrinks} shrinks${f.shrinkCut ? '; the shrink budget ran out first' : ''})`;

/** A clause's failure as a check reports it: the reason, and the numbered session with its replay command. */
export interface ClauseFailure { clause: string; reason: string; reproduction: string }

/**
 * One check per clause the explorer judges: FAIL on a failure, else PASS on evidence (with NOTEs), else NOT JUDGED saying why.
 * Shared by `ces explore` and by `ces replay` of a session transcript.
 */
export function clauseChecks(judged: Record<string, number>, failed: ClauseFailure[], notes: Array<{ clause: string; note: string }>, notJudged: string): CheckResult[] {
  const texts = new Map(loadClauses().map((c) => [c.id, c.text]));
  return EXPLORE_CLAUSES.map((clause) => {
    const base = { title: `explore: ${texts.get(clause) ?? clause}`, file: 'explore/run.ts', project: 'explore', clauses: [clause], durationMs: 0 };
    const mine = failed.filter((f) => f.clause === clause);
    if (mine.length) return { ...base, outcome: 'failed' as const, reason: mine.map((f) => f.reason).join('\n'), reproductions: mine.map((f) => f.reproduction) };
    if (!judged[clause]) return { ...base, outcome: 'not-judged' as const, reason: notJudged };
    const said = notes.filter((n) => n.clause === clause).map((n) => n.note);
    return { ...base, outcome: 'passed' as const, ...(said.length ? { notes: said } : {}) };
  });
}

/** The checks of an explore run: a failure whose shrunk session failed on every replay is a FAIL; a flaky one is a NOTE. */
export function exploreChecks(r: ExploreResult, written: Written[]): CheckResult[] {
  const failed = written.filter((w) => !w.failure.flaky).map((w) => ({
    clause: w.failure.finding.clause,
    reason: `${w.failure.finding.message} (a session of ${w.failure.steps.length} steps, ${shrunkText(w.failure)}, failing on each of ${REPLAYS} replays; ${w.file})`,
    reproduction: [...numbered(w.failure.records), w.replay].join('\n'),
  }));
  const notes = written.filter((w) => w.failure.flaky).map((w) => ({
    clause: w.failure.finding.clause,
    note: `flaky, not reported as a failure: ${w.failure.finding.message}; the shrunk session (${w.failure.steps.length} steps) failed on ${w.failure.replays.filter(Boolean).length} of ${REPLAYS} replays (${w.file})`,
  }));
  return clauseChecks(r.judged, failed, notes, `never exercised in ${r.explored.sessions} sessions (${r.explored.calls} calls): no call of the run gave evidence for this clause`);
}

/** What the run tried and found, before the verdict table: counts, then each failure's numbered session and its replay. */
export function summaryLines(r: ExploreResult, written: Written[]): string[] {
  const e = r.explored;
  const lines = [
    `explored ${e.sessions} sessions: ${e.steps} steps, ${e.conversations} conversations, ${e.calls} calls (seed ${r.seed}); with shrinking and replays ${r.total.sessions} sessions and ${r.total.calls} calls in ${Math.round(r.durationMs / 1000)} s`,
  ];
  if (!r.botCreated) lines.push(`no bot could be created (PUT /bots/{idOperator} failed): sessions ran with idOperators of the explorer's own, and refusals for them are NOT JUDGED (G36)`);
  for (const w of written) {
    const f = w.failure;
    lines.push('', `${f.flaky ? 'FLAKY' : 'FAIL'} ${f.finding.clause}: ${f.finding.message}`, `  ${shrunkText(f)}; replayed ${REPLAYS} times: ${f.replays.map((x) => (x ? 'failed' : 'passed')).join(', ')}`,
      ...numbered(f.records).map((l) => `  ${l}`), `  session: ${w.file}`, `  replay:  ${w.replay}`);
  }
  return lines;
}
