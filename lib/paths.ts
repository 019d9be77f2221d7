// Where the project's parts are, the same from the TypeScript sources (tsx) and from the compiled JavaScript (dist/), in a checkout or an installed package.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding cli/, lib/, suites/...: the checkout itself (sources under tsx) or its dist/ (compiled JavaScript). */
export const CODE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Running the compiled JavaScript: dist/lib/paths.js. The build (scripts/build.mjs) writes dist/ and nothing else is named so. */
export const COMPILED = path.basename(CODE) === 'dist';
/** The package's own folder (the checkout, or node_modules/ces-harness): package.json, fixtures/, load/, reports/template/. */
export const ROOT = COMPILED ? path.dirname(CODE) : CODE;
export const FIXTURES = path.join(ROOT, 'fixtures');
export const SCHEMAS_DIR = path.join(FIXTURES, 'schemas');
/**
 * Generated reports: `reports/` of the working folder, or CES_REPORTS_DIR (tests set it so they never clobber the real ones).
 * bin/ces.js resolves it once and exports it, so the processes a run starts (Playwright, k6, its workers) write to the same place
 * whatever their own working folder.
 */
export const REPORTS = path.resolve(process.env.CES_REPORTS_DIR || 'reports');
/** The landing page's template (CSS, scripts), shipped with the package under reports/template/ whatever CES_REPORTS_DIR says. */
export const REPORT_TEMPLATE = path.join(ROOT, 'reports', 'template');

/**
 * A module of the project by its source path (`suites/playwright.config.ts`): the file itself from the sources, its compiled
 * JavaScript under dist/ otherwise. For what another process loads by path (Playwright's configuration, a child's entry).
 */
export function codeFile(source: string): string {
  return path.join(CODE, COMPILED ? source.replace(/\.ts$/, '.js') : source);
}

/** The Playwright configuration of the suites (compiled with them: Playwright loads it and the spec files beside it). */
export const PLAYWRIGHT_CONFIG = codeFile('suites/playwright.config.ts');
/**
 * The environment Playwright runs with here. Compiled, the suites are plain ES modules that Playwright need not transpile (its
 * configuration marks them external): without its ESM loader (a thread of its own in the runner and in every worker, through
 * which each import passes on Node 20) a worker starts on about 0.3 s less CPU.
 */
export const playwrightEnv = (): Record<string, string> => (COMPILED ? { PW_DISABLE_TS_ESM: '1' } : {});
/** Playwright Test's command line, wherever npm installed @playwright/test. */
export const playwrightCli = (): string => path.join(packageDir('@playwright/test'), 'cli.js');
/** Required into the runner of a Playwright run and of a listing (lib/runner-snippets.cjs: each error's snippet made once per place). */
export const RUNNER_SNIPPETS = codeFile('lib/runner-snippets.cjs');
/** Required into the runner of a Playwright run and of a listing (lib/runner-lazy-babel.cjs: babel loaded only if used). */
export const RUNNER_LAZY_BABEL = codeFile('lib/runner-lazy-babel.cjs');
/** Required into the runner of a Playwright run and of a listing (lib/runner-dispatch-first.cjs: the files the configuration names dispatched first). */
export const RUNNER_DISPATCH_FIRST = codeFile('lib/runner-dispatch-first.cjs');
/** Node's options that require the three into Playwright's runner, for every run and listing of `ces`. */
export const RUNNER_HOOKS: readonly string[] = ['--require', RUNNER_SNIPPETS, '--require', RUNNER_LAZY_BABEL, '--require', RUNNER_DISPATCH_FIRST];

/**
 * The folder of an installed npm package: in the checkout it is ROOT/node_modules/<name>; installed as a dependency, npm hoists
 * it beside this package (node_modules/<name>), so the search walks up from ROOT as Node's resolution does. Throws when absent.
 */
export function packageDir(name: string): string {
  for (let dir = ROOT; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`the npm package ${name} is not installed (searched node_modules from ${ROOT} up): reinstall ces-harness`);
  }
}
