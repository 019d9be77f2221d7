// `ces test`: run the conformance suites against a target (or the embedded reference implementation) and write reports/.
import type { CommandModule } from 'yargs';
import { SUITES } from '../../suites/playwright.config.js';
import { newRunDir, runPlaywright, finishRun } from '../run.js';
import { resolveTarget } from '../embedded.js';
import { UsageError } from '../usage.js';
import { generateAllure } from '../allure.js';

interface Args { target?: string; suite?: string; grep?: string; deviate: string[]; workers?: number; allure: boolean; strict: boolean }

export const testCommand: CommandModule<{}, Args> = {
  command: 'test',
  describe: 'Run the conformance suites against a target file, or against the embedded reference implementation when none is given',
  builder: (y) => y
    .option('target', { type: 'string', describe: 'Target file (JSON: base_url, rest_base_url, graphql_url, api_key, user, ca_file, capabilities...)' })
    .option('suite', { type: 'string', describe: `Comma list of suites (${SUITES.join(', ')}); default: all` })
    .option('grep', { type: 'string', describe: 'Only checks whose title or clause tag matches this regular expression' })
    .option('deviate', { type: 'string', array: true, default: [] as string[], describe: 'Embedded target only: switch on a deviation (repeatable)' })
    .option('workers', { type: 'number', describe: 'Parallel Playwright workers (default 2)' })
    .option('allure', { type: 'boolean', default: true, describe: 'Generate the Allure HTML report' })
    .option('strict', { type: 'boolean', default: false, describe: 'WARN fails the run (exit 1), as FAIL does' }),
  handler: async (a) => {
    const suites = a.suite ? a.suite.split(',').map((s) => s.trim()).filter(Boolean) : [];
    const unknown = suites.filter((s) => !SUITES.includes(s));
    if (unknown.length) throw new UsageError(`unknown suite(s) ${unknown.join(', ')}; accepted: ${SUITES.join(', ')}`);
    if (a.grep) { try { new RegExp(a.grep); } catch (e) { throw new UsageError(`--grep is not a valid regular expression: ${(e as Error).message}`); } }
    const run = newRunDir('test');
    const resolved = await resolveTarget({ target: a.target, deviate: a.deviate, runDir: run.dir });
    let code: number;
    try {
      console.log(`ces test: target ${resolved.target.base_url}${resolved.stack ? ' (embedded reference implementation)' : ''}; reports in ${run.dir}`);
      const { checks } = await runPlaywright({ targetFile: resolved.file, runDir: run.dir, projects: suites, grep: a.grep, workers: a.workers });
      if (checks.length === 0) throw new UsageError('no check ran: look at the Playwright output above (a suite failed to load, or --grep matched nothing)');
      if (a.allure) await generateAllure(run.dir, undefined, { reference: resolved.target.reference === true });
      code = finishRun(run, 'test', resolved.target, checks, {}, { strict: a.strict });
    } finally {
      await resolved.close();
    }
    process.exitCode = code;
  },
};
