// `ces selftest`: proves every check can fail, by running the checks of each deviation's clauses against a deviant reference implementation.
import type { CommandModule } from 'yargs';
import fs from 'node:fs';
import path from 'node:path';
import { loadDeviations, type Deviation } from '../../lib/catalogue.js';
import { newRunDir, runPlaywright, finishRun } from '../run.js';
import { resolveTarget } from '../embedded.js';
import { UsageError } from '../usage.js';
import type { RunSummary } from '../../lib/landing.js';

interface Args { list: boolean; only?: string; area?: string; baseline: boolean; parallel: number; matrix?: string }

/** `rest.policy pageMax=100000` or `rest.response [tag] data.*.amount as string`: the seam of a deviation and what it changes. */
const seamOf = (d: Deviation): string => {
  const e = d as Deviation & { seam?: string; set?: Record<string, unknown>; edits?: Array<Record<string, unknown>>; where?: unknown };
  const change = e.set ? Object.entries(e.set).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')
    : (e.edits ?? []).map(({ at, ...op }) => `${at} ${Object.entries(op).map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(' ')}`).join('; ');
  return `${e.seam ?? '?'}${e.where ? ` [${[e.where].flat().join(',')}]` : ''} ${change}`;
};

/** A grep matching the clause tags exactly (REST-PAGE-01 must not match REST-PAGE-010). */
export const clauseGrep = (ids: string[]) => `(${ids.map((id) => '@' + id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?![\\w-])`;

export const selftestCommand: CommandModule<{}, Args> = {
  command: 'selftest',
  describe: 'Run each deviation against the checks of its clauses and fail unless every deviation is caught',
  builder: (y) => y
    .option('list', { type: 'boolean', default: false, describe: 'List the deviations and their clauses, then exit' })
    .option('only', { type: 'string', describe: 'Comma list of deviation ids to run' })
    .option('area', { type: 'string', describe: 'Only deviations of this area (file name in fixtures/deviations/)' })
    .option('baseline', { type: 'boolean', default: true, describe: 'First check that the same checks pass with no deviation' })
    .option('parallel', { type: 'number', default: 1, describe: 'Deviations run at once, each on its own embedded stack (one Playwright worker each when > 1)' })
    .option('matrix', { type: 'string', describe: 'Also write FILE: {deviation: [titles of the checks that caught it]} (compare two with scripts/compare-matrix.ts)' }),
  handler: async (a) => {
    let devs: Deviation[] = loadDeviations();
    if (a.list) {
      // Where each deviation acts (the recipe of docs/ARCHITECTURE.md): its seam and what it changes there.
      for (const d of devs) console.log(`${d.id.padEnd(36)} ${d.clauses.join(',').padEnd(40)} ${seamOf(d).padEnd(48)} ${d.description}`);
      return;
    }
    if (a.only) {
      const want = a.only.split(',').map((s) => s.trim());
      const unknown = want.filter((w) => !devs.some((d) => d.id === w));
      if (unknown.length) throw new UsageError(`unknown deviation(s) ${unknown.join(', ')}; see \`ces selftest --list\``);
      devs = devs.filter((d) => want.includes(d.id));
    }
    if (a.area) {
      devs = devs.filter((d) => d.area === a.area);
      if (!devs.length) throw new UsageError(`no deviation in area "${a.area}"`);
    }
    const run = newRunDir('selftest');
    const parallel = Math.max(1, Math.min(a.parallel, devs.length || 1));
    // Each lane is its own embedded stack: a deviation is global to a stack, so lanes never see each other's deviations.
    const lanes = await Promise.all(Array.from({ length: parallel }, () => resolveTarget({ runDir: run.dir })));
    const mutations: NonNullable<RunSummary['mutations']> = [];
    let baselineOk = true;
    try {
      if (a.baseline) {
        console.log(`selftest: baseline (no deviation) over the checks of ${devs.length} deviations`);
        const base = await runPlaywright({ targetFile: lanes[0]!.file, runDir: path.join(run.dir, 'baseline'), grep: clauseGrep([...new Set(devs.flatMap((d) => d.clauses))]), quiet: true });
        // A harness error in the baseline is as bad as a failure: the checks do not run cleanly without deviations.
        const failed = base.checks.filter((c) => c.outcome === 'failed' || c.outcome === 'harness-error');
        baselineOk = failed.length === 0 && base.checks.length > 0;
        for (const f of failed) console.log(`  baseline FAIL ${f.title}: ${(f.reason ?? '').split('\n')[0]}`);
      }
      console.log(`selftest: ${devs.length} deviations on ${parallel} lane(s)`);
      let next = 0;
      let done = 0;
      await Promise.all(lanes.map(async (lane) => {
        const ces = lane.stack!.app.ces;
        for (let i = next++; i < devs.length; i = next++) {
          const d = devs[i]!;
          ces.deviations.set([d.id]);
          const res = await runPlaywright({ targetFile: lane.file, runDir: path.join(run.dir, d.id), grep: clauseGrep(d.clauses), quiet: true, workers: parallel > 1 ? 1 : undefined });
          ces.deviations.clear();
          // Only a check's own failure catches a deviation; a harness error says nothing about it (lib/verdicts.ts).
          const failedChecks = res.checks.filter((c) => c.outcome === 'failed').map((c) => c.title);
          const harnessErrors = res.checks.filter((c) => c.outcome === 'harness-error').map((c) => c.title);
          const caught = failedChecks.length > 0;
          mutations.push({ deviation: d.id, clauses: d.clauses, caught, failedChecks, ...(harnessErrors.length ? { harnessErrors } : {}) });
          const errs = harnessErrors.length ? ` (${harnessErrors.length} HARNESS ERROR, not counted: ${harnessErrors.join('; ')})` : '';
          console.log(`[${++done}/${devs.length}] ${caught ? 'caught ' : 'MISSED '} ${d.id} (${d.clauses.join(', ')})${caught ? ` by ${failedChecks.length} check(s)` : `: ${res.checks.length} check(s) ran, none failed`}${errs}`);
        }
      }));
    } finally {
      await Promise.all(lanes.map((l) => l.close()));
    }
    const order = new Map(devs.map((d, i) => [d.id, i]));
    mutations.sort((x, y) => order.get(x.deviation)! - order.get(y.deviation)!);
    const missed = mutations.filter((m) => !m.caught);
    if (a.matrix) fs.writeFileSync(a.matrix, JSON.stringify(Object.fromEntries(mutations.map((m) => [m.deviation, [...m.failedChecks].sort()])), null, 1) + '\n');
    finishRun(run, 'selftest', lanes[0]!.target, [], { mutations, exitCode: missed.length || !baselineOk ? 1 : 0 });
    console.log(`\nselftest: ${mutations.length - missed.length} passed, ${missed.length} failed${baselineOk ? '' : ' (baseline failed: the checks do not pass without deviations)'}`);
    process.exitCode = missed.length || !baselineOk ? 1 : 0;
  },
};
