// Generates the Allure HTML report from allure-results with the `allure` npm package (Allure 3: no Java, no download), as one file that opens from disk.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT } from '../lib/paths.js';
import { scrubDir } from '../lib/results.js';

/** Allure 3 configuration: the "awesome" report as a single HTML file (data inlined, so file:// works without a server). */
export function allureConfig(reportName: string): string {
  return `// Written by ces (cli/allure.ts) for this run's Allure report.
export default ${JSON.stringify({ name: reportName, plugins: { awesome: { options: { singleFile: true, reportName, reportLanguage: 'en', groupBy: ['parentSuite', 'suite', 'subSuite'] } } } }, null, 2)};
`;
}

/** Builds <run>/allure-report/index.html; false (with the reason on stderr) when there are no results or Allure fails. */
export async function generateAllure(runDir: string, reportName = `CES conformance — ${path.basename(runDir)}`): Promise<boolean> {
  const results = path.join(runDir, 'allure-results');
  if (!fs.existsSync(results) || !fs.readdirSync(results).some((f) => f.endsWith('-result.json'))) return false;
  // Allure inlines the results as base64 in its single file: they are masked first, as nothing can mask them afterwards.
  scrubDir(results);
  const config = path.join(runDir, 'allurerc.mjs');
  fs.writeFileSync(config, allureConfig(reportName));
  const out = path.join(runDir, 'allure-report');
  fs.rmSync(out, { recursive: true, force: true });
  const bin = path.join(ROOT, 'node_modules', 'allure', 'cli.js');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [fs.existsSync(bin) ? bin : path.join(ROOT, 'node_modules', '.bin', 'allure'), 'generate', results, '-o', out, '--config', config], { cwd: runDir, stdio: ['ignore', 'ignore', 'pipe'] });
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
