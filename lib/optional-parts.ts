// The parts of the harness that npm does not bring by itself, found where `ces setup` put them or on this machine: k6 (load, bench), Chromium (the browser suite) and better-sqlite3's native build (the reference implementation).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { ROOT } from './paths.js';

/** The k6 release the load scripts and thresholds are written for. */
export const K6_VERSION = 'v1.8.1';

/** A part is missing: one line saying what, and the command that fixes it (the CLI prints it and exits 2). */
export class MissingPartError extends Error {}

/** Where `ces setup` keeps what it installs, per user (a fresh clone or a new project reuses it): CES_CACHE or ~/.cache/ces. */
export const cacheDir = (): string => process.env.CES_CACHE || path.join(os.homedir(), '.cache', 'ces');
/** The folder of the pinned k6: `ces setup` builds or downloads it there. */
export const k6Home = (): string => path.join(cacheDir(), `k6-${K6_VERSION}`);
const exe = (name: string) => (process.platform === 'win32' ? `${name}.exe` : name);

export interface FoundK6 { path: string; version: string; pinned: boolean }

/** k6: CES_K6, the one `ces setup` installed, or k6 on the PATH; undefined when none runs. */
export function findK6(): FoundK6 | undefined {
  const candidates = [process.env.CES_K6, path.join(k6Home(), exe('k6')), 'k6'].filter((c): c is string => !!c);
  for (const c of candidates) {
    const r = spawnSync(c, ['version'], { encoding: 'utf8' });
    if (r.status !== 0) continue;
    const version = /k6 (v[\d.]+)/.exec(r.stdout)?.[1] ?? r.stdout.trim();
    return { path: c, version, pinned: version === K6_VERSION };
  }
  return undefined;
}

/** What `ces load` and `ces bench` say when k6 is missing. */
export const K6_MISSING = `k6 is not installed: run \`npx ces setup\` (installs k6 ${K6_VERSION} into ${path.join('~', '.cache', 'ces')}), put k6 on the PATH, or set CES_K6 to a k6 binary`;

/** The k6 binary, or a MissingPartError saying how to get it. */
export function requireK6(): string {
  const k6 = findK6();
  if (!k6) throw new MissingPartError(K6_MISSING);
  return k6.path;
}

/** Chromium or Chrome binaries of the usual system packages, after Playwright's own download. */
const SYSTEM_CHROMIUM: Record<string, string[]> = {
  linux: ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'],
  darwin: ['/Applications/Chromium.app/Contents/MacOS/Chromium', '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'],
  win32: ['C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe'],
};

export interface FoundChromium { path?: string; /** Where it came from, or why there is none. */ how: string }

/**
 * The browser of the browser suite: CES_CHROMIUM, the Chromium Playwright downloaded (`npx playwright install chromium`, which
 * `ces setup` runs), or the system's Chromium or Chrome.
 */
export function findChromium(): FoundChromium {
  const set = process.env.CES_CHROMIUM;
  if (set) return fs.existsSync(set) ? { path: set, how: 'CES_CHROMIUM' } : { how: `CES_CHROMIUM names ${set}, which does not exist` };
  try {
    const own = (createRequire(import.meta.url)('playwright-core') as { chromium: { executablePath(): string } }).chromium.executablePath();
    if (own && fs.existsSync(own)) return { path: own, how: "Playwright's download" };
  } catch { /* no download of this Playwright version: the system's browser below */ }
  const system = (SYSTEM_CHROMIUM[process.platform] ?? []).find((f) => fs.existsSync(f));
  return system ? { path: system, how: 'system package' } : { how: 'no Chromium found' };
}

/** The skip reason of the browser suite without Chromium, with the command that fixes it. */
export const chromiumMissing = (f: FoundChromium): string =>
  `Chromium not found (${f.how}): run \`npx ces setup\`, or install your system's chromium package, or set CES_CHROMIUM to a Chromium or Chrome binary`;

/** CI systems set CI (GitHub Actions, GitLab CI, most others): there a missing Chromium or k6 fails the run instead of skipping. */
export const inCi = (): boolean => !!process.env.CI && !['0', 'false'].includes(process.env.CI.toLowerCase());

/** The folder of the project ces-harness is installed in (npm commands run there), or the checkout. */
function projectDir(): string {
  return path.basename(path.dirname(ROOT)) === 'node_modules' ? path.dirname(path.dirname(ROOT)) : ROOT;
}

/**
 * The command that builds better-sqlite3. npm 11 records which dependencies may run install scripts (package.json "allowScripts",
 * `npm install-scripts approve`) and, depending on its settings, skips or refuses the others: there the build needs the approval
 * first. Older npm has no such setting and rebuilds on request. Asked only when the build is missing (npm takes ~0.3 s to answer).
 */
export function sqliteFix(): string {
  const r = spawnSync('npm', ['config', 'get', 'allow-scripts'], { cwd: projectDir(), encoding: 'utf8', shell: process.platform === 'win32' });
  const approvals = r.status === 0 && r.stdout.trim() !== 'undefined';
  return approvals ? 'npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3' : 'npm rebuild better-sqlite3';
}

/**
 * better-sqlite3 loads its native module lazily, at the first database: opening one here turns "not built" into one line with
 * the command that builds it, before a stack starts (in a worker thread, where the error would be a stack trace).
 */
export function requireSqlite(): void {
  const require = createRequire(import.meta.url);
  let problem: string;
  try {
    const Database = require('better-sqlite3') as new (f: string) => { close(): void };
    new Database(':memory:').close();
    return;
  } catch (e) {
    problem = (e as Error).message.split('\n')[0]!.replace(/[:.]\s*$/, '');
  }
  throw new MissingPartError(
    `better-sqlite3, the SQLite of the reference implementation, is not built for Node ${process.version} (${problem}; npm skipped its install script): run \`${sqliteFix()}\` in ${projectDir()}`,
  );
}
