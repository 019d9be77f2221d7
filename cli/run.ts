// Runs Playwright suites against a target into reports/<run-id>/, then records verdicts and refreshes the landing page.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT, REPORTS, PLAYWRIGHT_CONFIG, RUNNER_HOOKS, playwrightCli, playwrightEnv } from '../lib/paths.js';
import { readPlaywrightResults, clauseVerdicts, checkVerdicts, checkReasons, scrubDir, findLeaks, type CheckResult, type ClauseVerdict } from '../lib/results.js';
import { COUNTED, LABEL, LEGEND, clauseReason, verdictFor, countsLine, runVerdict, wrapText, type Verdict } from '../lib/verdicts.js';
import { junitXml } from '../lib/junit.js';
import { addSecret, knownSecrets, mask } from '../lib/mask.js';
import { targetSecrets, type Target } from '../lib/target.js';
import { landingOf, buildEvidence, buildRunPage, writeRunSummary, type RunSummary } from '../lib/landing.js';
import { coverageOf, coverageLines } from '../lib/coverage.js';
import { UsageError } from './usage.js';
import { baselineLines, compareWithBaseline, writeBaseline, type Baseline } from '../lib/baseline.js';

/** Baseline options of a conformance run (`ces test --baseline F`, `--write-baseline F`). */
export interface BaselineOptions { baseline?: { file: string; data: Baseline }; writeBaseline?: string }

/** Registers a target's keys and passwords with lib/mask.ts in this process (the suites register them in theirs). */
export function registerTargetSecrets(target: Partial<Target>): void {
  for (const s of targetSecrets(target)) addSecret(s);
}

export function newRunDir(kind: string): { id: string; dir: string } {
  const id = `${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}-${kind}-${process.pid}`;
  const dir = path.join(REPORTS, id);
  fs.mkdirSync(dir, { recursive: true });
  return { id, dir };
}

/**
 * The folder a `--report-dir` names, made ready for a run: created when missing; emptied when it holds a former run's reports
 * (its summary.json, results.json or check-target.json), so nothing of that run is read or shown as this one's (a re-run in CI
 * with a fixed folder whose Playwright failed to start would otherwise report the former run's verdicts). Any other folder with
 * files in it is refused: its files are not ours to delete.
 */
export function reportDirOf(option: string): { id: string; dir: string } {
  const dir = path.resolve(option);
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) throw new UsageError(`--report-dir ${option}: is a file; give a folder (new, empty, or a former run's)`);
  const entries = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  if (entries.length && !FORMER_RUN_MARKS.some((f) => entries.includes(f))) {
    throw new UsageError(`--report-dir ${option}: the folder holds files that are not a former ces run's reports (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}); give a new or empty folder, or a former run's`);
  }
  for (const e of entries) fs.rmSync(path.join(dir, e), { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return { id: path.basename(dir), dir };
}
/** Files only a ces run writes into its folder: one of them marks the folder as a former run's. */
const FORMER_RUN_MARKS = ['summary.json', 'results.json', 'check-target.json'];
/** What Playwright writes into a run folder: removed before it starts, so a run that wrote nothing is never read as one that did. */
const PLAYWRIGHT_OUTPUTS = ['results.json', 'junit.xml', 'playwright', 'allure-results', 'test-output'];
/** What runPlaywright masked once Playwright ended (FinishOptions.masked). Allure's results, edited later, are masked again by cli/allure.ts. */
export const MASKED_BY_RUN: readonly string[] = PLAYWRIGHT_OUTPUTS;
/** Files finishRun writes itself (over Playwright's junit.xml): masked there whatever the caller masked before. */
const WRITTEN_HERE = ['junit.xml', 'summary.json'];

export interface PlaywrightRun { checks: CheckResult[]; code: number | null }

/**
 * Spawns `playwright test` with the target in CES_TARGET; resolves with the parsed checks. With `targetFiles` (one embedded stack
 * per worker), worker k uses targetFiles[k] (CES_TARGETS) and the run has as many workers as files.
 */
export async function runPlaywright(opts: { targetFile: string; targetFiles?: string[]; runDir: string; projects?: string[]; grep?: string; quiet?: boolean; workers?: number; extraEnv?: Record<string, string>; progress?: boolean; /** false: no Allure results (no report will be made of them; Allure's reporter was a quarter of the runner's CPU). */ allure?: boolean; /** Stops the run (its embedded stacks failed to start). */ signal?: AbortSignal }): Promise<PlaywrightRun> {
  const args = [...RUNNER_HOOKS, playwrightCli(), 'test', '-c', PLAYWRIGHT_CONFIG];
  // A suite is a folder of suites/ (the projects of the configuration group files by how long they take, not by suite).
  for (const p of opts.projects ?? []) args.push(`suites/${p}/`);
  if (opts.grep) args.push('--grep', opts.grep);
  for (const out of PLAYWRIGHT_OUTPUTS) fs.rmSync(path.join(opts.runDir, out), { recursive: true, force: true });
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT, ...(opts.signal ? { signal: opts.signal } : {}),
      // `progress`: a quiet run whose reporter prints one line per unit of work (selftest: per deviation).
      stdio: opts.quiet && !opts.progress ? ['ignore', 'ignore', 'inherit'] : 'inherit',
      env: {
        ...process.env, ...playwrightEnv(), CES_TARGET: opts.targetFile, CES_RUN_DIR: opts.runDir, CES_QUIET: opts.quiet ? '1' : '0', CES_ALLURE: opts.allure === false ? '0' : '1',
        ...(opts.targetFiles && opts.targetFiles.length > 1 ? { CES_TARGETS: JSON.stringify(opts.targetFiles), CES_WORKERS: String(opts.targetFiles.length) } : opts.workers ? { CES_WORKERS: String(opts.workers) } : {}),
        ...opts.extraEnv,
      },
    });
    child.on('exit', (c) => resolve(c));
    // Stopped through `signal`: its exit follows.
    child.on('error', (e) => { if (e.name !== 'AbortError') { console.error(`playwright could not start: ${e.message}`); resolve(null); } });
  });
  // Reports concern: whatever Playwright wrote (assertion messages, error contexts, its HTML report, allure-results) is
  // masked before anything reads it or Allure turns it into a report.
  for (const f of opts.targetFiles ?? [opts.targetFile]) {
    try { registerTargetSecrets(JSON.parse(fs.readFileSync(f, 'utf8'))); } catch { /* an unreadable target failed the run already */ }
  }
  // Only Playwright's outputs: the target file may sit in the run folder and be needed by a next run of the same target.
  for (const out of PLAYWRIGHT_OUTPUTS) scrubDir(path.join(opts.runDir, out));
  const resultsFile = path.join(opts.runDir, 'results.json');
  if (!fs.existsSync(resultsFile)) return { checks: [], code };
  return { checks: readPlaywrightResults(resultsFile), code };
}

/**
 * Options of finishRun: `strict` makes WARN fail; `area` prints the table of that area's clauses (vendor checks);
 * `baseline` forgives the failures it lists (`ces test --baseline F`); `writeBaseline` records this run's failures.
 */
export interface FinishOptions extends BaselineOptions {
  strict?: boolean; area?: string;
  /** The run stopped early (the partner of `ces check` stopped answering): exit 2 with this reason. */
  stopped?: string;
  /** Said with the verdict (e.g. unsigned calls). */
  qualifier?: string;
  /** The clauses of what the run checked (a vendor check's area, or its --only list): its coverage counts these, not the whole catalogue. */
  checked?: string[];
  /** Sub-folders of the run another process is still writing (the Allure report): left to finishWritten once they are there. */
  writing?: string[];
  /**
   * Files and sub-folders of the run its caller masked since they were last written (runPlaywright's outputs: MASKED_BY_RUN):
   * not masked a second time (a whole run's are ~40 MB: 1.5 s), still searched for secrets with everything else.
   */
  masked?: readonly string[];
}

/** Writes the run's summary, JUnit and evidence, refreshes reports/index.html, prints the terminal table and the verdict; returns the exit code. */
export function finishRun(run: { id: string; dir: string }, kind: string, target: Target, checks: CheckResult[], extra: Partial<RunSummary> = {}, opts: FinishOptions = {}): 0 | 1 | 2 {
  registerTargetSecrets(target);
  const reference = target.reference === true;
  const verdicts = clauseVerdicts(checks, { reference });
  const perCheck = checkVerdicts(checks, { reference });
  const outcome = runVerdict(perCheck, { strict: opts.strict });
  const failing = verdicts.filter((v) => v.verdict === 'fail');
  const judged = new Set(verdicts.filter((v) => ['pass', 'fail', 'warn', 'note'].includes(v.verdict)).map((v) => v.clause.id));
  const baseline = opts.baseline ? compareWithBaseline(opts.baseline.file, opts.baseline.data, failing.map((v) => v.clause.id), judged) : undefined;
  let code = outcome.code;
  // With a baseline, known failures are reported but do not fail the run; new ones do (and harness errors still exit 2).
  if (baseline && code === 1) code = baseline.regressions.length || (opts.strict && perCheck.includes('warn')) ? 1 : 0;
  // A target that stopped answering: the run could not judge it (exit 2), whatever the checks before it said.
  if (extra.targetLost || opts.stopped) code = 2;
  if (opts.writeBaseline) writeBaseline(opts.writeBaseline, mask(target.base_url), failing.map((v) => ({ id: v.clause.id, severity: v.clause.severity, text: v.clause.text })));
  const summary: RunSummary = {
    id: run.id, kind, date: new Date().toISOString(), target: mask(target.base_url), reference, deviations: target.deviations ?? [],
    // Each check with its verdict beside Playwright's outcome: every report counts verdicts (a NOTE is a failed test to Playwright).
    exitCode: code, checks: checks.map((c, i) => ({ ...c, verdict: perCheck[i]! })), verdicts: verdicts.map((v) => ({ id: v.clause.id, verdict: v.verdict, checks: v.checks.map((c) => c.title) })),
    ...(opts.strict ? { strict: true } : {}), ...(opts.stopped ? { stopped: opts.stopped } : {}), ...extra,
  };
  if (checks.length) summary.coverage = coverageOf(checks, opts.checked ? summary.verdicts.filter((v) => opts.checked!.includes(v.id)) : summary.verdicts);
  if (baseline) summary.baseline = baseline;
  // A selftest's outcome is its mutations (unless the caller states its exit code): a missed deviation is a failed run.
  if (extra.mutations && extra.exitCode === undefined) summary.exitCode = extra.mutations.every((m) => m.caught) ? code : 1;
  writeRunSummary(run.dir, summary);
  if (checks.length) fs.writeFileSync(path.join(run.dir, 'junit.xml'), junitXml(`CES ${kind} ${run.id}`, checks, perCheck));
  // The embedded target file and anything written since the suites ran (k6 summaries, sub-runs, the files written here) get
  // masked too.
  scrubDir(run.dir, { skip: [...(opts.writing ?? []), ...(opts.masked ?? []).filter((f) => !WRITTEN_HERE.includes(f))] });
  const evidence = buildEvidence(run.dir);
  // The landing page of the folder holding the run (reports/, or the parent of a --report-dir): it lists this run.
  // The page of this run: what `report:` opens, whatever other runs the folder holds (its index.html is the overview, built
  // after it so that it links it).
  const own = buildRunPage(run.dir);
  const landing = landingOf(run.dir);
  if (checks.length) console.log(`\n${terminalReport(checks, perCheck, verdicts, { area: opts.area, reference })}`);
  if (summary.coverage) console.log(`\n${coverageLines(summary.coverage).join('\n')}`);
  if (baseline) console.log(`\n${baselineLines(baseline).join('\n')}`);
  if (opts.writeBaseline) console.log(`baseline written: ${opts.writeBaseline} (${failing.length} failing clause(s))`);
  warnLeaks(run.dir, findLeaks(run.dir, knownSecrets(), { skip: opts.writing }));
  console.log(`\nreport: ${own}\noverview: ${landing ?? `${path.join(path.dirname(run.dir), 'index.html')} is not a ces landing page: left as it is`}\nevidence: ${evidence}\nrun folder: ${run.dir}`);
  // A run without checks of its own (selftest: its sub-runs have them) prints its own outcome instead.
  if (checks.length) console.log(`\nverdict: ${runSentence(outcome.sentence, summary)}${opts.qualifier ? ` — ${opts.qualifier}` : ''} (exit ${summary.exitCode})`);
  return summary.exitCode as 0 | 1 | 2;
}

/** A report written beside finishRun (FinishOptions.writing), once it is there: masked, searched for secrets, linked from the landing page. */
export function finishWritten(run: { dir: string }, folder: string): void {
  const dir = path.join(run.dir, folder);
  scrubDir(dir);
  warnLeaks(run.dir, findLeaks(dir, knownSecrets()));
  buildRunPage(run.dir);
  landingOf(run.dir);
}

function warnLeaks(runDir: string, leaks: Array<{ file: string }>): void {
  if (leaks.length) console.error(`\nWARNING: a secret is still present under ${runDir} in ${[...new Set(leaks.map((l) => path.relative(runDir, l.file)))].join(', ')} (a report writer bypassed lib/mask.ts)`);
}

/** The verdict sentence, said against the baseline or the lost target when the run had one. */
function runSentence(sentence: string, s: RunSummary): string {
  if (s.stopped) return `STOPPED: ${s.stopped}`;
  if (s.targetLost) return `NOT JUDGED: the run could not judge the target (it stopped answering at ${s.targetLost.since}); ${s.targetLost.notJudged} check(s) not judged`;
  if (s.baseline && s.exitCode === 0 && s.baseline.known.length) return `PASS against the baseline: ${s.baseline.known.length} known failure(s), no new failure`;
  return sentence;
}

/** Width of terminal lines; reasons wrap at word boundaries under it. */
const WIDTH = Math.max(60, Math.min(process.stdout.columns || 120, 160));

/** The text of a reason a reader needs: the message whole, without Playwright's matcher hint and received/expected dump. */
export function reasonText(reason: string | undefined): string {
  const r = (reason ?? '').replace(/\u001b\[[0-9;]*m/g, '').replace(/^Error:\s*/, '');
  const cut = r.search(/\n\s*\n\s*(expect\(|Expected:|Received:|Call log:)/);
  return mask((cut >= 0 ? r.slice(0, cut) : r).trim());
}

/** Longest reason in the clause table of a vendor check: its whole sentences up to this length; the whole reason is in evidence.html. */
const TABLE_REASON_MAX = 240;
/** A first sentence longer than this is cut at a word (a reason without sentence ends, e.g. a list of values). */
const SENTENCE_MAX = 600;

/** Where the first sentence of a text ends (after its period), or -1: a period, then a space and a capital or an opening bracket. */
function sentenceEnd(text: string, from = 0): number {
  const m = /[.!?](?=\s+[A-Z(])/g;
  m.lastIndex = from;
  const hit = m.exec(text);
  return hit ? hit.index + 1 : -1;
}

/** A reason as a sentence: a capital first, a full stop last (reasons written as phrases, `no transfer reply in the conversation`). */
export function asSentence(reason: string): string {
  const r = reason.trim();
  if (!r) return r;
  // A first word in lower case only is a word of the sentence (an identifier such as editorUrl keeps its spelling).
  const head = /^[a-z]+(?=[\s,:;.]|$)/.test(r) ? `${r.charAt(0).toUpperCase()}${r.slice(1)}` : r;
  return `${head}${/[.!?]$/.test(r) ? '' : '.'}`;
}

/** The first sentence of a reason (the whole reason when it has one sentence): what NOT JUDGED rows are grouped by. */
export function firstSentence(reason: string): string {
  const r = reason.replace(/\s+/g, ' ').trim();
  const end = sentenceEnd(r);
  return end < 0 ? r : r.slice(0, end);
}

/**
 * A reason for the table, in whole sentences: as many as fit in `max`, at least the first (a first sentence over SENTENCE_MAX is
 * cut at a word), saying where the rest is.
 */
export function briefReason(reason: string, max = TABLE_REASON_MAX): string {
  const r = reason.replace(/\s+/g, ' ').trim();
  if (r.length <= max) return r;
  let cut = sentenceEnd(r);
  for (let next = cut; next > 0 && next <= max; next = sentenceEnd(r, next + 1)) cut = next;
  if (cut < 0 || cut > SENTENCE_MAX) {
    const head = r.slice(0, Math.min(SENTENCE_MAX, cut < 0 ? SENTENCE_MAX : cut));
    cut = head.lastIndexOf(' ') > 0 ? head.lastIndexOf(' ') : head.length;
  }
  return cut >= r.length ? r : `${r.slice(0, cut).replace(/[\s,;:(]+$/, '')} … (whole reason in evidence.html)`;
}

/** Reasons of a check for its verdict (lib/results.ts checkReasons), as a reader needs them. */
const reasonsOf = (c: CheckResult, v: Verdict): string[] => (v === 'pass' ? [] : checkReasons(c).map(reasonText));

/**
 * The terminal report: counts over the area checked, the table of an area's clauses (vendor checks) or the checks that did
 * not pass, harness errors apart, the reproduction of the first MUST failure, and the legend of the verdicts shown.
 */
export function terminalReport(checks: CheckResult[], perCheck: Verdict[], verdicts: ClauseVerdict[], opts: { area?: string; reference?: boolean } = {}): string {
  const area = opts.area;
  const lines: string[] = [];
  // The area checked: clauses with a check in this run (of the vendor area, for `ces check`).
  const inArea = verdicts.filter((v) => v.verdict !== 'not-run' && (!area || v.clause.area === area));
  lines.push(`clauses${area ? ` of ${area}` : ' checked'} (${inArea.length}): ${countsLine(inArea.map((v) => v.verdict))}`);
  lines.push(`checks (${checks.length}): ${countsLine(perCheck)}`);
  if (area) {
    const head = ['clause', 'severity', 'verdict'];
    const w = [0, 1, 2].map((i) => Math.max(head[i]!.length, ...inArea.map((v) => [v.clause.id, v.clause.severity, LABEL[v.verdict]][i]!.length)));
    const row = (c: string[]) => c.map((x, i) => (i < 3 ? x.padEnd(w[i]!) : x)).join('  ');
    const indent = ' '.repeat(row(['', '', '', '']).length);
    const reasonOf = (v: ClauseVerdict): string => {
      const k = v.checks.find((c) => verdictFor(c, v.clause.severity, opts.reference === true, v.clause.id) === v.verdict) ?? v.checks[0];
      // The reason of this clause in that check: its own assertions' failures (G34), else the check's.
      const own = k && v.verdict !== 'pass' ? clauseReason(k, v.clause.id) : undefined;
      return k && v.verdict !== 'pass' ? asSentence(own !== undefined ? reasonText(own) : reasonsOf(k, v.verdict).join('; ')) : '';
    };
    // The reason wraps under its own column, at word boundaries: whole sentences, the whole of it in evidence.html.
    const line = (v: ClauseVerdict, reason: string) => row([v.clause.id, v.clause.severity, LABEL[v.verdict], '']) + wrapText(reason ? briefReason(reason) : '', Math.max(40, WIDTH - indent.length), indent);
    lines.push('', row([...head, 'reason']), row([...w.map((n) => '-'.repeat(n)), '------']));
    // What needs action first (FAIL, HARNESS ERROR, WARN, NOTE), then what passed or was skipped; NOT JUDGED last, by cause.
    const rank: Verdict[] = ['fail', 'harness-error', 'warn', 'note', 'pass', 'skipped'];
    for (const v of [...inArea].filter((x) => x.verdict !== 'not-judged').sort((a, b) => rank.indexOf(a.verdict) - rank.indexOf(b.verdict))) lines.push(line(v, reasonOf(v)));
    const causes = new Map<string, Array<{ v: ClauseVerdict; reason: string }>>();
    for (const v of inArea.filter((x) => x.verdict === 'not-judged')) {
      const reason = reasonOf(v).replace(/\s+/g, ' ').trim();
      const cause = firstSentence(reason);
      causes.set(cause, [...(causes.get(cause) ?? []), { v, reason }]);
    }
    for (const [cause, list] of [...causes].sort((a, b) => b[1].length - a[1].length)) {
      // A cause shared by several clauses is said once, above them (with what they all add); each row keeps what it adds of its own.
      const rests = list.map(({ reason }) => reason.slice(cause.length).trim());
      // What most of them add is said once too (when several add it); the rows say what they add beyond it.
      const counted = [...new Set(rests)].map((r) => [r, rests.filter((x) => x === r).length] as const).sort((a, b) => b[1] - a[1]);
      const shared = counted[0] && counted[0][1] > 1 ? counted[0][0] : '';
      if (list.length > 1) lines.push(wrapText(`${list.length} clauses not judged: ${cause}${shared ? ` ${shared}` : ''}`, WIDTH, '  '));
      list.forEach(({ v, reason }, i) => lines.push(line(v, list.length > 1 ? (rests[i] === shared ? '' : rests[i]!) : reason)));
    }
  }
  const listed = (want: Verdict[]) => checks.map((c, i) => ({ c, v: perCheck[i]! })).filter(({ v }) => want.includes(v));
  const show = (title: string, rows: Array<{ c: CheckResult; v: Verdict }>) => {
    if (!rows.length) return;
    lines.push('', title);
    for (const { c, v } of rows) {
      lines.push(`  ${wrapText(`${LABEL[v]} [${c.clauses.join(', ')}] ${c.title}`, WIDTH - 2, '       ')}`);
      for (const r of reasonsOf(c, v)) if (r) lines.push(`       ${wrapText(r, WIDTH - 7, '       ')}`);
    }
  };
  if (!area) show('checks that did not pass:', listed(['fail', 'warn', 'note']));
  show('harness errors (the harness broke; these say nothing about the target):', listed(['harness-error']));
  const firstFail = listed(['fail']).find(({ c }) => c.reproductions?.length);
  if (firstFail) lines.push('', `reproduction of the first failure (${firstFail.c.clauses.join(', ')}: ${firstFail.c.title}):`, ...firstFail.c.reproductions![0]!.split('\n').map((l) => `  ${l}`));
  const present = [...new Set([...perCheck, ...inArea.map((v) => v.verdict)])];
  lines.push('', 'legend:', ...COUNTED.filter((v) => present.includes(v)).map((v) => `  ${LABEL[v].padEnd(14)}${wrapText(LEGEND[v], WIDTH - 16, ' '.repeat(16))}`));
  return lines.join('\n');
}
