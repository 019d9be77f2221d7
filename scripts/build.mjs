// Compiles the project's TypeScript to dist/ (ES modules with source maps, esbuild), file by file: only the files changed since the last build.
// Usage: node scripts/build.mjs [--clean] [--quiet]. bin/ces.js and scripts/unit-tests.mjs call ensureBuilt() first, so a checkout
// never runs stale compiled code. Type-checking is `npx tsc --noEmit -p .` (esbuild only strips types).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

/** The first line of the bundles this project writes (lib/bundle-mark.cjs): the compile cache keeps their compiled code. */
const { BUNDLE_MARK } = createRequire(import.meta.url)('../lib/bundle-mark.cjs');

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The folders compiled to dist/<folder>: every folder of TypeScript the tools run (tsconfig.json "include", but bin/ and reports/template/, which are JavaScript). */
export const SOURCE_DIRS = ['check', 'cli', 'explore', 'fake-connector', 'fuzz', 'lib', 'load', 'reference-impl', 'scripts', 'suites', 'test', 'transcripts', 'webhook-sink', 'wire'];
/**
 * Files other than TypeScript are copied beside the compiled code (schema.sql, the console's public/ pages, test data): the code
 * finds them from its own import.meta.url. Not copied: documentation, load/ (k6 runs its scripts from ROOT/load, not Node) and
 * scripts/ (shell, run from the checkout).
 */
const copied = (rel) => !rel.endsWith('.md') && !rel.startsWith(`load${path.sep}`) && !rel.startsWith(`scripts${path.sep}`);
/** Bumped when the output of a same source changes (esbuild options below): every file is then rebuilt. */
const FORMAT = 2;
/**
 * Modules started in worker threads (lib/thread-server.ts: an embedded stack, its partners), also bundled with their packages
 * into dist/bundles/<same path>.cjs, which the thread loads instead: one file rather than some 600 modules, about 0.6 CPU-s less
 * per embedded stack (a run starts one per worker). better-sqlite3 stays a package (native). Not in the npm package (its `files`
 * leave dist/bundles/ out: the packages are installed there anyway), where threads load the modules.
 */
export const THREAD_BUNDLES = ['reference-impl/stack.ts', 'reference-impl/partners.ts'];
/**
 * The JSON Schemas, from which the build generates every validator's code (lib/schema-standalone.ts) into dist/lib/ (STANDALONE),
 * again when one of them or the generator's own modules (GENERATOR) changed: a process then loads plain functions, not ajv and
 * a compile of each schema (about 0.1 CPU-s in each Playwright worker, each stack, each `ces`). Not copied to dist/.
 */
const SCHEMA_INPUTS = path.join('fixtures', 'schemas');
const STANDALONE = path.join('lib', 'schema-validators.cjs');
const GENERATOR = ['schema-standalone.ts', 'schemas.ts', 'schema-formats.ts', 'iso8601.ts', 'paths.ts'].map((f) => path.join('lib', f));
const isSchemaInput = (rel) => rel.startsWith(`${SCHEMA_INPUTS}${path.sep}`);
/**
 * undici bundled into one CommonJS file beside lib/undici.ts's output, which loads it (why: lib/undici.ts): written with that
 * module, so again whenever the package-lock changes (every file is then rebuilt) or the file is gone.
 */
const UNDICI_LOADER = path.join('lib', 'undici.ts');
/** What the bundle holds (Agent and request, lib/undici-entry.cjs says why): written again when it changes too. */
const UNDICI_ENTRY = path.join('lib', 'undici-entry.cjs');
const UNDICI_BUNDLE = path.join('lib', 'undici-bundle.cjs');

/** Every source file: `rel` (path under root) → its mtime and size; .d.ts files produce nothing. */
function sources(root) {
  const out = new Map();
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const r = path.join(rel, e.name);
      if (e.isDirectory()) walk(r);
      else if (e.isFile() && !r.endsWith('.d.ts') && (r.endsWith('.ts') || copied(r))) {
        const s = fs.statSync(path.join(root, r));
        out.set(r, `${s.mtimeMs}:${s.size}`);
      }
    }
  };
  for (const d of SOURCE_DIRS) if (fs.existsSync(path.join(root, d))) walk(d);
  if (fs.existsSync(path.join(root, SCHEMA_INPUTS))) walk(SCHEMA_INPUTS);
  const tsconfig = fs.statSync(path.join(root, 'tsconfig.json'));
  const self = fs.statSync(fileURLToPath(import.meta.url));
  // The bundles hold the packages: installed anew (npm ci), they are built again.
  const lock = fs.existsSync(path.join(root, 'package-lock.json')) ? fs.statSync(path.join(root, 'package-lock.json')).mtimeMs : 0;
  return { files: out, stamp: `${FORMAT}:${tsconfig.mtimeMs}:${self.mtimeMs}:${lock}` };
}

/** What a source gives in dist/ (deleted with it): a module and its map, undici's loader the bundle too, a schema the generated validators. */
const outputsOf = (rel) => (isSchemaInput(rel) ? [STANDALONE]
  : rel.endsWith('.ts') ? [rel.replace(/\.ts$/, '.js'), rel.replace(/\.ts$/, '.js.map'), ...(rel === UNDICI_LOADER ? [UNDICI_BUNDLE] : [])] : [rel]);
/** esbuild, which a build needs to compile or bundle anything; `why` says what for when it is missing. */
async function esbuildFor(why) {
  try { return await import('esbuild'); } catch {
    throw new BuildError(`${why} and esbuild, which builds them, is not installed: run \`npm ci\``);
  }
}

/** Writes a file so that a process reading it meanwhile sees the old or the new content, never half of one. */
function writeAtomic(file, data) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

const manifestFile = (root) => path.join(root, 'dist', '.manifest.json');
function readManifest(root) {
  try { return JSON.parse(fs.readFileSync(manifestFile(root), 'utf8')); } catch { return { stamp: '', files: {} }; }
}

/**
 * The source files of `root` (the checkout; tests pass a folder of their own) changed since their output was written, or without
 * output (all of them when the build's settings changed), and the sources gone since (their outputs are deleted).
 */
export function staleness(root = ROOT) {
  const { files, stamp } = sources(root);
  const manifest = readManifest(root);
  const all = manifest.stamp !== stamp;
  // A source whose output is gone is stale (source maps aside: one stat per file, as every `ces` start runs this).
  const stale = [...files.keys()].filter((rel) => all || manifest.files[rel] !== files.get(rel)
    || outputsOf(rel).some((o) => !o.endsWith('.map') && !fs.existsSync(path.join(root, 'dist', o))));
  const removed = Object.keys(manifest.files).filter((rel) => !files.has(rel));
  return { files, stamp, stale, removed };
}

/**
 * Brings dist/ up to date and returns what it did. Each output is written atomically, so processes running meanwhile (another
 * `ces`, a Playwright worker) read whole files; several processes building at once write the same bytes.
 */
export async function build({ clean = false, quiet = false, root = ROOT } = {}) {
  const t0 = performance.now();
  const dist = path.join(root, 'dist');
  // Nothing to do: no lock, a few ms (the usual case of every `ces` start).
  if (!clean) {
    const now = staleness(root);
    if (!now.stale.length && !now.removed.length) return { compiled: 0, copied: 0, removed: 0, ms: Math.round(performance.now() - t0) };
  }
  const unlock = await lock(root);
  try { return await buildLocked({ clean, quiet, root, dist, t0 }); } finally { unlock(); }
}

/**
 * One build at a time per checkout (processes started together after an edit all find it stale): without it, a slower build of
 * an older content could write its output after a newer build wrote its manifest, which would then call that output fresh.
 * A lock older than a minute is a build that died: taken over.
 */
async function lock(root) {
  const dir = path.join(root, 'dist', '.build-lock');
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  for (;;) {
    try { fs.mkdirSync(dir); return () => fs.rmSync(dir, { recursive: true, force: true }); } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      try { if (Date.now() - fs.statSync(dir).mtimeMs > 60_000) { fs.rmSync(dir, { recursive: true, force: true }); continue; } } catch { continue; }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function buildLocked({ clean, quiet, root, dist, t0 }) {
  if (clean) for (const e of fs.readdirSync(dist)) if (e !== '.build-lock') fs.rmSync(path.join(dist, e), { recursive: true, force: true });
  // Again, under the lock: another process may have built meanwhile.
  const { files, stamp, stale, removed } = staleness(root);
  for (const rel of removed) for (const o of outputsOf(rel)) fs.rmSync(path.join(dist, o), { force: true });
  const ts = stale.filter((r) => r.endsWith('.ts'));
  if (ts.length) {
    const esbuild = await esbuildFor(`the compiled JavaScript in dist/ is older than ${ts.length} TypeScript file(s) (${ts[0]}...)`);
    let result;
    try {
      result = await esbuild.build({
        entryPoints: ts.map((r) => path.join(root, r)), outdir: dist, outbase: root, write: false, bundle: false,
        format: 'esm', platform: 'node', target: 'node20', sourcemap: 'linked', sourcesContent: false,
        tsconfigRaw: fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'), logLevel: 'silent',
        // esbuild reports an error's file relative to its working directory (the process's by default): the project's root
        // makes it the path under the project wherever the process runs from.
        absWorkingDir: root,
      });
    } catch (e) {
      const first = e.errors?.[0];
      throw new BuildError(first ? `${first.location ? `${first.location.file}:${first.location.line}:${first.location.column}: ` : ''}${first.text}${e.errors.length > 1 ? ` (and ${e.errors.length - 1} more)` : ''}` : e.message);
    }
    for (const f of result.outputFiles) writeAtomic(f.path, f.contents);
    await bundleThreads(esbuild, root, dist);
  }
  if (stale.includes(UNDICI_LOADER) || stale.includes(UNDICI_ENTRY)) await bundleUndici(await esbuildFor(`${UNDICI_BUNDLE} is older than ${UNDICI_LOADER} or ${UNDICI_ENTRY}`), root, dist);
  for (const rel of stale.filter((r) => !r.endsWith('.ts') && !isSchemaInput(r))) writeAtomic(path.join(dist, rel), fs.readFileSync(path.join(root, rel)));
  if ([...stale, ...removed].some((r) => isSchemaInput(r) || GENERATOR.includes(r)) && [...files.keys()].some(isSchemaInput)) await generateValidators(dist);
  if (stale.length || removed.length) writeAtomic(manifestFile(root), JSON.stringify({ stamp, files: Object.fromEntries(files) }));
  const ms = Math.round(performance.now() - t0);
  if (!quiet && (stale.length || removed.length)) console.error(`build: ${stale.length} file(s) compiled or copied to dist/, ${removed.length} removed (${ms} ms)`);
  return { compiled: ts.length, copied: stale.length - ts.length, removed: removed.length, ms };
}

/**
 * Writes dist/lib/undici-bundle.cjs: the parts of the installed undici package that lib/undici-entry.cjs requires, in one CommonJS
 * file, marked as the project's bundles are (commonJsBundle) so that the compile cache keeps it. minifyWhitespace: a third less
 * text for every process that loads it to read and hash (the compile cache keys entries by the text).
 */
async function bundleUndici(esbuild, root, dist) {
  const result = await commonJsBundle(esbuild, `bundling undici into ${UNDICI_BUNDLE}`, { entryPoints: [path.join(root, UNDICI_ENTRY)], absWorkingDir: root, write: false, platform: 'node', target: 'node20', minifyWhitespace: true, outfile: path.join(dist, UNDICI_BUNDLE) });
  writeAtomic(path.join(dist, UNDICI_BUNDLE), result.outputFiles[0].contents);
}

/** Writes dist/lib/schema-validators.cjs from the schemas, with the compiled generator (lib/schema-standalone.ts) of this same build. */
async function generateValidators(dist) {
  try {
    const { standaloneSource } = await import(pathToFileURL(path.join(dist, 'lib', 'schema-standalone.js')).href);
    writeAtomic(path.join(dist, STANDALONE), standaloneSource());
  } catch (e) {
    throw new BuildError(`generating the schemas' validators (${SCHEMA_INPUTS}, lib/schema-standalone.ts): ${e.message}`);
  }
}

/**
 * Writes dist/bundles/ (THREAD_BUNDLES) from the TypeScript sources. Each module keeps `import.meta.url` meaning its own compiled
 * file in dist/, as unbundled (ownImportMetaPlugin): the store finds schema.sql, the console its pages, the stack the thread entry.
 * CommonJS (commonJsBundle), not an ES module: Node 20 keeps no compiled code of an ES module, and the compile cache
 * (lib/compile-cache.cjs) keeps a marked CommonJS bundle's; a stack's two threads compiled their 6 MB on every start (about
 * 0.15 CPU-s; some 110 stacks start in `npm test`).
 */
async function bundleThreads(esbuild, root, dist) {
  const entries = THREAD_BUNDLES.filter((e) => fs.existsSync(path.join(root, e)));
  // The ES-module bundles of former builds, no longer loaded.
  for (const e of THREAD_BUNDLES) for (const ext of ['.mjs', '.mjs.map']) fs.rmSync(path.join(dist, 'bundles', e.replace(/\.ts$/, ext)), { force: true });
  if (!entries.length) return;
  const ownImportMeta = ownImportMetaPlugin(esbuild, {
    tsconfigRaw: fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'),
    fileOf: (source) => path.join(dist, path.relative(root, source)).replace(/\.ts$/, '.js'),
    sourcemap: true,
  });
  const result = await commonJsBundle(esbuild, `bundling ${entries.join(', ')}`, {
    entryPoints: entries.map((e) => path.join(root, e)), outdir: path.join(dist, 'bundles'), outbase: root, outExtension: { '.js': '.cjs' },
    write: false, platform: 'node', target: 'node20', external: ['better-sqlite3'], sourcemap: 'linked', sourcesContent: false,
    plugins: [ownImportMeta], absWorkingDir: root,
  });
  for (const f of result.outputFiles) writeAtomic(f.path, f.contents);
}

/**
 * esbuild's bundle of `options` in CommonJS, marked (lib/bundle-mark.cjs) so that the compile cache keeps its compiled code, which
 * it can only for code that never calls import() (Node 20): an import() left in it (of a module outside the bundle; those of
 * bundled modules become require()) fails with a BuildError, as does any error of esbuild (`what` says what was being bundled).
 */
export async function commonJsBundle(esbuild, what, options) {
  let result;
  try {
    result = await esbuild.build({ ...options, bundle: true, format: 'cjs', banner: { js: BUNDLE_MARK }, metafile: true, logLevel: 'silent' });
  } catch (e) {
    const first = e.errors?.[0];
    throw new BuildError(`${what}: ${first ? `${first.location ? `${first.location.file}:${first.location.line}: ` : ''}${first.text}` : e.message}`);
  }
  for (const [out, { imports }] of Object.entries(result.metafile.outputs)) {
    const dynamic = imports.filter((i) => i.kind === 'dynamic-import');
    if (dynamic.length) throw new BuildError(`${what}: ${path.basename(out)} would import() ${dynamic.map((i) => i.path).join(', ')} at run time (left out of the bundle); code the compile cache serves cannot on Node 20: bundle the module or require() it`);
  }
  return result;
}

/**
 * An esbuild plugin for bundles of this project's modules: each module keeps `import.meta.url` (and .filename, .dirname) meaning
 * `fileOf(its source)` (its compiled file in dist/, or the source itself), not the bundle, since the code finds files beside
 * itself from it. esbuild's define replaces those expressions (not comments or strings); any other use of `import.meta` (`resolve`,
 * the object itself) would silently mean the bundle, so esbuild reports it and the build fails. `sourcemap`: each module carries
 * its map to the source, so the bundle's map names the .ts files. Packages (node_modules) load as they are.
 */
export function ownImportMetaPlugin(esbuild, { tsconfigRaw, fileOf, sourcemap = false }) {
  return {
    name: 'own-import-meta',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        if (args.path.split(path.sep).includes('node_modules')) return undefined;
        const file = fileOf(args.path);
        try {
          const { code, map } = await esbuild.transform(await fs.promises.readFile(args.path, 'utf8'), {
            loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js', format: 'esm', target: 'node20', sourcefile: args.path, tsconfigRaw,
            ...(sourcemap ? { sourcemap: 'external' } : {}),
            define: { 'import.meta.url': JSON.stringify(pathToFileURL(file).href), 'import.meta.filename': JSON.stringify(file), 'import.meta.dirname': JSON.stringify(path.dirname(file)) },
            supported: { 'import-meta': false }, logOverride: { 'empty-import-meta': 'error' },
          });
          return { contents: sourcemap ? `${code}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(map).toString('base64')}` : code, loader: 'js', resolveDir: path.dirname(args.path) };
        } catch (e) {
          if (!e.errors) throw e;
          return { errors: e.errors.map((m) => ({ ...m, text: `${m.text} (a bundle keeps only import.meta.url, .filename and .dirname, as the module's own file's)` })) };
        }
      });
    },
  };
}

/** A build that cannot proceed: one line saying why and what to run. */
export class BuildError extends Error {}

/** For bin/ces.js and the test runner: quietly up to date, or one line on stderr and exit 2. */
export async function ensureBuilt() {
  try { return await build({ quiet: true }); } catch (e) {
    if (!(e instanceof BuildError)) throw e;
    console.error(`ces: cannot build dist/ from the TypeScript sources: ${e.message}`);
    process.exit(2);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => !['--clean', '--quiet'].includes(a));
  if (unknown.length) { console.error(`build: unknown option(s) ${unknown.join(' ')}; accepted: --clean (rebuild everything), --quiet`); process.exit(2); }
  try {
    const r = await build({ clean: args.includes('--clean'), quiet: true });
    if (!args.includes('--quiet')) console.error(`build: dist/ up to date (${r.compiled} compiled, ${r.copied} copied, ${r.removed} removed, ${r.ms} ms)`);
  } catch (e) {
    if (!(e instanceof BuildError)) throw e;
    console.error(`build: ${e.message}`);
    process.exit(2);
  }
}
