// `ces report`: rebuild reports/index.html from existing runs; `--compare A B` lists clauses whose verdict changed.
import type { CommandModule } from 'yargs';
import { buildLanding, readRuns } from '../../lib/landing.js';
import { UsageError } from '../usage.js';

interface Args { compare?: string[] }

export const reportCommand: CommandModule<{}, Args> = {
  command: 'report',
  describe: 'Rebuild reports/index.html from the runs under reports/; --compare A B shows clauses whose verdict changed',
  builder: (y) => y.option('compare', { type: 'string', array: true, describe: 'Two run ids (folder names under reports/)' }),
  handler: (a) => {
    if (a.compare) {
      if (a.compare.length !== 2) throw new UsageError('--compare takes exactly two run ids');
      const runs = readRuns();
      const [ra, rb] = a.compare.map((id) => runs.find((r) => r.id === id));
      if (!ra || !rb) throw new UsageError(`unknown run id(s); known: ${runs.map((r) => r.id).join(', ') || 'none'}`);
      const va = new Map(ra.verdicts.map((v) => [v.id, v.verdict]));
      let changed = 0;
      for (const v of rb.verdicts) {
        const before = va.get(v.id) ?? 'absent';
        if (before !== v.verdict) { changed++; console.log(`${v.id.padEnd(28)} ${before} -> ${v.verdict}`); }
      }
      console.log(`${changed} clause(s) changed verdict`);
      return;
    }
    console.log(buildLanding());
  },
};
