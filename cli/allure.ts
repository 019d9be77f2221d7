// Generates the Allure HTML report from allure-results with the `allure` npm package (Allure 3: no Java, no download).
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT } from '../lib/paths.js';

export async function generateAllure(runDir: string): Promise<boolean> {
  const results = path.join(runDir, 'allure-results');
  if (!fs.existsSync(results)) return false;
  const bin = path.join(ROOT, 'node_modules', '.bin', 'allure');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(bin, ['generate', results, '-o', path.join(runDir, 'allure-report')], { cwd: runDir, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (c) => { if (c !== 0) console.error(`allure report not generated (exit ${c}): ${err.slice(0, 500)}`); resolve(c); });
    child.on('error', (e) => { console.error(`allure report not generated: ${e.message}`); resolve(1); });
  });
  return code === 0;
}
