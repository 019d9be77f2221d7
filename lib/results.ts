// Reads Playwright's JSON results and turns them into check outcomes and per-clause verdicts, with the exit code rule of DESIGN.md.
import fs from 'node:fs';
import { loadClauses, type Clause, type Severity } from './catalogue.js';

export type Outcome = 'passed' | 'failed' | 'skipped';
export interface CheckResult {
  title: string;
  file: string;
  project: string;
  clauses: string[];
  outcome: Outcome;
  /** Why it failed or was skipped, as the report shows it. */
  reason?: string;
  durationMs: number;
}
export type Verdict = 'pass' | 'fail' | 'warn' | 'skipped' | 'not-run';
export interface ClauseVerdict { clause: Clause; verdict: Verdict; checks: CheckResult[] }

export function readPlaywrightResults(file: string): CheckResult[] {
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  const out: CheckResult[] = [];
  const walk = (suite: any, titles: string[]) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        const tags: string[] = [...(spec.tags ?? []), ...(t.tags ?? [])].map((x: string) => x.replace(/^@/, ''));
        const annotated: string[] = (t.annotations ?? []).filter((a: any) => a.type === 'clause').map((a: any) => a.description);
        const clauses = [...new Set([...annotated, ...tags])];
        const last = t.results?.[t.results.length - 1];
        const outcome: Outcome = t.status === 'skipped' ? 'skipped' : t.status === 'expected' || t.status === 'flaky' ? 'passed' : 'failed';
        const skip = (t.annotations ?? []).find((a: any) => a.type === 'skip');
        const reason = outcome === 'failed' ? String(last?.error?.message ?? last?.errors?.[0]?.message ?? 'failed').replace(/\u001b\[[0-9;]*m/g, '') : outcome === 'skipped' ? skip?.description : undefined;
        out.push({ title: [...titles, spec.title].filter(Boolean).join(' › '), file: spec.file ?? suite.file, project: t.projectName, clauses, outcome, reason, durationMs: last?.duration ?? 0 });
      }
    }
    for (const s of suite.suites ?? []) walk(s, [...titles, s.title && !s.title.endsWith('.ts') ? s.title : ''].filter(Boolean));
  };
  for (const s of report.suites ?? []) walk(s, []);
  return out;
}

/** Per clause: fail if any check failed, pass if all that ran passed, skipped if all skipped. SHOULD/MAY failures are warnings. */
export function clauseVerdicts(checks: CheckResult[], opts: { reference: boolean }): ClauseVerdict[] {
  return loadClauses().filter((c) => !c.retired).map((clause) => {
    const mine = checks.filter((k) => k.clauses.includes(clause.id));
    let verdict: Verdict = 'not-run';
    if (mine.some((k) => k.outcome === 'failed')) verdict = failingSeverity(clause.severity, opts.reference) ? 'fail' : 'warn';
    else if (mine.some((k) => k.outcome === 'passed')) verdict = 'pass';
    else if (mine.length) verdict = 'skipped';
    return { clause, verdict, checks: mine };
  });
}

/** MUST fails a run; REF fails only against the reference implementation; SHOULD and MAY never do. */
export function failingSeverity(s: Severity, reference: boolean): boolean {
  return s === 'MUST' || (s === 'REF' && reference);
}

/** Exit code of a run: 1 when a failed check verifies a failing-severity clause, or names no clause at all (a harness bug is never hidden). */
export function exitCodeOf(checks: CheckResult[], opts: { reference: boolean }): 0 | 1 {
  const byId = new Map(loadClauses().map((c) => [c.id, c]));
  for (const k of checks) {
    if (k.outcome !== 'failed') continue;
    if (k.clauses.length === 0) return 1;
    if (k.clauses.some((id) => { const c = byId.get(id); return !c || failingSeverity(c.severity, opts.reference); })) return 1;
  }
  return 0;
}
