// `ces setup`: installs or locates the parts npm does not bring (k6 at the pinned version, Chromium) and checks better-sqlite3's native build; exit 2 names what is still missing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import type { CommandModule } from 'yargs';
import { UsageError, commaList } from '../usage.js';
import { playwrightCli } from '../../lib/paths.js';
import { K6_VERSION, chromiumMissing, findChromium, findK6, k6Home, K6_MISSING, MissingPartError, requireSqlite } from '../../lib/optional-parts.js';

const PARTS = ['sqlite', 'k6', 'chromium'] as const;
type Part = (typeof PARTS)[number];

/** k6's release archives per platform (https://github.com/grafana/k6/releases), the binary inside `k6-<version>-<platform>/`. */
export function k6Archive(platform = process.platform, arch = process.arch): string | undefined {
  const cpu = arch === 'x64' ? 'amd64' : arch === 'arm64' ? 'arm64' : undefined;
  if (!cpu) return undefined;
  if (platform === 'linux') return `k6-${K6_VERSION}-linux-${cpu}.tar.gz`;
  if (platform === 'darwin') return `k6-${K6_VERSION}-macos-${cpu}.zip`;
  if (platform === 'win32' && cpu === 'amd64') return `k6-${K6_VERSION}-windows-amd64.zip`;
  return undefined;
}

/** Where k6's releases are downloaded from: CES_K6_MIRROR (a mirror with the same layout) or GitHub. */
const releases = () => (process.env.CES_K6_MIRROR || 'https://github.com/grafana/k6/releases/download').replace(/\/$/, '');

/** GET with deadlines: 20 s for the answer to begin (an unreachable host fails in seconds, not minutes), 5 minutes for the body. */
async function download(url: string): Promise<Buffer> {
  const abort = new AbortController();
  let late = 'no answer within 20 s';
  let t = setTimeout(() => abort.abort(), 20_000);
  try {
    const r = await fetch(url, { signal: abort.signal, redirect: 'follow' });
    if (!r.ok) throw new Error(`${r.status} ${r.statusText}`);
    clearTimeout(t);
    late = 'the download took over 5 minutes';
    t = setTimeout(() => abort.abort(), 300_000);
    return Buffer.from(await r.arrayBuffer());
  } catch (e) {
    const cause = (e as Error & { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`GET ${url}: ${abort.signal.aborted ? late : cause ? cause.code ?? cause.message : (e as Error).message}`);
  } finally {
    clearTimeout(t);
  }
}

/**
 * Downloads k6's release archive for this platform, checks it against the release's published SHA-256 sums and unpacks the
 * binary into `dir` (with the system's tar, which also reads zip on macOS and Windows). Returns the binary's path.
 */
export async function downloadK6(dir: string): Promise<string> {
  const archive = k6Archive();
  if (!archive) throw new Error(`k6 publishes no release for ${process.platform}-${process.arch}`);
  const base = `${releases()}/${K6_VERSION}`;
  const sums = (await download(`${base}/k6-${K6_VERSION}-checksums.txt`)).toString('utf8');
  const expected = sums.split('\n').map((l) => l.trim().split(/\s+/)).find(([, name]) => name === archive)?.[0];
  if (!expected) throw new Error(`the checksums of k6 ${K6_VERSION} do not list ${archive}`);
  const data = await download(`${base}/${archive}`);
  const actual = crypto.createHash('sha256').update(data).digest('hex');
  if (actual !== expected) throw new Error(`${archive} does not match its published SHA-256 (expected ${expected}, got ${actual}): not installed`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-k6-'));
  try {
    const file = path.join(work, archive);
    fs.writeFileSync(file, data);
    const untar = spawnSync('tar', ['-xf', file, '-C', work], { encoding: 'utf8' });
    if (untar.status !== 0) throw new Error(`tar could not unpack ${archive}: ${(untar.stderr || untar.error?.message || '').trim()}`);
    const name = process.platform === 'win32' ? 'k6.exe' : 'k6';
    const inside = path.join(work, archive.replace(/\.(tar\.gz|zip)$/, ''), name);
    if (!fs.existsSync(inside)) throw new Error(`${archive} has no ${path.basename(path.dirname(inside))}/${name}`);
    fs.mkdirSync(dir, { recursive: true });
    const dest = path.join(dir, name);
    // Renamed into place: a k6 run started meanwhile finds the whole binary or none.
    fs.copyFileSync(inside, `${dest}.tmp`);
    fs.chmodSync(`${dest}.tmp`, 0o755);
    fs.renameSync(`${dest}.tmp`, dest);
    return dest;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Builds the pinned k6 with Go (`go install`), when the release cannot be downloaded and Go is there. */
function buildK6WithGo(dir: string): string {
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.status !== 0) throw new Error('Go is not installed either (https://go.dev), which could build k6 from source');
  console.log(`  building k6 ${K6_VERSION} with ${go.stdout.trim()} (once per machine, a few minutes)...`);
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('go', ['install', `go.k6.io/k6@${K6_VERSION}`], { env: { ...process.env, GOBIN: dir }, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`go install go.k6.io/k6@${K6_VERSION} failed (exit ${r.status})`);
  return path.join(dir, process.platform === 'win32' ? 'k6.exe' : 'k6');
}

/** The state of one part after set-up: a line to print, and whether it is there. */
interface Outcome { part: Part; ok: boolean; line: string }

async function k6Part(download: boolean): Promise<Outcome> {
  const found = findK6();
  if (found) {
    return { part: 'k6', ok: true, line: `k6 ${found.version} at ${found.path}${found.pinned ? '' : ` (the scripts are written for ${K6_VERSION}; CES_K6 or \`npx ces setup\` after removing it from the PATH selects another)`}` };
  }
  if (!download) return { part: 'k6', ok: false, line: K6_MISSING };
  const dir = k6Home();
  const tried: string[] = [];
  try {
    console.log(`  downloading k6 ${K6_VERSION} from ${releases()}...`);
    await downloadK6(dir);
  } catch (e) {
    tried.push(`download: ${(e as Error).message}`);
    try { buildK6WithGo(dir); } catch (g) { tried.push(`build: ${(g as Error).message}`); }
  }
  const now = findK6();
  if (now) return { part: 'k6', ok: true, line: `k6 ${now.version} installed at ${now.path}` };
  return { part: 'k6', ok: false, line: `k6 ${K6_VERSION} could not be installed (${tried.join('; ')}): put k6 on the PATH (https://grafana.com/docs/k6/latest/set-up/install-k6/), or set CES_K6 to a k6 binary, or CES_K6_MIRROR to a mirror of its releases` };
}

function chromiumPart(download: boolean): Outcome {
  let found = findChromium();
  if (found.path) return { part: 'chromium', ok: true, line: `Chromium ${found.path} (${found.how})` };
  if (download && !process.env.CES_CHROMIUM) {
    console.log("  downloading Chromium with Playwright's installer (npx playwright install chromium)...");
    const r = spawnSync(process.execPath, [playwrightCli(), 'install', 'chromium'], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 600_000 });
    found = findChromium();
    if (found.path) return { part: 'chromium', ok: true, line: `Chromium ${found.path} (${found.how})` };
    found = { how: `Playwright's installer ${r.error ? `failed: ${r.error.message}` : `exited ${r.status}`}` };
  }
  return { part: 'chromium', ok: false, line: `${chromiumMissing(found)}; without it the browser suite is SKIP` };
}

function sqlitePart(): Outcome {
  try {
    requireSqlite();
    return { part: 'sqlite', ok: true, line: `better-sqlite3 (SQLite of the reference implementation) built for Node ${process.version}` };
  } catch (e) {
    if (e instanceof MissingPartError) return { part: 'sqlite', ok: false, line: e.message };
    throw e;
  }
}

interface Args { only?: string; download: boolean }

export const setupCommand: CommandModule<{}, Args> = {
  command: 'setup',
  describe: 'Install or locate the optional parts: k6 at the pinned version (load, bench), Chromium (the browser suite); check the SQLite build',
  builder: (y) => y
    .option('only', { type: 'string', describe: `Comma list of parts (${PARTS.join(', ')}); default: all` })
    .option('download', { type: 'boolean', default: true, describe: `Download what is missing: k6 ${K6_VERSION} from its release (checked against its SHA-256 sums; Go builds it when the download fails), Chromium through Playwright's installer. --no-download only locates` })
    .epilogue(`k6 goes to ${path.join('~', '.cache', 'ces', `k6-${K6_VERSION}`)} (CES_CACHE moves it), where \`ces load\` and \`ces bench\` find it; CES_K6 and CES_CHROMIUM name binaries of your own. Exit 0 when every part asked for is there, 2 otherwise (each missing part says how to get it).`),
  handler: async (a) => {
    const only = a.only ? commaList(a.only) : [...PARTS];
    const unknown = only.filter((p) => !(PARTS as readonly string[]).includes(p));
    if (unknown.length) throw new UsageError(`unknown part(s) ${unknown.join(', ')}; accepted: ${PARTS.join(', ')}`);
    console.log('ces setup:');
    const outcomes: Outcome[] = [];
    for (const part of only as Part[]) {
      const o = part === 'sqlite' ? sqlitePart() : part === 'k6' ? await k6Part(a.download) : chromiumPart(a.download);
      outcomes.push(o);
      console.log(`  ${o.ok ? 'ok     ' : 'MISSING'} ${o.line}`);
    }
    const missing = outcomes.filter((o) => !o.ok);
    if (missing.length) throw new MissingPartError(`missing: ${missing.map((o) => o.part).join(', ')} (each line above says how to get it)`);
    console.log('ready: every part asked for is there');
  },
};
