// Playwright Test configuration: one project per suite, reports into the run folder that `ces test` gives (CES_RUN_DIR).
import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

const here = path.dirname(new URL(import.meta.url).pathname);
const runDir = process.env.CES_RUN_DIR ?? path.join(process.env.CES_REPORTS_DIR ?? path.join(here, '..', 'reports'), 'adhoc');
export const SUITES = ['rest', 'auth', 'graphql', 'bot-runtime', 'webhooks', 'connector-check', 'receiver-check', 'browser'];
const present = SUITES.filter((s) => fs.existsSync(path.join(here, s)) && fs.readdirSync(path.join(here, s)).some((f) => f.endsWith('.spec.ts')));
const quiet = process.env.CES_QUIET === '1';
/** Spec files by their total time in a conformance run, longest first (measured: retry 128 s, lab bot 33 s serial, browser 30 s...). */
const LONGEST_FIRST = ['webhooks/retry.spec.ts', 'bot-runtime/lab-bot.spec.ts', 'browser/inspector.spec.ts', 'browser/chat.spec.ts', 'bot-runtime/conversation.spec.ts', 'bot-runtime/timing.spec.ts'];
/**
 * `ces selftest` writes its plan here (cli/selftest-plan.ts): a few projects, each with the deviations whose checks it runs; the
 * fixture of suites/fixtures.ts switches each check's deviation on in the worker's own stack. The baseline project has none.
 */
interface SelftestProject { name: string; grep: string; deviations: Array<{ id: string; clauses: string[] }>; baseline?: boolean }
const selftestPlan: SelftestProject[] | undefined = process.env.CES_SELFTEST_PLAN ? JSON.parse(fs.readFileSync(process.env.CES_SELFTEST_PLAN, 'utf8')) : undefined;

export default defineConfig({
  testDir: here,
  outputDir: path.join(runDir, 'test-output'),
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: Number(process.env.CES_WORKERS ?? 2),
  timeout: 120_000,
  reporter: [
    selftestPlan ? [path.join(here, 'selftest-reporter.ts')] : [quiet ? 'dot' : 'list'],
    ['json', { outputFile: path.join(runDir, 'results.json') }],
    ['junit', { outputFile: path.join(runDir, 'junit.xml'), stripANSIControlSequences: true }],
    ['html', { outputFolder: path.join(runDir, 'playwright'), open: 'never', title: `CES conformance — ${path.basename(runDir)}`, noCopyPrompt: true }],
    // Clause ids arrive as `tms` annotations (suites/fixtures.ts allureAnnotations) and link to their landing-page row,
    // relative to <run>/allure-report/index.html.
    ['allure-playwright', {
      resultsDir: path.join(runDir, 'allure-results'), detail: true, suiteTitle: true,
      links: { tms: { urlTemplate: '../../index.html#clause-%s', nameTemplate: 'clause %s' } },
    }],
  ],
  use: {
    launchOptions: {
      executablePath: process.env.CES_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
    },
    ignoreHTTPSErrors: true,
    screenshot: 'only-on-failure',
  },
  projects: selftestPlan
    ? selftestPlan.map((p) => ({ name: p.name, testDir: here, testMatch: present.map((s) => `${s}/**/*.spec.ts`), grep: new RegExp(p.grep), metadata: { selftest: { baseline: p.baseline === true, deviations: p.deviations.map((d) => ({ id: d.id, clauses: d.clauses })) } } }))
    : [
      // Longest first: the files whose checks wait longest in real time (30 s timeouts, retries at +10 s and +20 s, a serial bot
      // lab) start at once, as a project of the same suite name listed before the others; the rest of each suite follows.
      ...present.flatMap((name) => {
        const slow = LONGEST_FIRST.filter((f) => f.startsWith(name + '/')).map((f) => f.slice(name.length + 1));
        return slow.length ? [{ name, testDir: path.join(here, name), testMatch: slow }] : [];
      }).sort((a, b) => LONGEST_FIRST.findIndex((f) => f.startsWith(a.name + '/')) - LONGEST_FIRST.findIndex((f) => f.startsWith(b.name + '/'))),
      ...present.map((name) => {
        const slow = LONGEST_FIRST.filter((f) => f.startsWith(name + '/')).map((f) => f.slice(name.length + 1));
        return { name, testDir: path.join(here, name), ...(slow.length ? { testIgnore: slow } : {}) };
      }),
    ],
});
