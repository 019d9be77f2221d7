// Playwright Test configuration: one project per suite, reports into the run folder that `ces test` gives (CES_RUN_DIR).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { findChromium } from '../lib/optional-parts.js';
import { SUITES } from './list.js';
import { COPY_GREP, copiesGrep, type CopiedProject } from '../lib/selftest-copies.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** `.ts` from the sources, `.js` compiled (dist/suites, as the package ships them): spec files are named with it. */
const EXT = path.extname(fileURLToPath(import.meta.url));
const spec = (file: string) => file.replace(/\.ts$/, EXT);
/** Every spec file of a suite, as a glob. */
const specsIn = (suite: string) => `${suite}/**/*${spec('.spec.ts')}`;
const runDir = process.env.CES_RUN_DIR ?? path.join(path.resolve(process.env.CES_REPORTS_DIR || 'reports'), 'adhoc');
export { SUITES };
const present = SUITES.filter((s) => fs.existsSync(path.join(here, s)) && fs.readdirSync(path.join(here, s)).some((f) => f.endsWith(spec('.spec.ts'))));
const quiet = process.env.CES_QUIET === '1';
/**
 * Spec files by their total time in a conformance run, longest first (measured: retry 128 s, lab bot 33 s serial, browser 30 s...):
 * dispatched before the others, in this order (the configuration's metadata `dispatchFirst`, read by lib/runner-dispatch-first.cjs),
 * in the project that holds them; the rest in name order.
 */
const LONGEST_FIRST = ['webhooks/retry.spec.ts', 'bot-runtime/lab-bot.spec.ts', 'browser/inspector.spec.ts', 'browser/chat.spec.ts', 'bot-runtime/conversation.spec.ts', 'bot-runtime/timing.spec.ts'].map(spec);
const longest = LONGEST_FIRST.filter((f) => present.includes(f.split('/')[0]!));
/**
 * The webhook retry checks (20 to 50 s of real-time waiting each): the self-test dispatches only them first, then its browser
 * checks, then the rest, the order it had with a project of retry checks. Tried with the other long files first too, in the one
 * run measured a clock-timed bot check (BOT-TRANSFER-05, 3 s to close after a 60 s clock move) failed in the first pass of a run
 * of 67 alternatives, all of which then ran again (second pass): not kept.
 */
const RETRIES = spec('webhooks/retry.spec.ts');
const retryFiles = longest.includes(RETRIES) ? [RETRIES] : [];
/** Every spec file of the suites present. */
const allSpecs = present.map(specsIn);
/**
 * The browser checks of a self-test run on at most this many lanes at once: each lane that runs one starts a Chromium of its own,
 * and its copies (a check per fault or alternative of its clauses) were dispatched together, so 7 lanes launched 7 Chromiums at
 * the same second, 1 to 2 CPU-s each, while webhook retry checks on the other lanes judged delays to the second (a retry came
 * 1.8 s late under that load, CI14).
 */
const BROWSER_LANES = 2;
const browserFiles = present.includes('browser') ? [specsIn('browser')] : [];
/**
 * `ces selftest` writes its plan here (cli/selftest-plan.ts): a few projects, each with the deviations whose checks it runs (or, for
 * alternatives, every check of its suites with all of its deviations on); the fixture of suites/fixtures/target.ts switches each
 * check's deviations on in the worker's own stack. The baseline projects have none.
 */
type SelftestProject = CopiedProject;
const selftestPlan: SelftestProject[] | undefined = process.env.CES_SELFTEST_PLAN ? JSON.parse(fs.readFileSync(process.env.CES_SELFTEST_PLAN, 'utf8')) : undefined;

/**
 * The self-test's projects: the planned projects (of faults, of alternatives) as one Playwright project of copies
 * (lib/selftest-copies.ts: each check declared once per planned project that runs it, so that a worker process serves every
 * planned project of its lane instead of one), its browser checks apart, on BROWSER_LANES lanes at most; the baseline keeps a
 * project of its own, copies left out of it. The retry checks are dispatched first (metadata below: more than half of the run's
 * test time, so the long waits start at once on every lane), then the browser checks, then the others in name order.
 */
function selftestProjects(plan: SelftestProject[]) {
  const specsOf = (p: SelftestProject) => (p.suites ? present.filter((s) => p.suites!.includes(s)).map(specsIn) : allSpecs);
  const skipped = (p: SelftestProject) => present.filter((s) => p.skipSuites?.includes(s)).map(specsIn);
  const copied = plan.filter((p) => !p.baseline);
  const copies = (name: string, files: { testMatch: string[]; testIgnore?: string[] }) => ({
    name, testDir: here, ...files, grep: copiesGrep(copied), metadata: { selftest: { baseline: false, together: false, deviations: [] } },
  });
  return [
    ...plan.filter((p) => p.baseline).map((p) => ({
      name: p.name, testDir: here, testMatch: specsOf(p), testIgnore: skipped(p), ...(p.grep ? { grep: new RegExp(p.grep) } : {}), grepInvert: COPY_GREP,
      metadata: { selftest: { baseline: true, together: false, deviations: [] } },
    })),
    ...(copied.length && browserFiles.length ? [{ ...copies('copies-browser', { testMatch: browserFiles }), workers: BROWSER_LANES }] : []),
    ...(copied.length ? [copies('copies', { testMatch: allSpecs, testIgnore: browserFiles })] : []),
  ];
}

export default defineConfig({
  // Compiled (dist/suites) the files load as they are, as in the installed package under node_modules, which Playwright never
  // transpiles: no second compilation, and check locations and files read the same in a checkout and in the package.
  ...(EXT === '.js' ? { build: { external: [`${path.dirname(here)}/**`] } } : {}),
  testDir: here,
  // Read by lib/runner-dispatch-first.cjs in the runner: these files' checks are queued before the others, in this order.
  metadata: { dispatchFirst: selftestPlan ? retryFiles : longest },
  outputDir: path.join(runDir, 'test-output'),
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: Number(process.env.CES_WORKERS ?? 2),
  // One check's time-out (`ces test --timeout`); the harness's own waits end before it (suites/verdicts.ts checkDeadline).
  timeout: Number(process.env.CES_CHECK_TIMEOUT_MS ?? 120_000),
  reporter: [
    // First: what the others read of a failed check that kept its worker (lib/verdicts.ts WORKER_KEPT).
    [path.join(here, spec('worker-kept-reporter.ts'))],
    selftestPlan ? [path.join(here, spec('selftest-reporter.ts'))] : [quiet ? 'dot' : 'list'],
    // What only the structured report tells (a failure in Playwright's hooks is the harness's own): lib/run-facts.ts.
    [path.join(here, spec('facts-reporter.ts')), { runDir }],
    ['json', { outputFile: path.join(runDir, 'results.json') }],
    ['junit', { outputFile: path.join(runDir, 'junit.xml'), stripANSIControlSequences: true }],
    ['html', { outputFolder: path.join(runDir, 'playwright'), open: 'never', title: `CES conformance — ${path.basename(runDir)}`, noCopyPrompt: true }],
    // Clause ids arrive as `tms` annotations (suites/fixtures.ts allureAnnotations) and link to their landing-page row,
    // relative to <run>/allure-report/index.html.
    // Allure's reporter without an fsync per file (suites/allure-reporter.ts); none when no Allure report will be made (CES_ALLURE=0:
    // `--no-allure`, the self-test's sub-runs). Without `detail`: a check's own steps (its HTTP exchanges, with their attachments),
    // not every fixture and expect() of Playwright (the Playwright HTML report keeps those): a fifth less to write and to generate.
    ...(process.env.CES_ALLURE === '0' ? [] : [[path.join(here, spec('allure-reporter.ts')), {
      resultsDir: path.join(runDir, 'allure-results'), detail: false, suiteTitle: true,
      links: { tms: { urlTemplate: '../../index.html#clause-%s', nameTemplate: 'clause %s' } },
    }] as [string, object]]),
  ],
  use: {
    launchOptions: {
      // Without one, the browser suite's checks are SKIP with the reason (suites/browser/helpers.ts).
      executablePath: findChromium().path,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
    },
    ignoreHTTPSErrors: true,
    screenshot: 'only-on-failure',
  },
  projects: selftestPlan
    ? selftestProjects(selftestPlan)
    : [
      // One project, not one per suite: a worker (a process loading the suites, 1 to 2 s of CPU) serves one project, and a lane
      // moving to another project starts a new one; one project per suite (and per suite's longest files) started 54 workers in
      // a 6-worker run, a project of the retry checks 6 more. The longest files are dispatched first (metadata above: the retry
      // checks, up to 41 s of real-time waiting each, start at once), then the rest in name order. A check's suite is the first
      // folder of its file (lib/results.ts checkSource); `ces test --suite` selects files (cli/run.ts).
      { name: 'suites', testDir: here, testMatch: allSpecs },
    ],
});
