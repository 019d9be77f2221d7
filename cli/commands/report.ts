// `ces report`: rebuild reports/index.html and every run's evidence.html from existing results; `--compare A B` lists clauses whose verdict changed.
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { buildAll, compareRuns, readRuns, type RunSummary, type VerdictChange } from '../../lib/landing.js';
import { scrubDir } from '../../lib/results.js';
import { REPORTS } from '../../lib/paths.js';
import { UsageError } from '../usage.js';

interface Args { compare?: string[] }

/** A run by id, by its folder path, or `latest` / `latest-<kind>`. */
export function findRun(runs: RunSummary[], ref: string): RunSummary | undefined {
  const id = path.basename(ref.replace(/[/\\]+$/, ''));
  if (id === 'latest') return runs[0];
  const kind = /^latest-(.+)$/.exec(id)?.[1];
  if (kind) return runs.find((r) => r.kind === kind);
  return runs.find((r) => r.id === id);
}

/** The terminal table of `--compare`: one line per clause that changed, then a count. */
export function compareTable(a: RunSummary, b: RunSummary, changes: VerdictChange[]): string {
  const head = ['clause', 'severity', 'area', a.id, b.id];
  const rows = changes.map((c) => [c.id, c.severity, c.area, c.before, c.after]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((x, i) => x.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [`compare ${a.id} (${a.kind}, ${a.date}) -> ${b.id} (${b.kind}, ${b.date})`, ''];
  if (rows.length) out.push(line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), '');
  const worse = changes.filter((c) => c.after === 'fail' && c.before !== 'fail').length;
  const better = changes.filter((c) => c.before === 'fail' && c.after !== 'fail').length;
  out.push(`${changes.length} clause(s) changed verdict (${worse} newly failing, ${better} no longer failing)`);
  return out.join('\n');
}

export const reportCommand: CommandModule<{}, Args> = {
  command: 'report',
  describe: 'Rebuild reports/index.html and each run\'s evidence.html from the runs under reports/; --compare A B shows clauses whose verdict changed',
  builder: (y) => y
    .option('compare', { type: 'string', array: true, describe: 'Two runs: ids (folder names under reports/), folder paths, `latest` or `latest-<kind>`' })
    .example('$0 report', 'rebuild the landing page and evidence pages')
    .example('$0 report --compare 2026-01-01T10-00-00-test-1 latest-test', 'clauses whose verdict changed between two runs'),
  handler: (a) => {
    if (a.compare) {
      if (a.compare.length !== 2) throw new UsageError('--compare takes exactly two runs, e.g. --compare <run-id> latest-test');
      const runs = readRuns();
      const [ra, rb] = a.compare.map((ref) => findRun(runs, ref));
      if (!ra || !rb) throw new UsageError(`unknown run ${!ra ? a.compare[0] : a.compare[1]}; known under ${REPORTS}: ${runs.map((r) => r.id).join(', ') || 'none'}`);
      console.log(compareTable(ra, rb, compareRuns(ra, rb)));
      return;
    }
    // Folders written by older versions get the secret-named fields masked too before their pages are rebuilt.
    for (const r of readRuns()) scrubDir(path.join(REPORTS, r.id));
    const { landing, evidence } = buildAll();
    console.log(`rebuilt ${evidence.length} evidence page(s)\n${landing}`);
  },
};
