// The one verdict vocabulary of every report (terminal, JUnit, Allure, HTML): PASS, FAIL, WARN, NOTE, SKIP, NOT JUDGED, HARNESS ERROR, with their legend and the exit-code rule.
import type { Severity } from './catalogue.js';

/**
 * Verdict ids as stored in summary.json and shown in HTML attributes (stable; `skipped` and `not-run` predate this module).
 * Strongest first: a clause takes the strongest verdict of its checks.
 */
export const VERDICT_ORDER = ['fail', 'harness-error', 'warn', 'note', 'pass', 'not-judged', 'skipped', 'not-run'] as const;
export type Verdict = (typeof VERDICT_ORDER)[number];

/** What the reports print for each verdict. */
export const LABEL: Record<Verdict, string> = {
  pass: 'PASS', fail: 'FAIL', warn: 'WARN', note: 'NOTE', skipped: 'SKIP', 'not-judged': 'NOT JUDGED', 'harness-error': 'HARNESS ERROR', 'not-run': 'NOT RUN',
};

/** The legend every report shows next to its verdicts. */
export const LEGEND: Record<Verdict, string> = {
  pass: 'the check observed the behaviour it judges and it conforms',
  fail: 'the check observed a behaviour that breaks a MUST clause (or a REF decision, against the reference implementation): fails the run',
  warn: 'a SHOULD clause is broken, a REF decision is not followed by another implementation, or an allowed variant was seen (reason given); fails the run only with --strict',
  note: 'a MAY clause is not followed, or something worth knowing that the spec allows (fields beyond those listed); never fails the run',
  skipped: 'not checked in this run: the target lacks what the check needs, or an option excludes it (reason given)',
  'not-judged': 'the check ran but could not observe what it judges (no answer, nothing of that kind happened, an option such as --conversations 1); never a pass',
  'harness-error': 'the harness itself broke (set-up, a fixture, a bug in a check): says nothing about the target; the run exits 2',
  'not-run': 'no check of this clause ran (outside the area checked)',
};

/** Verdicts a run's counts are made of: the area checked (`not-run` clauses are outside it). */
export const COUNTED: readonly Verdict[] = VERDICT_ORDER.filter((v) => v !== 'not-run');

/** How one check ended, as read from the test runner. */
export type Outcome = 'passed' | 'failed' | 'skipped' | 'not-judged' | 'harness-error';

/** Annotation types a check writes (suites/verdicts.ts) to qualify its outcome. */
export const ANNOTATION = {
  warn: 'ces.warn', note: 'ces.note', notJudged: 'ces.not-judged', harness: 'ces.harness-error', reproduction: 'ces.reproduction', openapiJudged: 'ces.openapi-judged',
  /** One assertion's result under its own clause: JSON `{ clause, failed?: reason }` (suites/verdicts.ts `under`). */
  clause: 'ces.clause',
  /** Written by the harness's auto fixture when a check ends: JSON `{ unattributed, stopped }` (absent: the check never ended). */
  ended: 'ces.ended',
  /**
   * A request of the check got no HTTP answer (refused, reset, timed out, TLS failure): suites/fixtures/target.ts `recorded`,
   * at the moment it happened. With the check's time-out, what tells a check that may have failed on its target's absence.
   */
  noAnswer: 'ces.no-answer',
} as const;
/**
 * The description of the `fail` annotation a check that failed gets as it ends (suites/fixtures/target.ts checkEnd): Playwright
 * then counts the failure as expected and keeps the worker for the next check instead of starting a new process (1.5 to 2.5
 * CPU-s each: a partner failing 30 checks cost a minute of CPU in restarts). The runner's first reporter
 * (suites/worker-kept-reporter.ts) takes the annotation off and makes the failure unexpected again before any other reporter
 * sees it, so every report shows the check as it failed.
 */
export const WORKER_KEPT = 'ces: failed; worker kept for the next check';
/** Prefix of a skip reason that means "not judged" (the skip annotation carries it). */
export const NOT_JUDGED_PREFIX = 'not judged: ';

/**
 * What a check saw that may be its target's absence rather than a wrong answer, from its records and Playwright's status only:
 * its first request without an HTTP answer (ANNOTATION.noAnswer), else its time-out; undefined when neither. Read by the check's
 * own fixture (is the target still there?) and by the results (lib/results.ts CheckResult.unanswered).
 */
export function unansweredOf(annotations: ReadonlyArray<{ type: string; description?: string }>, status: string | undefined, durationMs: number): string | undefined {
  const record = annotations.find((a) => a.type === ANNOTATION.noAnswer);
  if (record) return record.description ?? 'a request without answer';
  return status === 'timedOut' ? `its time-out (${durationMs} ms)` : undefined;
}

/** Why the harness broke (the code of a HarnessError): set-up, a call to its own partners or stack, a wait, a bug in a check. */
export type HarnessCode = 'set-up' | 'partner-control' | 'deviation-switch' | 'clock' | 'undeclared-part' | 'check-bug' | 'playwright';

/**
 * A failure of the harness itself (set-up, a fixture, a control call to its own fake partners or stack, a wait of its own, a bug
 * in a check), never a verdict on the target. Told apart from the target's failures by its type: the suites record every
 * HarnessError raised inside a check (`HarnessError.onRaise`, set once by suites/verdicts.ts), and `classifyOutcome` reads that
 * record. Its message also starts with "harness error:" for the reader, not for any decision.
 */
export class HarnessError extends Error {
  override name = 'HarnessError';
  /** Set once per process by the suites: records a raised HarnessError against the running check. */
  static onRaise: ((e: HarnessError) => void) | undefined;
  constructor(readonly code: HarnessCode, message: string, options?: { cause?: unknown }) {
    super(/^harness\b/.test(message) ? message : `harness error: ${message}`, options);
    HarnessError.onRaise?.(this);
  }
}

/** What a check can signal besides passing or failing (read from its annotations). */
export interface Judged {
  clauses: string[];
  outcome: Outcome;
  warnings?: string[];
  notes?: string[];
  /**
   * Results the check recorded per clause (suites/verdicts.ts `under`): each assertion judged under its own clause (G34).
   * A clause with recorded results takes its verdict from them only; the others (the check's primary clauses) from the check.
   */
  clauseResults?: Record<string, ClauseResult>;
  /**
   * How the check's failure relates to its clause results: `unattributed` errors (outside any `under`) belong to `owner`, the
   * check's only clause (a check naming several has none: such an error is a harness error `check-bug`, suites/verdicts.ts), and
   * fail its primary clauses in a results file without an owner; `stopped` means a MUST assertion under one clause ended the check before the rest ran. Undefined (a check
   * read from an older results file, or built outside the suites): every failure is unattributed.
   */
  failure?: { unattributed: number; stopped: boolean; owner?: string };
}

/** The recorded results of one clause within one check: how many assertions passed and the reasons of those that failed. */
export interface ClauseResult { passed: number; failed: string[]; notJudged?: string[] }

/**
 * The facts of how a check ended, from the test runner's structured report (never from message text):
 * `hookFailed`: an error in Playwright's hooks (fixture set-up or tear-down, beforeEach/afterEach);
 * `ended`: the harness's own auto fixture saw the check end (absent: the worker exited, or the run was interrupted);
 * `harness`: a HarnessError was raised inside the check (recorded by its type).
 */
export interface RunFacts {
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  hookFailed: boolean;
  ended: boolean;
  harness: boolean;
  notJudged: boolean;
}

/** The one place that decides how a check ended: a harness error by type and structure, else the check's own outcome. */
export function classifyOutcome(f: RunFacts): Outcome {
  if (f.status === 'skipped') return f.notJudged ? 'not-judged' : 'skipped';
  if (f.harness) return 'harness-error';
  // Ended NOT JUDGED after a clause failed softly (a REF set-up step, suites/verdicts.ts step): the recorded failure is that
  // clause's verdict (verdictFor), the rest NOT JUDGED; Playwright keeps the check failed.
  if (f.status === 'failed' && f.notJudged && !f.hookFailed && f.ended) return 'not-judged';
  if (f.status === 'passed') return 'passed';
  if (f.status === 'interrupted' || f.hookFailed || !f.ended) return 'harness-error';
  return 'failed';
}

/** MUST fails a run; REF fails only against the reference implementation; SHOULD and MAY never do. */
export function failingSeverity(s: Severity, reference: boolean): boolean {
  return s === 'MUST' || (s === 'REF' && reference);
}

/** The verdict of a failure under a clause of this severity (undefined: a clause not in the catalogue counts as MUST). */
const failedVerdict = (severity: Severity | undefined, reference: boolean): Verdict =>
  severity === undefined || failingSeverity(severity, reference) ? 'fail' : severity === 'MAY' ? 'note' : 'warn';

/** A check that passed for a clause: PASS, or WARN/NOTE when it said so. */
const passedVerdict = (k: Judged): Verdict => (k.warnings?.length ? 'warn' : k.notes?.length ? 'note' : 'pass');

/**
 * The verdict one check gives one of its clauses. With `clause`, each assertion counts under its own clause (G34): a clause's
 * recorded failure stands whatever the check's ending (NOT JUDGED, its time-out, a later harness error); the check's only clause
 * (`owner`) also takes the errors no `under` claimed; a clause with recorded results is otherwise judged by them; a primary
 * clause (none recorded) fails only with an unattributed failure, and is NOT JUDGED when a MUST assertion of another clause
 * stopped the check before its own assertions could finish.
 */
export function verdictFor(k: Judged, severity: Severity | undefined, reference: boolean, clause?: string): Verdict {
  const own = clause === undefined ? undefined : k.clauseResults?.[clause];
  if (own?.failed.length) return failedVerdict(severity, reference);
  switch (k.outcome) {
    case 'harness-error': return 'harness-error';
    case 'skipped': return 'skipped';
    case 'not-judged': return 'not-judged';
    default: break;
  }
  if (k.outcome === 'failed' && clause !== undefined && ownsUnattributed(k, clause)) return failedVerdict(severity, reference);
  // Said NOT JUDGED by the check (clauseNotJudged) with no assertion of its own run: never a pass.
  if (own && own.passed === 0 && own.notJudged?.length) return 'not-judged';
  // A check naming several clauses judges each by its own assertions: one it named and never asserted is not judged by it.
  if (k.outcome === 'passed' && clause !== undefined && !own && k.failure && k.failure.owner === undefined && k.clauses.length > 1) return 'not-judged';
  if (own) return passedVerdict(k);
  if (k.outcome === 'passed') return passedVerdict(k);
  if (!k.failure || k.failure.unattributed > 0) return failedVerdict(severity, reference);
  return k.failure.stopped ? 'not-judged' : passedVerdict(k);
}

/** Whether the errors no `under` claimed are this clause's: it is the only clause its check names. */
const ownsUnattributed = (k: Judged, clause: string): boolean => k.failure?.owner === clause && k.failure.unattributed > 0;

/** The reason behind one clause's verdict in a check: its own recorded failures, else the check's reason. */
export function clauseReason(k: Judged & { reason?: string }, clause: string): string | undefined {
  const own = k.clauseResults?.[clause];
  if (own?.failed.length) return own.failed.join('; ');
  if (k.outcome === 'failed' && ownsUnattributed(k, clause)) return k.reason;
  if (own && own.passed === 0 && own.notJudged?.length) return `not judged: ${own.notJudged.join('; ')}`;
  if (k.outcome === 'passed' && !own && k.failure && k.failure.owner === undefined && k.clauses.length > 1) return 'not judged: the check names this clause but made no assertion of it';
  if (k.outcome === 'failed' && k.failure && k.failure.unattributed === 0 && !own) {
    return k.failure.stopped ? `not judged: the check stopped at another clause's failure (${Object.entries(k.clauseResults ?? {}).filter(([, r]) => r.failed.length).map(([id]) => id).join(', ')}) before judging this one` : undefined;
  }
  return own ? undefined : k.reason;
}

/**
 * The clauses of a check whose own assertions failed (recorded, whatever the check's ending short of a harness error; the
 * owner under an error no `under` claimed; primary clauses under an unattributed failure of an older results file).
 */
export function failedClauses(k: Judged): string[] {
  if (k.outcome === 'harness-error' || k.outcome === 'passed') return [];
  return k.clauses.filter((id) => {
    const own = k.clauseResults?.[id];
    if (own?.failed.length) return true;
    if (k.outcome !== 'failed') return false;
    if (ownsUnattributed(k, id)) return true;
    if (own || k.failure?.owner !== undefined) return false;
    return !k.failure || k.failure.unattributed > 0;
  });
}

/**
 * The clauses a check reported against the target, whatever the check's own outcome: those with a failed assertion of their own
 * (a SHOULD or MAY failure leaves the check passing; a failure recorded before the check ended NOT JUDGED stands), the owner
 * under an error no `under` claimed, and primary clauses under an unattributed failure. What an alternative of `ces selftest`
 * may make report: its own REF clauses, nothing else.
 */
export function reportedClauses(k: Judged): string[] {
  if (k.outcome === 'passed') return k.clauses.filter((id) => (k.clauseResults?.[id]?.failed.length ?? 0) > 0);
  return failedClauses(k);
}

/** The strongest of verdicts (VERDICT_ORDER); `not-run` for none. */
export function strongest(vs: Verdict[]): Verdict {
  for (const v of VERDICT_ORDER) if (vs.includes(v)) return v;
  return 'not-run';
}

/** The verdict of a check as a whole: the strongest over its clauses; a failed check naming no clause is a harness error. */
export function checkVerdict(k: Judged, severityOf: (id: string) => Severity | undefined, reference: boolean): Verdict {
  // A clause's failure recorded before the harness broke stands for that clause; the check, and so the run, stays broken.
  if (k.outcome === 'harness-error') return 'harness-error';
  if (k.clauses.length === 0) return k.outcome === 'failed' ? 'harness-error' : verdictFor(k, 'MUST', reference);
  return strongest(k.clauses.map((id) => verdictFor(k, severityOf(id), reference, id)));
}

export interface RunVerdict { verdict: 'pass' | 'warn' | 'fail' | 'harness-error'; code: 0 | 1 | 2; sentence: string }

/**
 * The run's verdict and exit code, from the verdicts of its checks (one rule, so the printed verdict and the exit code agree):
 * 2 on any harness error; 1 on a FAIL, or a WARN under --strict; else 0.
 */
export function runVerdict(checkVerdicts: Verdict[], opts: { strict?: boolean } = {}): RunVerdict {
  const n = (v: Verdict) => checkVerdicts.filter((x) => x === v).length;
  if (n('harness-error')) return { verdict: 'harness-error', code: 2, sentence: `${LABEL['harness-error']}: ${n('harness-error')} check(s) broke inside the harness; the target was not fully judged${n('fail') ? ` (and ${n('fail')} check(s) failed)` : ''}` };
  if (n('fail')) return { verdict: 'fail', code: 1, sentence: `${LABEL.fail}: ${n('fail')} check(s) failed a clause that fails the run` };
  if (n('warn') && opts.strict) return { verdict: 'fail', code: 1, sentence: `${LABEL.fail}: ${n('warn')} check(s) gave WARN and --strict makes WARN fail the run` };
  if (n('warn')) return { verdict: 'warn', code: 0, sentence: `${LABEL.pass} with ${n('warn')} WARN: no clause that fails the run failed (--strict would make WARN fail)` };
  return { verdict: 'pass', code: 0, sentence: `${LABEL.pass}: no clause that fails the run failed` };
}

/** Counts of verdicts over the area checked (`not-run` left out), in VERDICT_ORDER, as `3 PASS, 1 FAIL`. */
export function countsLine(vs: Verdict[]): string {
  return COUNTED.filter((v) => vs.includes(v)).map((v) => `${vs.filter((x) => x === v).length} ${LABEL[v]}`).join(', ') || 'nothing checked';
}

/**
 * Wraps text at word boundaries to lines of at most `width` characters of text (a word longer than that stays whole on
 * its own line: a reason is never cut mid-word); lines after the first are prefixed by `indent` (the column they continue).
 * Existing line breaks are kept.
 */
export function wrapText(text: string, width: number, indent = ''): string {
  const out: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const w of para.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + w.length > width) { out.push(line); line = w; } else line = line ? `${line} ${w}` : w;
    }
    out.push(line);
  }
  return out.map((l, i) => (i ? indent + l : l)).join('\n');
}
