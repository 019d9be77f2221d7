// Generates the Allure HTML report from allure-results with the `allure` npm package (Allure 3: no Java, no download), as one file that opens from disk.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { packageDir } from '../lib/paths.js';
import { checkReasons, checkVerdicts, maskAll, type CheckResult } from '../lib/results.js';
import { LABEL, LEGEND, type Verdict } from '../lib/verdicts.js';

/** Allure 3 configuration: the "awesome" report as a single HTML file (data inlined, so file:// works without a server). */
export function allureConfig(reportName: string): string {
  return `// Written by ces (cli/allure.ts) for this run's Allure report.
export default ${JSON.stringify({ name: reportName, plugins: { awesome: { options: { singleFile: true, reportName, reportLanguage: 'en', groupBy: ['parentSuite', 'suite', 'subSuite'] } } } }, null, 2)};
`;
}

/** The run's sub-folder of the Allure report. */
export const ALLURE_REPORT = 'allure-report';

/**
 * Builds <run>/allure-report/index.html; false (with the reason on stderr) when there are no results or Allure fails. The results
 * are prepared before the first await: a caller may write its other reports while Allure's child process runs (cli/run.ts
 * FinishOptions.writing), as long as it leaves allure-results as they are.
 */
export async function generateAllure(runDir: string, checks: CheckResult[], opts: { reportName?: string; reference?: boolean } = {}): Promise<boolean> {
  const reportName = opts.reportName ?? `CES conformance — ${path.basename(runDir)}`;
  const results = path.join(runDir, 'allure-results');
  if (!fs.existsSync(results) || !fs.readdirSync(results).some((f) => f.endsWith('-result.json'))) return false;
  // Allure inlines the results as base64 in its single file, so nothing can mask them afterwards: runPlaywright masked them when
  // Playwright ended, and applyVerdicts masks each result it rewrites (the attachments, most of the bytes, are not read again).
  // The checks as the caller read them (a whole run's results.json is 20 MB: parsed once).
  applyVerdicts(results, checks, opts.reference === true);
  const config = path.join(runDir, 'allurerc.mjs');
  fs.writeFileSync(config, allureConfig(reportName));
  const out = path.join(runDir, ALLURE_REPORT);
  fs.rmSync(out, { recursive: true, force: true });
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [path.join(packageDir('allure'), 'cli.js'), 'generate', results, '-o', out, '--config', config], { cwd: runDir, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (c) => { if (c !== 0) console.error(`allure report not generated (exit ${c}): ${err.slice(0, 500)}`); resolve(c); });
    child.on('error', (e) => { console.error(`allure report not generated: ${e.message}`); resolve(1); });
  });
  const index = path.join(out, 'index.html');
  if (code !== 0 || !fs.existsSync(index)) return false;
  fs.writeFileSync(index, withoutAnalytics(fs.readFileSync(index, 'utf8')));
  return true;
}

/** Allure 3's "awesome" report always embeds Google Analytics; reports here open offline and call nobody, so it goes. */
export function withoutAnalytics(html: string): string {
  return html.replace(/<script async src="https:\/\/www\.googletagmanager\.com\/[^"]*"><\/script>\s*<script>[^<]*?gtag\([\s\S]*?<\/script>/g, '<!-- analytics removed by ces -->');
}

/** Allure's status for each verdict: HARNESS ERROR is Allure's "broken"; WARN and NOTE do not fail the run, so they pass with their label. */
const ALLURE_STATUS: Record<Verdict, string> = { pass: 'passed', warn: 'passed', note: 'passed', fail: 'failed', 'harness-error': 'broken', skipped: 'skipped', 'not-judged': 'skipped', 'not-run': 'skipped' };

/**
 * Rewrites allure-playwright's results in the verdict vocabulary (lib/verdicts.ts): status, a `verdict` parameter and tag,
 * the reason as status message; and writes categories.json naming the verdicts with their legend.
 */
export function applyVerdicts(resultsDir: string, checks: CheckResult[], reference: boolean): void {
  const verdicts = checkVerdicts(checks, { reference });
  for (const f of fs.readdirSync(resultsDir).filter((x) => x.endsWith('-result.json'))) {
    const file = path.join(resultsDir, f);
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    // allure-playwright names the Playwright project as parentSuite; the projects group files by how long they take, so the suite
    // (the first folder of the `suite` label, `rest/x.spec.ts`) takes its place, as in the other reports.
    const suiteOfFile = /^([a-z0-9-]+)\//.exec(String((r.labels ?? []).find((l: { name?: string }) => l.name === 'suite')?.value ?? ''))?.[1];
    if (suiteOfFile) r.labels = (r.labels ?? []).map((l: { name?: string; value?: string }) => (l.name === 'parentSuite' ? { ...l, value: suiteOfFile } : l));
    const trail: string[] = Array.isArray(r.titlePath) ? r.titlePath : [];
    const full = [...trail, r.name].join(' › ');
    // allure-playwright's titlePath is [root, ...folders of the spec file, file name, ...describe titles]: the check's suite is the
    // folder just before its file (its first element is the package's name, never a suite).
    const i = checks.findIndex((c) => { const k = trail.indexOf(c.file); return k > 0 && (trail[k - 1] === c.project || k === 1) && full.endsWith(c.title); });
    if (i < 0) { if (suiteOfFile) fs.writeFileSync(file, maskAll(JSON.stringify(r))); continue; }
    const c = checks[i]!;
    const v = verdicts[i]!;
    const reasons = checkReasons(c);
    r.status = ALLURE_STATUS[v];
    r.statusDetails = { ...(r.statusDetails ?? {}), message: `${LABEL[v]}${reasons.filter(Boolean).length ? `: ${reasons.filter(Boolean).join('; ')}` : ''}` };
    r.parameters = [...(r.parameters ?? []).filter((p: { name?: string }) => p.name !== 'verdict'), { name: 'verdict', value: LABEL[v] }];
    r.labels = [...(r.labels ?? []), { name: 'tag', value: LABEL[v] }];
    if (c.reproductions?.length) r.description = `${r.description ? `${r.description}\n\n` : ''}Reproduction:\n\n${c.reproductions.map((x) => '```\n' + x + '\n```').join('\n\n')}`;
    fs.writeFileSync(file, maskAll(JSON.stringify(r)));
  }
  const category = (v: Verdict, statuses: string[], messageRegex: string) => ({ name: `${LABEL[v]}: ${LEGEND[v]}`, matchedStatuses: statuses, messageRegex });
  fs.writeFileSync(path.join(resultsDir, 'categories.json'), JSON.stringify([
    category('fail', ['failed'], '^FAIL[\\s\\S]*'), category('harness-error', ['broken'], '[\\s\\S]*'),
    category('not-judged', ['skipped'], '^NOT JUDGED[\\s\\S]*'), category('skipped', ['skipped'], '^SKIP[\\s\\S]*'),
    category('warn', ['passed'], '^WARN[\\s\\S]*'), category('note', ['passed'], '^NOTE[\\s\\S]*'),
  ], null, 2));
}
