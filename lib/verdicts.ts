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
export const ANNOTATION = { warn: 'ces.warn', note: 'ces.note', notJudged: 'ces.not-judged', harness: 'ces.harness-error', reproduction: 'ces.reproduction', openapiJudged: 'ces.openapi-judged' } as const;
/** Prefix of a skip reason that means "not judged" (the skip annotation carries it). */
export const NOT_JUDGED_PREFIX = 'not judged: ';

/**
 * A failure of the harness itself (set-up, fixture, a bug in a check), never a verdict on the target.
 * Its message starts with "harness error:" so it survives any serialisation (Playwright keeps only text).
 */
export class HarnessError extends Error {
  override name = 'HarnessError';
  constructor(message: string, options?: { cause?: unknown }) { super(message.startsWith('harness') ? message : `harness error: ${message}`, options); }
}

// ANSI colour codes Playwright puts in its messages.
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

/**
 * Whether a failed check's message is a harness error: a HarnessError, a JavaScript programming error (a bug in the check),
 * or a time-out while setting up or tearing down a fixture. Assertion failures and the target's transport errors are not.
 */
export function isHarnessError(message: string | undefined): boolean {
  const m = plain(message ?? '').trimStart();
  // expect() refusing the *received* value's type (a header the target left out, so toMatch got undefined) judges the
  // target's answer: a failure. A matcher refusing its *expected* argument is a bug of the check.
  if (/^TypeError: expect\(received\)[\s\S]*Matcher error: received value must be/.test(m)) return false;
  return /^(Error: )?(HarnessError|harness( error| bug)?:)/.test(m)
    || /^(TypeError|ReferenceError|SyntaxError|RangeError)\b/.test(m)
    || /Test timeout of \d+ms exceeded while (setting up|tearing down)/.test(m)
    || /^Error: (Fixture|fixture) "[^"]+" /.test(m);
}

/** What a check can signal besides passing or failing (read from its annotations). */
export interface Judged { clauses: string[]; outcome: Outcome; warnings?: string[]; notes?: string[] }

/** MUST fails a run; REF fails only against the reference implementation; SHOULD and MAY never do. */
export function failingSeverity(s: Severity, reference: boolean): boolean {
  return s === 'MUST' || (s === 'REF' && reference);
}

/** The verdict one check gives one of its clauses (severity undefined: a clause not in the catalogue counts as MUST). */
export function verdictFor(k: Judged, severity: Severity | undefined, reference: boolean): Verdict {
  switch (k.outcome) {
    case 'harness-error': return 'harness-error';
    case 'skipped': return 'skipped';
    case 'not-judged': return 'not-judged';
    case 'failed':
      if (severity === undefined || failingSeverity(severity, reference)) return 'fail';
      return severity === 'MAY' ? 'note' : 'warn';
    case 'passed':
      return k.warnings?.length ? 'warn' : k.notes?.length ? 'note' : 'pass';
  }
}

/** The strongest of verdicts (VERDICT_ORDER); `not-run` for none. */
export function strongest(vs: Verdict[]): Verdict {
  for (const v of VERDICT_ORDER) if (vs.includes(v)) return v;
  return 'not-run';
}

/** The verdict of a check as a whole: the strongest over its clauses; a failed check naming no clause is a harness error. */
export function checkVerdict(k: Judged, severityOf: (id: string) => Severity | undefined, reference: boolean): Verdict {
  if (k.clauses.length === 0) return k.outcome === 'failed' ? 'harness-error' : verdictFor(k, 'MUST', reference);
  return strongest(k.clauses.map((id) => verdictFor(k, severityOf(id), reference)));
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
