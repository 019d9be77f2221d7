// The landing page reports/index.html: one static page with the latest run's verdict, clause matrix and links to every report.
import fs from 'node:fs';
import path from 'node:path';
import { REPORTS, ROOT } from './paths.js';
import { loadClauses, loadDeviations } from './catalogue.js';
import type { CheckResult } from './results.js';
import { mask } from './mask.js';

export interface RunSummary {
  id: string;
  kind: string;
  date: string;
  target: string;
  reference: boolean;
  deviations: string[];
  exitCode: number;
  checks: CheckResult[];
  verdicts: Array<{ id: string; verdict: string; checks: string[] }>;
  /** selftest only: deviation id → caught or not. */
  mutations?: Array<{ deviation: string; clauses: string[]; caught: boolean; failedChecks: string[] }>;
}

export function writeRunSummary(dir: string, s: RunSummary): void {
  fs.writeFileSync(path.join(dir, 'summary.json'), mask(JSON.stringify(s, null, 2)));
}

export function readRuns(): RunSummary[] {
  if (!fs.existsSync(REPORTS)) return [];
  return fs.readdirSync(REPORTS)
    .filter((d) => fs.existsSync(path.join(REPORTS, d, 'summary.json')))
    .map((d) => JSON.parse(fs.readFileSync(path.join(REPORTS, d, 'summary.json'), 'utf8')) as RunSummary)
    .sort((a, b) => b.date.localeCompare(a.date));
}

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const version = (): string => JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

/** Rebuilds reports/index.html from every run summary under reports/; returns its path. */
export function buildLanding(): string {
  const runs = readRuns();
  const latest = runs.find((r) => r.kind === 'test') ?? runs[0];
  const selftest = runs.find((r) => r.kind === 'selftest');
  const proven = new Set((selftest?.mutations ?? []).filter((m) => m.caught).flatMap((m) => m.clauses));
  const devByClause = new Map<string, string[]>();
  for (const d of loadDeviations()) for (const c of d.clauses) devByClause.set(c, [...(devByClause.get(c) ?? []), d.id]);
  const verdictOf = new Map((latest?.verdicts ?? []).map((v) => [v.id, v]));
  const clauses = loadClauses().filter((c) => !c.retired);
  const areas = [...new Set(clauses.map((c) => c.area))];
  const counts: Record<string, Record<string, number>> = {};
  for (const c of clauses) {
    const v = verdictOf.get(c.id)?.verdict ?? 'not-run';
    counts[c.severity] ??= {};
    counts[c.severity]![v] = (counts[c.severity]![v] ?? 0) + 1;
  }
  const rows = clauses.map((c) => {
    const v = verdictOf.get(c.id);
    const verdict = v?.verdict ?? 'not-run';
    const evidence = latest ? `${latest.id}/playwright/index.html` : '';
    return `<tr data-area="${esc(c.area)}" data-verdict="${verdict}"><td><code>${esc(c.id)}</code></td><td>${c.severity}</td><td>${esc(c.text)}</td><td>${esc(c.source)}</td>`
      + `<td class="v-${verdict}">${verdict}</td><td>${(v?.checks ?? []).map((t) => `<a href="${esc(evidence)}">${esc(t)}</a>`).join('<br>')}</td>`
      + `<td>${proven.has(c.id) ? 'yes' : devByClause.has(c.id) ? 'not yet' : 'no'}</td></tr>`;
  }).join('\n');
  const runList = runs.slice(0, 30).map((r) => `<li><a href="${esc(r.id)}/playwright/index.html">${esc(r.id)}</a> — ${esc(r.kind)}, exit ${r.exitCode}${r.deviations.length ? `, deviations: ${esc(r.deviations.join(', '))}` : ''}</li>`).join('');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>CES conformance report</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1b1f24}table{border-collapse:collapse;width:100%}td,th{border:1px solid #d0d7de;padding:4px 6px;vertical-align:top;text-align:left}
th{background:#f6f8fa}.v-pass{background:#dafbe1}.v-fail{background:#ffd7d5;font-weight:bold}.v-warn{background:#fff8c5}.v-skipped,.v-not-run{background:#eaeef2}
.verdict{font-size:1.4rem;padding:.5rem 1rem;display:inline-block;border-radius:6px}.ok{background:#dafbe1}.ko{background:#ffd7d5}
label{margin-right:1rem}
</style></head><body>
<h1>Conversational Engagement Service — conformance</h1>
${latest ? `<p class="verdict ${latest.exitCode === 0 ? 'ok' : 'ko'}" id="verdict">${latest.exitCode === 0 ? 'PASS: every MUST check passed' : 'FAIL: a MUST check failed'}</p>
<p>Target: <code>${esc(latest.target)}</code>${latest.reference ? ' (embedded reference implementation)' : ''} · Date: ${esc(latest.date)} · Tool version: ${esc(version())} · Run: <code>${esc(latest.id)}</code>${latest.deviations.length ? ` · Deviations on: <code>${esc(latest.deviations.join(', '))}</code>` : ''}</p>
<p>Reports: <a href="${esc(latest.id)}/playwright/index.html">Playwright</a> · <a href="${esc(latest.id)}/allure-report/index.html">Allure</a> · <a href="${esc(latest.id)}/junit.xml">JUnit XML</a> · <a href="${esc(latest.id)}/summary.json">summary.json</a></p>` : '<p>No run yet: run <code>npx ces test</code>.</p>'}
<h2>Counts per severity</h2>
<table><tr><th>severity</th><th>pass</th><th>fail</th><th>warn</th><th>skipped</th><th>not run</th></tr>
${Object.entries(counts).map(([s, c]) => `<tr><td>${s}</td><td>${c.pass ?? 0}</td><td>${c.fail ?? 0}</td><td>${c.warn ?? 0}</td><td>${c.skipped ?? 0}</td><td>${c['not-run'] ?? 0}</td></tr>`).join('')}
</table>
<h2>Clause matrix</h2>
<p><label>Area <select id="f-area"><option value="">all</option>${areas.map((a) => `<option>${esc(a)}</option>`).join('')}</select></label>
<label>Verdict <select id="f-verdict"><option value="">all</option><option>pass</option><option>fail</option><option>warn</option><option>skipped</option><option>not-run</option></select></label></p>
<table id="matrix"><thead><tr><th>clause</th><th>severity</th><th>text</th><th>spec section</th><th>verdict</th><th>checks</th><th>proven by mutation</th></tr></thead><tbody>
${rows}
</tbody></table>
<h2>Runs</h2><ul>${runList}</ul>
<script>
const fa=document.getElementById('f-area'),fv=document.getElementById('f-verdict');
function apply(){for(const tr of document.querySelectorAll('#matrix tbody tr')){tr.hidden=(fa.value&&tr.dataset.area!==fa.value)||(fv.value&&tr.dataset.verdict!==fv.value);}}
fa.onchange=apply;fv.onchange=apply;
</script>
</body></html>`;
  fs.mkdirSync(REPORTS, { recursive: true });
  const file = path.join(REPORTS, 'index.html');
  fs.writeFileSync(file, mask(html));
  return file;
}
