// The landing page reports/index.html and each run's evidence.html: static pages (inline CSS/JS/SVG) built from run summaries and Playwright results.
import fs from 'node:fs';
import path from 'node:path';
import { REPORTS, REPORT_TEMPLATE, ROOT } from './paths.js';
import { loadClauses, loadDeviations, type Clause, type Deviation, type Severity } from './catalogue.js';
import { checkAnchor, maskAll, readPlaywrightEvidence, type CheckEvidence, type CheckResult, type EvidenceAttachment } from './results.js';
import { evidenceSvg } from './svg.js';
import type { Coverage } from './coverage.js';
import type { BaselineOutcome } from './baseline.js';
import { LABEL, LEGEND, VERDICT_ORDER, checkVerdict, countsLine, verdictFor, type Verdict } from './verdicts.js';
import { writeFileAtomic } from './write-atomic.js';
import { clauseProofs, isProven, loadProofRecord, type ClauseProof, type ProofRecord } from './proofs.js';

export interface RunSummary {
  id: string;
  kind: string;
  date: string;
  target: string;
  reference: boolean;
  deviations: string[];
  exitCode: number;
  /** `--strict`: WARN failed the run. */
  strict?: boolean;
  /** The run stopped early (the partner stopped answering), and why. */
  stopped?: string;
  /** The checks, each with its verdict (lib/verdicts.ts) beside Playwright's outcome; older summaries have no verdict (then computed). */
  checks: Array<CheckResult & { verdict?: Verdict }>;
  verdicts: Array<{ id: string; verdict: string; checks: string[] }>;
  /** The target stopped answering during the run: since when, why, how many checks were not judged (exit 2). */
  targetLost?: { since: string; cause: string; check: string; notJudged: number };
  /** Conformance runs: clauses judged, skipped per part the target lacks (with what to expose), not run. */
  coverage?: Coverage;
  /** `ces test --baseline F`: known failures, new ones, fixed ones. */
  baseline?: BaselineOutcome;
  /** selftest only: deviation id → caught or not. */
  /**
   * `ces selftest`: each deviation, whether it was caught, the checks and clauses that caught it. An alternative (`kind`) ran
   * every check of its suites (`checksRun`); it passes (`caught`) when its own clauses reported and nothing `outside` them did.
   */
  mutations?: Array<{ deviation: string; clauses: string[]; caught: boolean; failedChecks: string[]; failedClauses?: string[]; harnessErrors?: string[]; kind?: 'alternative'; checksRun?: number; outside?: string[] }>;
  /** `ces selftest --wire`: each wire fault, its clauses, and the clauses whose own assertions failed under it. */
  wireFaults?: Array<{ fault: string; clauses: string[]; caught: boolean; failedChecks?: string[]; failedClauses?: string[]; harnessErrors?: string[] }>;
  /** Self-test: deviations and wire faults caught only on the second pass (missed or broken on the first: flaky under load). */
  secondPass?: string[];
}

/** The catalogue a page is built against (tests pass their own; the CLI uses fixtures/). */
export interface BuildOptions {
  reportsDir?: string; clauses?: Clause[]; deviations?: Deviation[]; proofRecord?: ProofRecord;
  /** The page of one run (`<run>/index.html`, what `report:` prints): its verdicts only, whatever else the folder holds. */
  run?: string;
}

export function writeRunSummary(dir: string, s: RunSummary): void {
  writeFileAtomic(path.join(dir, 'summary.json'), maskAll(JSON.stringify(s, null, 2)));
}

export function readRuns(reportsDir: string = REPORTS): RunSummary[] {
  if (!fs.existsSync(reportsDir)) return [];
  return fs.readdirSync(reportsDir)
    .filter((d) => fs.existsSync(path.join(reportsDir, d, 'summary.json')))
    .flatMap((d) => {
      try { return [JSON.parse(fs.readFileSync(path.join(reportsDir, d, 'summary.json'), 'utf8')) as RunSummary]; } catch { return []; }
    })
    .sort((a, b) => b.date.localeCompare(a.date) || b.id.localeCompare(a.id));
}

export const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
/** A relative URL made of path segments, each percent-encoded (run ids and folder names are safe, anchors too). */
const hrefOf = (...parts: string[]) => parts.map((p) => p.split('/').map(encodeURIComponent).join('/')).join('/');
export const toolVersion = (): string => JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const template = (name: string): string => {
  const f = path.join(REPORT_TEMPLATE, name);
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '';
};
const page = (title: string, body: string, script = '') => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${template('report.css')}</style></head><body>
${body}
${script ? `<script>${script}</script>` : ''}
</body></html>
`;

export const VERDICTS = VERDICT_ORDER;
/** Label of a verdict id (unknown ids of old summaries shown as they are). */
const label = (v: string) => LABEL[v as Verdict] ?? v;
/** The legend of the verdicts, as a definition list (every page that shows verdicts has it). */
export function legendHtml(): string {
  return `<dl class="legend" id="legend">${VERDICT_ORDER.map((v) => `<dt><span class="badge v-${v}">${esc(LABEL[v])}</span></dt><dd>${esc(LEGEND[v])}</dd>`).join('')}</dl>`;
}
/** The banner of a run's exit code: PASS, FAIL or HARNESS ERROR. */
const banner = (r: RunSummary) => (r.targetLost ? LABEL['not-judged'] : r.exitCode === 0 ? 'PASS' : r.exitCode === 2 ? LABEL['harness-error'] : LABEL.fail);
const SEVERITIES: Severity[] = ['MUST', 'SHOULD', 'MAY', 'REF'];
/** Allure's severity for a clause severity (issue 7): the strongest clause of a check decides. */
export const ALLURE_SEVERITY: Record<Severity, string> = { MUST: 'critical', SHOULD: 'normal', MAY: 'minor', REF: 'trivial' };
const KINDS = ['test', 'check', 'selftest', 'load', 'bench', 'fuzz', 'replay', 'record'];
/** The mark of a check's verdict in the matrix (its label is the mark's accessible name). */
const VERDICT_MARK: Record<Verdict, string> = { pass: '✓', fail: '✗', warn: '⚠', note: 'ℹ', 'harness-error': '!', skipped: '–', 'not-judged': '–', 'not-run': '–' };

/** A check's verdict: the one its run recorded in summary.json, else (a summary older than that) computed by the one rule of lib/verdicts.ts. */
export function verdictOfCheck(k: CheckResult & { verdict?: Verdict }, severityOf: (id: string) => Severity | undefined, reference: boolean): Verdict {
  return k.verdict ?? checkVerdict(k, severityOf, reference);
}

/** The run whose verdicts the matrix shows: the latest conformance run (`test`, else `check`), else the latest run with verdicts. */
export function matrixRun(runs: RunSummary[]): RunSummary | undefined {
  return runs.find((r) => r.kind === 'test') ?? runs.find((r) => r.kind === 'check') ?? runs.find((r) => r.verdicts?.length) ?? runs[0];
}

/** The proofs of every clause (lib/proofs.ts) from the latest self-test run and the record of partner variants and project tests. */
export function proofsOf(runs: RunSummary[], deviations: Deviation[], catalogue: Clause[], record: ProofRecord = loadProofRecord()): Map<string, ClauseProof> {
  return clauseProofs(catalogue, deviations, runs.find((r) => r.kind === 'selftest'), record);
}

/** Links to a run's detailed reports that exist on disk (never a dead link). */
export function runLinks(run: RunSummary, reportsDir: string = REPORTS, prefix = ''): Array<{ label: string; href: string }> {
  const dir = path.join(reportsDir, run.id);
  const at = (rel: string) => (fs.existsSync(path.join(dir, rel)) ? [hrefOf(...(prefix ? [prefix] : []), run.id, rel)] : []);
  const out: Array<{ label: string; href: string }> = [];
  for (const h of at('index.html')) out.push({ label: 'Run page', href: h });
  for (const h of at('evidence.html')) out.push({ label: 'Evidence', href: h });
  for (const h of at('replay.html')) out.push({ label: 'Replay (recorded vs now)', href: h });
  for (const h of at('transcripts.html')) out.push({ label: 'Conversations', href: h });
  for (const h of at('playwright/index.html')) out.push({ label: 'Playwright HTML', href: h });
  for (const h of at('allure-report/index.html')) out.push({ label: 'Allure HTML', href: h });
  for (const h of at('junit.xml')) out.push({ label: 'JUnit XML', href: h });
  for (const h of at('k6-dashboard.html')) out.push({ label: 'k6 dashboard', href: h });
  for (const h of at('k6-summary.json')) out.push({ label: 'k6 summary', href: h });
  for (const h of at('fuzz.html')) out.push({ label: 'Fuzz report', href: h });
  for (const h of at('fuzz.json')) out.push({ label: 'fuzz.json', href: h });
  for (const h of at('summary.json')) out.push({ label: 'summary.json', href: h });
  return out;
}

function countsTable(clauses: Clause[], verdictOf: (id: string) => string): string {
  const rows = SEVERITIES.filter((s) => clauses.some((c) => c.severity === s)).map((s) => {
    const mine = clauses.filter((c) => c.severity === s);
    const n = (v: string) => mine.filter((c) => verdictOf(c.id) === v).length;
    return `<tr><th scope="row">${s}</th>${VERDICTS.map((v) => `<td class="${n(v) ? `v-${v}` : ''}">${n(v)}</td>`).join('')}<td>${mine.length}</td></tr>`;
  });
  return `<div class="scroll"><table id="counts"><thead><tr><th>severity</th>${VERDICTS.map((v) => `<th>${label(v)}</th>`).join('')}<th>total</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

/** The benchmark figures of reports/bench.json (written by `ces bench`), each beside its same-run baseline. */
function benchSection(reportsDir: string): string {
  const f = path.join(reportsDir, 'bench.json');
  if (!fs.existsSync(f)) return '';
  let b: { date?: string; machine?: Record<string, unknown>; figures?: Array<{ title: string; value: number | null; unit: string; baseline?: { title: string; value: number | null; unit: string }; ratio?: number | null }> };
  try { b = JSON.parse(fs.readFileSync(f, 'utf8')); } catch { return '<h2 id="bench">Benchmarks</h2><p>reports/bench.json is not readable JSON.</p>'; }
  const m = b.machine ?? {};
  return `<h2 id="bench">Benchmarks</h2><p class="meta">${esc(b.date)} · ${esc(m.cpus)} CPUs ${esc(m.cpuModel)} · load average at start ${esc((m.loadAverageAtStart as number[] | undefined)?.[0])} · <a href="bench.json">bench.json</a></p>`
    + `<div class="scroll"><table class="cards"><thead><tr><th>figure</th><th>value</th><th>baseline (same run)</th><th>ratio</th></tr></thead><tbody>`
    + (b.figures ?? []).map((x) => `<tr><td data-label="figure">${esc(x.title)}</td><td data-label="value">${esc(x.value)} ${esc(x.unit)}</td><td data-label="baseline">${x.baseline ? `${esc(x.baseline.value)} ${esc(x.baseline.unit)} — ${esc(x.baseline.title)}` : ''}</td><td data-label="ratio">${x.ratio ?? '—'}</td></tr>`).join('')
    + '</tbody></table></div>';
}

/** The verdict line of a run whose target stopped answering: the run could not judge it (not "N clauses failed"). */
export const lostBanner = (lost: NonNullable<RunSummary['targetLost']>) =>
  `<p class="verdict ko" id="verdict">NOT JUDGED — the run could not judge the target: it stopped answering at ${esc(lost.since)} (${esc(lost.cause)}). ${lost.notJudged} check(s) from then on are not judged; no clause failed because of it. Exit 2.</p>`;

/**
 * What a conformance run could judge, up front (issue 18): clauses judged / skipped per part the target lacks with what to expose / not run, and the baseline's outcome.
 */
export function runStateSection(run: RunSummary): string {
  const out: string[] = [];
  const c = run.coverage;
  if (c) {
    const rows = c.byPart.map((p) => `<tr data-part="${esc(p.part)}"><td data-label="target lacks">${esc(p.lacks)}</td><td data-label="clauses skipped">${p.clauses.length}</td><td data-label="to get them judged, expose">${esc(p.expose)}</td></tr>`).join('');
    out.push(`<h2 id="coverage">Coverage</h2><p id="coverage-counts"><strong>${c.judged}</strong> of ${c.total} clauses judged; ${c.unjudged.length - c.notRun.length} skipped or not judged; ${c.notRun.length} not run.</p>`
      + (rows ? `<div class="scroll"><table id="coverage-parts" class="cards"><thead><tr><th>target lacks</th><th>clauses skipped</th><th>to get them judged, expose</th></tr></thead><tbody>${rows}</tbody></table></div><p class="meta">A clause lacking several parts counts under each.</p>` : '')
      + (c.unjudged.length ? `<details><summary>Every clause not judged, with its reason (${c.unjudged.length})</summary><ul>${c.unjudged.map((u) => `<li><a href="#clause-${esc(u.id)}"><code>${esc(u.id)}</code></a>: ${esc(u.why.split('\n')[0])}</li>`).join('')}</ul></details>` : ''));
  }
  const b = run.baseline;
  if (b) {
    const list = (ids: string[]) => ids.map((id) => `<a href="#clause-${esc(id)}"><code>${esc(id)}</code></a>`).join(', ') || 'none';
    out.push(`<h2 id="baseline">Baseline <code>${esc(b.file)}</code></h2><dl class="facts"><dt>New failures (fail the run)</dt><dd>${list(b.regressions)}</dd><dt>Known failures (reported, do not fail the run)</dt><dd>${list(b.known)}</dd><dt>Now passing: remove from the baseline</dt><dd>${list(b.fixed)}</dd></dl>`);
  }
  return out.join('\n');
}

/** The title of the landing page: how a folder's index.html is known to be one ces wrote (another one is never overwritten). */
const LANDING_TITLE = 'CES conformance report';

/**
 * Rebuilds the landing page of the folder holding a run (reports/ for reports/<run-id>, the parent folder of a --report-dir),
 * so that it lists that run; returns its path, or undefined when that folder's index.html is not a ces landing page.
 */
export function landingOf(runDir: string, opts: BuildOptions = {}): string | undefined {
  const reportsDir = path.dirname(path.resolve(runDir));
  const file = path.join(reportsDir, 'index.html');
  if (fs.existsSync(file) && !fs.readFileSync(file, 'utf8').includes(`<title>${LANDING_TITLE}</title>`)) return undefined;
  return buildLanding({ ...opts, reportsDir });
}

/**
 * The page of one run, `<run>/index.html`: the landing page with that run's verdicts only (a vendor check's page lists the
 * clauses it judged, the rest in one line); the folder's index.html stays the overview. Returns its path.
 */
export function buildRunPage(runDir: string, opts: BuildOptions = {}): string {
  return buildLanding({ ...opts, reportsDir: path.dirname(path.resolve(runDir)), run: path.basename(runDir) });
}

/** Rebuilds reports/index.html from every run summary under the reports folder (or one run's page: `run`); returns its path. */
export function buildLanding(opts: BuildOptions = {}): string {
  const reportsDir = opts.reportsDir ?? REPORTS;
  const runs = readRuns(reportsDir);
  const own = opts.run ? runs.find((r) => r.id === opts.run) : undefined;
  const latest = own ?? matrixRun(runs);
  // A vendor check's page: the clauses of what it judged (its area's), the rest of the catalogue in one line.
  const scoped = own?.kind === 'check';
  const ran = new Set((own?.verdicts ?? []).filter((v) => v.verdict !== 'not-run').map((v) => v.id));
  const clauses = opts.clauses ?? loadClauses();
  const all = clauses.filter((c) => !c.retired);
  const catalogue = scoped ? all.filter((c) => ran.has(c.id)) : all;
  // Links of a run's page start from its folder, one level below the overview's.
  const up = own ? '../' : '';
  const href = (...parts: string[]) => `${up}${hrefOf(...parts)}`;
  const selftest = runs.find((r) => r.kind === 'selftest');
  const proof = proofsOf(runs, opts.deviations ?? loadDeviations(), catalogue, opts.proofRecord);
  // A clause the matrix run did not reach (load thresholds, vendor checks) takes its verdict from the latest run that did.
  const verdictIn = (r: RunSummary | undefined, id: string) => r?.verdicts?.find((v) => v.id === id)?.verdict ?? 'not-run';
  const runOf = new Map<string, RunSummary | undefined>();
  const sourceRun = (id: string): RunSummary | undefined => {
    if (!runOf.has(id)) runOf.set(id, verdictIn(latest, id) !== 'not-run' || own ? latest : runs.find((r) => r.kind !== 'selftest' && verdictIn(r, id) !== 'not-run') ?? latest);
    return runOf.get(id);
  };
  const verdict = (id: string) => verdictIn(sourceRun(id), id);
  const severityOf = new Map(clauses.map((c) => [c.id, c.severity]));
  const verdictOf = (k: CheckResult & { verdict?: Verdict }, r: RunSummary) => verdictOfCheck(k, (id) => severityOf.get(id), r.reference === true);
  const checksOf = (id: string) => (sourceRun(id)?.checks ?? []).filter((k) => k.clauses.includes(id)).map((k) => ({ ...k, run: sourceRun(id)! }));
  const evidenceHref = (k: CheckResult & { run: RunSummary }) => fs.existsSync(path.join(reportsDir, k.run.id, 'evidence.html')) ? `${href(k.run.id, 'evidence.html')}#${encodeURIComponent(k.anchor ?? checkAnchor(k))}`
    : fs.existsSync(path.join(reportsDir, k.run.id, 'k6-dashboard.html')) ? href(k.run.id, 'k6-dashboard.html') : '';
  const areas = [...new Set(catalogue.map((c) => c.area))].sort();

  // A clause is proven when an assertion of that clause itself failed under a deviation, a wire fault or a partner variant, or
  // by a project test (lib/proofs.ts); an exception says why none can exist.
  const proofCell = (id: string) => {
    const p = proof.get(id);
    const mut = (d: string) => selftest && fs.existsSync(path.join(reportsDir, selftest.id, 'evidence.html')) ? `<a href="${href(selftest.id, 'evidence.html')}#mut-${encodeURIComponent(d)}">${esc(d)}</a>` : esc(d);
    const cell = (proven: boolean, html: string) => `<td data-label="proven" data-proof="${proven ? 'yes' : 'no'}"${proven ? ' class="v-pass"' : ''}>${html}</td>`;
    if (!p) return cell(false, 'no');
    const parts = [
      ...(p.deviations.length ? [`deviation ${p.deviations.map(mut).join(', ')}`] : []),
      ...(p.wire.length ? [`wire ${p.wire.map((w) => (selftest && fs.existsSync(path.join(reportsDir, selftest.id, 'evidence.html')) ? `<a href="${href(selftest.id, 'evidence.html')}#wire-${encodeURIComponent(w)}">${esc(w)}</a>` : esc(w))).join(', ')}`] : []),
      ...(p.variants.length ? [`partner variant ${p.variants.map(esc).join(', ')}`] : []),
      ...(p.projectTests.length ? [`project test ${[...new Set(p.projectTests)].map((t) => `<code>${esc(t)}</code>`).join(', ')}`] : []),
    ];
    if (isProven(p)) return cell(true, `yes <span class="meta">(${parts.join('; ')})</span>`);
    if (p.exception) return cell(false, `no <span class="meta">(cannot be proven: ${esc(p.exception)})</span>`);
    if (p.notByItself.length) return `<td data-label="proven" data-proof="no" class="v-fail">no <span class="meta">(no assertion of this clause failed under ${p.notByItself.map(mut).join(', ')})</span></td>`;
    if (p.notRun.length) return cell(false, `no <span class="meta">(selftest not run for ${p.notRun.map(esc).join(', ')})</span>`);
    return cell(false, 'no <span class="meta">(no deviation, wire fault or partner variant)</span>');
  };
  const rows = catalogue.map((c) => {
    const v = verdict(c.id);
    const checks = checksOf(c.id).map((k) => {
      const h = evidenceHref(k);
      const kv = verdictOf(k, k.run);
      const label = `<span class="o badge o-${k.outcome}" aria-label="${esc(LABEL[kv])}" title="${esc(LABEL[kv])}">${VERDICT_MARK[kv]}</span> ${esc(k.title)}`;
      return h ? `<a href="${h}">${label}</a>` : `<span>${label}</span>`;
    }).join('');
    return `<tr id="clause-${esc(c.id)}" data-area="${esc(c.area)}" data-verdict="${v}" data-severity="${c.severity}">`
      + `<td data-label="clause"><code>${esc(c.id)}</code></td><td data-label="severity">${c.severity}</td><td data-label="text">${esc(c.text)}</td>`
      + `<td data-label="spec section">${esc(c.source)}</td><td data-label="verdict" class="v-${v}">${label(v)}</td>`
      + `<td data-label="checks" class="checks">${checks || '<span class="meta">no check</span>'}</td>${proofCell(c.id)}</tr>`;
  }).join('\n');

  const failing = catalogue.filter((c) => ['fail', 'warn', 'note'].includes(verdict(c.id)));
  const broken = catalogue.filter((c) => verdict(c.id) === 'harness-error');
  const harnessList = broken.length ? `<h2 id="harness-errors">Harness errors (the harness broke: these clauses were not judged)</h2><ul>${broken.map((c) => `<li><a href="#clause-${esc(c.id)}"><code>${esc(c.id)}</code></a>: ${checksOf(c.id).filter((k) => verdictOf(k, k.run) === 'harness-error').map((k) => { const h = evidenceHref(k); return `${h ? `<a href="${h}">${esc(k.title)}</a>` : esc(k.title)}: ${esc((k.reason ?? '').split('\n')[0])}`; }).join('; ')}</li>`).join('')}</ul>` : '';
  const failures = failing.length ? `<ul>${failing.map((c) => `<li><span class="badge v-${verdict(c.id)}">${label(verdict(c.id))}</span> <a href="#clause-${esc(c.id)}"><code>${esc(c.id)}</code></a> (${c.severity}) ${esc(c.text)}: ${checksOf(c.id).filter((k) => ['fail', 'warn', 'note'].includes(verdictOf(k, k.run))).map((k) => { const h = evidenceHref(k); return h ? `<a href="${h}">evidence of “${esc(k.title)}”</a>` : esc(k.title); }).join(', ')}</li>`).join('')}</ul>` : '<p>No clause failed.</p>';

  const latestOfKind = own ? [own] : KINDS.map((k) => runs.find((r) => r.kind === k)).filter((r): r is RunSummary => !!r);
  const linksOf = (r: RunSummary) => runLinks(r, reportsDir, own ? '..' : '');
  const reportsTable = latestOfKind.length
    ? `<div class="scroll"><table id="reports" class="cards"><thead><tr><th>kind</th><th>run</th><th>date</th><th>result</th><th>reports</th></tr></thead><tbody>${latestOfKind.map((r) => `<tr data-kind="${esc(r.kind)}"><td data-label="kind">${esc(r.kind)}</td><td data-label="run"><code>${esc(r.id)}</code></td><td data-label="date">${esc(r.date)}</td><td data-label="result" class="${r.exitCode === 0 ? 'v-pass' : r.exitCode === 2 ? 'v-harness-error' : 'v-fail'}">${banner(r)} (exit ${r.exitCode})</td><td data-label="reports">${linksOf(r).map((l) => `<a href="${l.href}">${esc(l.label)}</a>`).join(' · ')}</td></tr>`).join('')}</tbody></table></div>`
    : '<p>No run yet.</p>';
  const runList = (own ? [] : runs.slice(0, 30)).map((r) => `<tr><td data-label="run"><code>${esc(r.id)}</code></td><td data-label="kind">${esc(r.kind)}</td><td data-label="date">${esc(r.date)}</td><td data-label="result" class="${r.exitCode === 0 ? 'v-pass' : r.exitCode === 2 ? 'v-harness-error' : 'v-fail'}">${banner(r)} (exit ${r.exitCode})</td><td data-label="deviations">${r.deviations?.length ? `<code>${esc(r.deviations.join(', '))}</code>` : ''}</td><td data-label="reports">${linksOf(r).map((l) => `<a href="${l.href}">${esc(l.label)}</a>`).join(' · ')}</td></tr>`).join('');
  // Counted by verdict, as the terminal, evidence.html, JUnit and Allure count them (a NOTE is never "failed").
  const checkCounts = latest ? countsLine(latest.checks.map((k) => verdictOf(k, latest))) : '';

  const body = `<a class="skip" href="#matrix">Skip to the clause matrix</a>
<header>${own ? `<p><a href="../index.html">← Overview of every run in this folder</a></p><h1>Run <code>${esc(own.id)}</code> (${esc(own.kind)})</h1>` : '<h1>Conversational Engagement Service — conformance report</h1>'}</header>
<main>
${latest ? `${latest.targetLost ? lostBanner(latest.targetLost) : `<p class="verdict ${latest.exitCode === 0 ? 'ok' : 'ko'}" id="verdict">${latest.exitCode === 0 ? (latest.baseline?.known.length ? `PASS against the baseline — ${latest.baseline.known.length} known failure(s), no new failure` : 'PASS — every MUST check passed') : latest.exitCode === 2 ? 'HARNESS ERROR — the harness broke during the run; some clauses were not judged' : `FAIL — a MUST check failed${latest.strict ? ' (or a WARN, under --strict)' : ''}`}</p>`}
<dl class="facts">
<dt>Target</dt><dd><code>${esc(latest.target)}</code>${latest.reference ? ' (embedded reference implementation)' : ''}</dd>
<dt>Date</dt><dd>${esc(latest.date)}</dd>
<dt>Tool version</dt><dd>ces ${esc(toolVersion())}</dd>
<dt>Run</dt><dd><code>${esc(latest.id)}</code> (${esc(latest.kind)})${latest.deviations?.length ? ` — deviations switched on: <code>${esc(latest.deviations.join(', '))}</code> (failures are expected)` : ''}</dd>
<dt>Checks</dt><dd>${latest.checks.length}: <span class="counts" id="check-counts">${esc(checkCounts)}</span></dd>
</dl>
${runStateSection(latest)}` : '<p id="verdict">No run yet: run <code>npx ces test</code>.</p>'}
<h2 id="reports-h">${own ? 'Detailed reports of this run' : 'Detailed reports (latest run of each kind)'}</h2>
${reportsTable}
${harnessList}
<h2 id="failures">Failing clauses (FAIL, and WARN/NOTE)</h2>
${failures}
<h2 id="legend-h">What the verdicts mean</h2>
${legendHtml()}
<h2>Counts per severity</h2>
${countsTable(catalogue, verdict)}
<h2 id="matrix-h">Clause matrix</h2>
<form id="filters" class="filters" role="search" aria-label="Filter the clause matrix">
<label>Area<select id="f-area"><option value="">all</option>${areas.map((a) => `<option>${esc(a)}</option>`).join('')}</select></label>
<label>Verdict<select id="f-verdict"><option value="">all</option>${VERDICTS.map((v) => `<option value="${v}">${label(v)}</option>`).join('')}</select></label>
<label>Severity<select id="f-severity"><option value="">all</option>${SEVERITIES.map((s) => `<option>${s}</option>`).join('')}</select></label>
<label>Text<input id="f-text" type="search" placeholder="id, text, check…"></label>
<button type="reset">Clear</button>
<span id="shown" role="status" aria-live="polite">${catalogue.length} of ${catalogue.length} clauses shown</span>
</form>
${scoped ? `<p id="not-in-run" class="meta">${all.length - catalogue.length} other clauses of the catalogue are not about what this run checked (not run); the <a href="../index.html">overview</a> lists them all.</p>` : ''}
<div class="scroll"><table id="matrix" class="cards" tabindex="-1"><caption class="meta">Verdicts of run ${latest ? `<code>${esc(latest.id)}</code>` : '(none)'}; “proven” from the latest selftest${selftest ? ` <code>${esc(selftest.id)}</code>` : ' (none yet)'}.</caption>
<colgroup><col class="c-id"><col class="c-sev"><col class="c-text"><col class="c-src"><col class="c-verdict"><col class="c-checks"><col class="c-proof"></colgroup>
<thead><tr><th>clause</th><th>severity</th><th>text</th><th>spec section</th><th>verdict</th><th>checks</th><th>proven</th></tr></thead><tbody>
${rows}
</tbody></table></div>
${own ? '' : `${benchSection(reportsDir)}
<h2>Recent runs</h2>
<div class="scroll"><table id="runs" class="cards"><thead><tr><th>run</th><th>kind</th><th>date</th><th>result</th><th>deviations</th><th>reports</th></tr></thead><tbody>${runList}</tbody></table></div>`}
</main>
<footer class="meta"><p>Generated by ces ${esc(toolVersion())} at ${esc(new Date().toISOString())}. Static page: opens from disk, no network.</p></footer>`;
  const file = own ? path.join(reportsDir, own.id, 'index.html') : path.join(reportsDir, 'index.html');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, maskAll(page(own ? `CES run ${own.id}` : LANDING_TITLE, body, template('landing.js'))));
  return file;
}

// ---- evidence.html ---------------------------------------------------------------------------------------------------

const isData = (a: EvidenceAttachment) => /^application\/vnd\.ces\.(sequence|timeline)\+json/.test(a.contentType);

/** Attachment text kept on the page: enough to read a call, short enough that a full run's page stays a few MB. */
const CLIP_FAILED = 64 * 1024;
const CLIP_OTHER = 12 * 1024;
/** Escaping for element content (quotes are safe there and JSON is full of them). */
const escText = (s: string) => s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
function clip(text: string, limit: number): string {
  if (text.length <= limit) return escText(text);
  return `${escText(text.slice(0, limit))}\n<span class="meta">… cut here: ${Math.round(text.length / 1024)} KB in all, whole in the Playwright HTML report and Allure.</span>`;
}

/** A recorded HTTP call (api.request's step, or one item of a vendor check's exchanges). */
interface RecordedCall { method: string; url: string; requestBody?: unknown; status?: unknown; error?: unknown; ms?: unknown; body?: unknown; contentType?: unknown; summary?: unknown }

/** The calls an attachment records: `{request, response}`, or an array of them (connector checks), else none. */
function callsOf(parsed: any): RecordedCall[] {
  const one = (x: any): RecordedCall[] => (x?.request?.method && x?.request?.url && x?.response && typeof x.response === 'object'
    ? [{ method: String(x.request.method), url: String(x.request.url), requestBody: x.request.body, status: x.response.status, error: x.response.error, ms: x.response.ms ?? x.ms, body: x.response.body, contentType: x.response.contentType ?? x.response.headers?.['content-type'], summary: x.summary }]
    : []);
  return Array.isArray(parsed) ? parsed.flatMap(one) : one(parsed);
}

const callSummary = (c: RecordedCall) => `<span class="call"><code>${esc(c.method)} ${esc(c.url)}</code> → <span class="status">${c.status !== undefined ? esc(c.status) : `no answer: ${esc(String(c.error ?? '').split('\n')[0])}`}</span>${c.ms !== undefined ? ` <span class="meta">(${esc(c.ms)} ms)</span>` : ''}</span>`;

/** A body as a reader wants it: JSON pretty-printed, text (an HTML error page too) as the text it is. */
const bodyText = (b: unknown): string => (typeof b === 'string' ? b : JSON.stringify(b, null, 2));

function callBodies(c: RecordedCall, limit: number): string {
  const sent = c.requestBody === undefined || c.requestBody === '' ? '' : `<p class="meta">sent</p><pre>${clip(bodyText(typeof c.requestBody === 'string' ? tryJson(c.requestBody) : c.requestBody), limit)}</pre>`;
  const back = c.status === undefined ? '' : `<p class="meta">came back${c.contentType ? ` (${esc(c.contentType)})` : ''}</p><pre>${c.body === undefined || c.body === '' ? '<span class="meta">(empty body)</span>' : clip(bodyText(c.body), limit)}</pre>`;
  return sent + back;
}

const tryJson = (t: string): unknown => { try { return JSON.parse(t); } catch { return t; } };

/** One attachment as HTML: pictures from their data, request/response pairs readable, other files linked. */
function attachmentHtml(a: EvidenceAttachment, runDir: string, open: boolean, limit = CLIP_OTHER): string {
  if (isData(a) && a.text) {
    let svg: string | undefined;
    try { svg = evidenceSvg(JSON.parse(a.text)); } catch { svg = undefined; }
    return `<figure class="picture">${svg ?? ''}<figcaption class="meta">${esc(a.name)}</figcaption></figure><details><summary>data of ${esc(a.name)}</summary><pre>${clip(a.text, limit)}</pre></details>`;
  }
  if (a.contentType.startsWith('image/svg+xml') && a.text) {
    // A picture someone else drew: shown through <img>, where an SVG cannot run scripts.
    return `<figure class="picture"><img alt="${esc(a.name)}" src="data:image/svg+xml;base64,${Buffer.from(a.text).toString('base64')}"><figcaption class="meta">${esc(a.name)}</figcaption></figure>`;
  }
  if (a.contentType.startsWith('application/json') && a.text) {
    let summary = esc(a.name);
    let parsed: any;
    try { parsed = JSON.parse(a.text); } catch { parsed = undefined; }
    const calls = callsOf(parsed);
    if (calls.length === 1 && parsed?.request) summary = callSummary(calls[0]!);
    // Each call as it went: what was sent, what came back (a text body as text, never as an escaped JSON string); the raw record after.
    const readable = calls.length > 1 || (calls.length === 1 && !parsed?.request)
      ? `${calls.map((c) => `<details class="call-of"${open ? ' open' : ''}><summary>${callSummary(c)}</summary>${callBodies(c, limit)}</details>`).join('')}<details><summary class="meta">recorded data</summary><pre>${clip(a.text, limit)}</pre></details>`
      : calls.length === 1 ? `${callBodies(calls[0]!, limit)}<details><summary class="meta">recorded data</summary><pre>${clip(a.text, limit)}</pre></details>` : `<pre>${clip(a.text, limit)}</pre>`;
    return `<details${open ? ' open' : ''}><summary>${summary}${calls.length > 1 ? ` <span class="meta">(${calls.length} calls)</span>` : ''}</summary>${readable}</details>`;
  }
  if (a.text) return `<details${open ? ' open' : ''}><summary>${esc(a.name)} <span class="meta">(${esc(a.contentType)})</span></summary><pre>${clip(a.text, limit)}</pre></details>`;
  if (a.path && fs.existsSync(a.path)) {
    const rel = path.relative(runDir, a.path);
    if (!rel.startsWith('..')) {
      const h = hrefOf(rel.split(path.sep).join('/'));
      if (a.contentType.startsWith('image/')) return `<figure class="picture"><a href="${h}"><img alt="${esc(a.name)}" src="${h}" style="max-width:100%"></a><figcaption class="meta">${esc(a.name)}</figcaption></figure>`;
      return `<p><a href="${h}">${esc(a.name)}</a> <span class="meta">(${esc(a.contentType)})</span></p>`;
    }
  }
  return `<p class="meta">${esc(a.name)} (${esc(a.contentType)}, not kept)</p>`;
}

/** A recorded HTTP call that answered 4xx/5xx or did not answer. */
function isErrorCall(a: EvidenceAttachment): boolean {
  if (!a.contentType.startsWith('application/json') || !a.text) return false;
  try {
    const r = JSON.parse(a.text)?.response;
    return !!r && (r.error !== undefined || Number(r.status) >= 400);
  } catch { return false; }
}

function checkHtml(k: CheckEvidence, anchor: string, runDir: string, byId: Map<string, Clause>, landing: string, reference: boolean): string {
  const failed = k.outcome === 'failed' || k.outcome === 'harness-error';
  const v = checkVerdict(k, (id) => byId.get(id)?.severity, reference);
  const qualifiers = [...(k.warnings ?? []).map((w) => ['WARN', w]), ...(k.notes ?? []).map((n) => ['NOTE', n])]
    .map(([l, t]) => `<p><span class="badge v-${l === 'WARN' ? 'warn' : 'note'}">${l}</span> ${esc(t)}</p>`).join('');
  const repro = (k.reproductions ?? []).map((r, i) => `<details open><summary>reproduction${(k.reproductions ?? []).length > 1 ? ` ${i + 1}` : ''} (paste into a shell)</summary><pre class="repro">${escText(r)}</pre></details>`).join('');
  const names = new Set(k.attachments.map((a) => a.name));
  // The rendered copy of a picture whose data is attached too: the page draws the data itself.
  const shown = k.attachments.filter((a) => !(a.contentType.startsWith('image/svg+xml') && a.name.endsWith('.svg') && names.has(a.name.slice(0, -4))));
  const pictures = shown.filter(isData);
  const rest = shown.filter((a) => !isData(a));
  // A failed check opens the calls that went wrong and its last call: usually the one the assertion was about.
  const lastCall = rest.map((a) => a.contentType.startsWith('application/json')).lastIndexOf(true);
  // Each clause with the verdict this check gives it (G34: a clause is judged by its own assertions).
  const clauseLinks = k.clauses.map((id) => {
    const c = byId.get(id);
    const cv = verdictFor(k, c?.severity, reference, id);
    return `<a href="${landing}#clause-${encodeURIComponent(id)}"><code>${esc(id)}</code></a>${c ? ` <span class="meta">${c.severity}</span>` : ' <span class="meta">(not in catalogue)</span>'}${k.clauses.length > 1 ? ` <span class="badge v-${cv}">${esc(LABEL[cv])}</span>` : ''}`;
  }).join(', ');
  const ownReasons = Object.entries(k.clauseResults ?? {}).filter(([, r]) => r.failed.length)
    .map(([id, r]) => `<p><code>${esc(id)}</code>: <span class="badge v-${verdictFor(k, byId.get(id)?.severity, reference, id)}">${esc(LABEL[verdictFor(k, byId.get(id)?.severity, reference, id)])}</span></p><pre class="reason">${esc(r.failed.join('\n'))}</pre>`).join('');
  const unattributed = k.outcome !== 'failed' || !k.failure || k.failure.unattributed > 0;
  return `<section class="check ${k.outcome}" id="${esc(anchor)}" data-outcome="${k.outcome}">
<h3><span class="badge v-${v}" title="${esc(LEGEND[v])}">${esc(LABEL[v])}</span> ${esc(k.title)}</h3>
<p class="meta">clauses: ${clauseLinks || '<strong>none</strong>'} · project <code>${esc(k.project)}</code> · <code>${esc(k.file)}</code> · ${Math.round(k.durationMs)} ms</p>
${ownReasons}${k.reason && unattributed ? `<pre class="${failed ? 'reason' : ''}">${esc(k.reason)}</pre>` : ''}
${qualifiers}${repro}
${pictures.map((a) => attachmentHtml(a, runDir, failed, failed ? CLIP_FAILED : CLIP_OTHER)).join('\n')}
${rest.length ? `<details class="atts"${failed ? ' open' : ''}><summary>${rest.length} attachment(s): requests and responses, in order</summary>${rest.map((a, i) => attachmentHtml(a, runDir, failed && (i === lastCall || isErrorCall(a)), failed ? CLIP_FAILED : CLIP_OTHER)).join('\n')}</details>` : ''}
</section>`;
}

/** Results files of a run: its own results.json, and those of sub-runs (selftest: baseline and one per deviation). */
export function resultSources(runDir: string): Array<{ sub: string; file: string }> {
  const out: Array<{ sub: string; file: string }> = [];
  if (fs.existsSync(path.join(runDir, 'results.json'))) out.push({ sub: '', file: path.join(runDir, 'results.json') });
  if (fs.existsSync(runDir)) for (const d of fs.readdirSync(runDir, { withFileTypes: true })) {
    if (d.isDirectory() && fs.existsSync(path.join(runDir, d.name, 'results.json'))) out.push({ sub: d.name, file: path.join(runDir, d.name, 'results.json') });
  }
  return out;
}

/** Anchor of a check on its run's evidence page (sub-runs prefix theirs with the sub-run's folder). */
export const evidenceAnchor = (sub: string, anchor: string) => (sub ? `${sub}--${anchor}` : anchor);

/** Writes <run>/evidence.html: every check with its failure reason, masked request/response attachments and pictures. */
export function buildEvidence(runDir: string, opts: BuildOptions = {}): string {
  const summaryFile = path.join(runDir, 'summary.json');
  const summary: RunSummary | undefined = fs.existsSync(summaryFile) ? JSON.parse(fs.readFileSync(summaryFile, 'utf8')) : undefined;
  const byId = new Map((opts.clauses ?? loadClauses()).map((c) => [c.id, c]));
  const landing = '../index.html';
  const sections: string[] = [];
  const toc: string[] = [];
  const sources = resultSources(runDir);
  const subAnchors = new Map<string, Map<string, string>>();
  // A run whose checks are not Playwright's (ces explore) shows those summary.json records, without attachments.
  const own = !sources.length && summary?.checks?.length ? [{ sub: '', file: summaryFile }] : [];
  for (const { sub, file } of [...sources, ...own]) {
    let checks: CheckEvidence[];
    try {
      checks = file === summaryFile ? summary!.checks.map((c, i) => ({ ...c, anchor: c.anchor ?? `check-${i + 1}`, attachments: [] })) : readPlaywrightEvidence(file);
    } catch (e) { sections.push(`<p class="meta">${esc(path.relative(runDir, file))}: unreadable (${esc((e as Error).message)})</p>`); continue; }
    // Counted and listed by verdict, as the terminal and summary.json count them (a failed MAY check is a NOTE, not a failure).
    const verdictOf = (k: CheckEvidence) => checkVerdict(k, (id) => byId.get(id)?.severity, summary?.reference === true);
    const rank = (k: CheckEvidence) => VERDICT_ORDER.indexOf(verdictOf(k));
    checks.sort((a, b) => rank(a) - rank(b));
    const titles = new Map<string, string>();
    for (const k of checks) titles.set(k.title, evidenceAnchor(sub, k.anchor));
    subAnchors.set(sub, titles);
    const failed = checks.filter((k) => verdictOf(k) === 'fail');
    const broken = checks.filter((k) => verdictOf(k) === 'harness-error');
    const qualified = (['warn', 'note'] as const).map((v) => ({ v, list: checks.filter((k) => verdictOf(k) === v) })).filter((x) => x.list.length);
    const subReport = sub && fs.existsSync(path.join(runDir, sub, 'playwright', 'index.html')) ? ` <a class="meta" href="${hrefOf(sub, 'playwright', 'index.html')}">Playwright HTML of ${esc(sub)}</a>` : '';
    const heading = sub ? `Sub-run <code>${esc(sub)}</code>${subReport}` : 'Checks';
    const id = sub ? `sub-${sub}` : 'checks';
    const links = (list: CheckEvidence[]) => list.map((k) => `<a href="#${esc(evidenceAnchor(sub, k.anchor))}">${esc(k.title)}</a>`).join(' · ');
    toc.push(`<li><a href="#${esc(id)}">${sub ? esc(sub) : 'checks'}</a> (${checks.length}): <span class="counts">${esc(countsLine(checks.map(verdictOf)))}</span></li>`);
    sections.push(`<h2 id="${esc(id)}">${heading}</h2>${failed.length ? `<p><span class="badge v-fail">${LABEL.fail}</span> ${links(failed)}</p>` : ''}`
      + qualified.map(({ v, list }) => `<p><span class="badge v-${v}">${LABEL[v]}</span> ${links(list)}</p>`).join('')
      + (broken.length ? `<p><span class="badge v-harness-error">${LABEL['harness-error']}</span> (not verdicts on the target): ${links(broken)}</p>` : '')
      + checks.map((k) => checkHtml(k, evidenceAnchor(sub, k.anchor), runDir, byId, landing, summary?.reference === true)).join('\n'));
  }
  const mutations = summary?.mutations?.length ? `<h2 id="mutations">Mutations (selftest)</h2><div class="scroll"><table class="cards"><thead><tr><th>deviation</th><th>clauses</th><th>caught</th><th>failed checks</th></tr></thead><tbody>${summary.mutations.map((m) => {
    // Sub-runs per deviation (older selftests), or the one run of all deviations (cli/selftest-plan.ts).
    const titles = subAnchors.get(m.deviation) ?? subAnchors.get('');
    return `<tr id="mut-${esc(m.deviation)}"><td data-label="deviation"><code>${esc(m.deviation)}</code></td><td data-label="clauses">${m.clauses.map((c) => `<a href="${landing}#clause-${encodeURIComponent(c)}"><code>${esc(c)}</code></a>`).join(', ')}</td><td data-label="caught" class="${m.caught ? 'v-pass' : 'v-fail'}">${m.kind === 'alternative' ? (m.caught ? `yes — an alternative: its clauses reported, nothing else in ${m.checksRun ?? 0} checks` : `no — an alternative ${m.failedChecks.length ? '' : 'whose clauses did not report'}${m.outside?.length ? `that made other clauses report: ${esc(m.outside.join('; '))}` : ''}`) : m.caught ? 'yes' : 'no — missed'}${m.harnessErrors?.length ? ` <span class="badge v-harness-error">${m.harnessErrors.length} HARNESS ERROR (not counted)</span>` : ''}</td><td data-label="failed checks">${m.failedChecks.map((t) => titles?.get(t) ? `<a href="#${esc(titles.get(t)!)}">${esc(t)}</a>` : esc(t)).join('<br>')}</td></tr>`;
  }).join('')}</tbody></table></div>` : '';
  // Wire faults (`ces selftest --wire`) beside the deviations: each proven by an assertion of its own clauses on the wire.
  const wire = summary?.wireFaults?.length ? `<h2 id="wire-faults">Wire faults (selftest --wire)</h2><div class="scroll"><table class="cards"><thead><tr><th>wire fault</th><th>clauses</th><th>caught</th><th>failed checks</th></tr></thead><tbody>${summary.wireFaults.map((w) => {
    const titles = subAnchors.get('');
    return `<tr id="wire-${esc(w.fault)}"><td data-label="wire fault"><code>${esc(w.fault)}</code></td><td data-label="clauses">${w.clauses.map((c) => `<a href="${landing}#clause-${encodeURIComponent(c)}"><code>${esc(c)}</code></a>`).join(', ')}</td><td data-label="caught" class="${w.caught ? 'v-pass' : 'v-fail'}">${w.caught ? `yes (${esc((w.failedClauses ?? []).join(', '))})` : 'no — missed'}${w.harnessErrors?.length ? ` <span class="badge v-harness-error">${w.harnessErrors.length} HARNESS ERROR (not counted)</span>` : ''}</td><td data-label="failed checks">${(w.failedChecks ?? []).map((t) => titles?.get(t) ? `<a href="#${esc(titles.get(t)!)}">${esc(t)}</a>` : esc(t)).join('<br>')}</td></tr>`;
  }).join('')}</tbody></table></div>` : '';
  const links = summary ? runLinks(summary, path.dirname(runDir), '..').filter((l) => l.label !== 'Evidence') : [];
  const body = `<a class="skip" href="#main">Skip to the evidence</a>
<header><p><a href="${landing}">← Landing page</a></p><h1>Evidence of run <code>${esc(path.basename(runDir))}</code></h1></header>
<main id="main">
${summary ? `<p class="verdict ${summary.exitCode === 0 ? 'ok' : 'ko'}">${esc(summary.kind)}: ${banner(summary)} (exit ${summary.exitCode})</p>
<dl class="facts"><dt>Target</dt><dd><code>${esc(summary.target)}</code>${summary.reference ? ' (embedded reference implementation)' : ''}</dd><dt>Date</dt><dd>${esc(summary.date)}</dd><dt>Tool version</dt><dd>ces ${esc(toolVersion())}</dd>${summary.deviations?.length ? `<dt>Deviations on</dt><dd><code>${esc(summary.deviations.join(', '))}</code></dd>` : ''}</dl>` : ''}
${links.length ? `<p>Other reports: ${links.map((l) => `<a href="${l.href.replace(/^\.\.\/[^/]+\//, '')}">${esc(l.label)}</a>`).join(' · ')}</p>` : ''}
${toc.length ? `<ul>${toc.join('')}</ul>` : '<p>No Playwright results in this run.</p>'}
<details><summary>What the verdicts mean</summary>${legendHtml()}</details>
${mutations}
${wire}
${sections.join('\n')}
</main>`;
  const file = path.join(runDir, 'evidence.html');
  fs.writeFileSync(file, maskAll(page(`Evidence — ${path.basename(runDir)}`, body, template('evidence.js'))));
  return file;
}

/** Rebuilds every run's evidence page, its own page and the landing page from what is on disk (`ces report`). */
export function buildAll(opts: BuildOptions = {}): { landing: string; evidence: string[] } {
  const reportsDir = opts.reportsDir ?? REPORTS;
  const runs = readRuns(reportsDir);
  const evidence = runs.map((r) => buildEvidence(path.join(reportsDir, r.id), opts));
  // Each run's own page too (what its report: line named), before the overview that links them.
  for (const r of runs) buildRunPage(path.join(reportsDir, r.id), opts);
  return { landing: buildLanding(opts), evidence };
}

// ---- compare ---------------------------------------------------------------------------------------------------------

const idle = (v: string) => v === 'absent' || v === 'not-run';
export interface VerdictChange { id: string; severity: string; area: string; before: string; after: string }

/** Clauses whose verdict differs between two runs (a clause one run does not know is `absent`; absent ↔ not-run is no change: nothing ran either way). */
export function compareRuns(a: RunSummary, b: RunSummary, clauses: Clause[] = loadClauses()): VerdictChange[] {
  const va = new Map(a.verdicts.map((v) => [v.id, v.verdict]));
  const vb = new Map(b.verdicts.map((v) => [v.id, v.verdict]));
  const byId = new Map(clauses.map((c) => [c.id, c]));
  const ids = [...new Set([...va.keys(), ...vb.keys()])].sort();
  return ids
    .map((id) => ({ id, severity: byId.get(id)?.severity ?? '?', area: byId.get(id)?.area ?? '?', before: va.get(id) ?? 'absent', after: vb.get(id) ?? 'absent' }))
    .filter((c) => c.before !== c.after && !(idle(c.before) && idle(c.after)));
}
