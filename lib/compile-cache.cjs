// Keeps V8's compiled code of the CommonJS packages the harness loads (Playwright, Fastify, ajv...) and the large modules the project writes (schema validators, its bundles: undici in one file, the stacks' threads) on disk, so the next process starts without compiling them again.
// Loaded first by bin/ces.js, by the threads of embedded services (lib/thread-entry.ts) and, through NODE_OPTIONS, by every Node
// process a run starts (Playwright's runner and workers). Node 22 has this built in (module.enableCompileCache), used when present;
// Node 20 does not, so here each module of node_modules is compiled as Node would (Module.wrap, its own require) from a vm.Script
// given the cached data, which is written when the process exits (then holding the functions it compiled lazily too).
// Why: a Playwright worker spends about a third of its start compiling Playwright's bundles (7 MB), and a run starts tens of them.
'use strict';
const Module = require('node:module');
const vm = require('node:vm');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { BUNDLE_MARK } = require('./bundle-mark.cjs');

const INSTALLED = Symbol.for('ces.compileCache');
/** CES_COMPILE_CACHE names the folder; `off` turns the cache off. */
const setting = process.env.CES_COMPILE_CACHE;
const dir = setting && setting !== 'off' ? path.resolve(setting) : path.join(os.tmpdir(), `ces-compile-cache-${typeof process.getuid === 'function' ? process.getuid() : 'user'}`);

/** Installs the cache in this thread; answers the function that writes what it compiled since (nothing to write: a no-op). */
function install() {
  const none = () => {};
  if (setting === 'off' || globalThis[INSTALLED]) return globalThis[INSTALLED] ?? none;
  globalThis[INSTALLED] = none;
  if (typeof Module.enableCompileCache === 'function') { Module.enableCompileCache(dir); return none; }
  if (!vm.constants || !vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER) return none;
  try { fs.mkdirSync(dir, { recursive: true }); } catch { return none; }
  const nodeModules = `${path.sep}node_modules${path.sep}`;
  /** The project's large CommonJS module its build generates, not a bundle: every schema's validator (lib/schema-standalone.ts). */
  const generated = /[\\/]lib[\\/]schema-validators\.cjs$/;
  /**
   * On Node 20, an import() in code compiled with cached data fails (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING): a module whose text
   * has one is compiled as usual, but Playwright's two largest bundles, whose import()s load parts the harness never uses (vite
   * for component tests, kerberos for proxy authentication, node:crypto on Node 18), and the project's own bundles (BUNDLE_MARK:
   * their packages' comments mention import(), and their writer fails a bundle that would still call it).
   */
  const importsUnused = /[\\/]playwright-core[\\/]lib[\\/](coreBundle|utilsBundle)\.js$/;
  /** Smaller modules compile (lazily) in less time than reading and checking their cache entry takes. */
  const SMALL = 32 * 1024;
  const compile = Module.prototype._compile;
  const fresh = [];
  Module.prototype._compile = function (content, filename, format) {
    // `format` 'module': an ES module required from CommonJS (Node 20.19+ compiles it as such).
    const commonJs = format === undefined || format === 'commonjs';
    const bundle = content.startsWith(BUNDLE_MARK);
    if (!commonJs || content.length < SMALL || !(filename.includes(nodeModules) || generated.test(filename) || bundle) || (content.includes('import(') && !importsUnused.test(filename) && !bundle)) return compile.apply(this, arguments);
    // Keyed by the text, not the path: a package installed elsewhere (the package test's installation, a clone at another depth)
    // reuses what the checkout compiled (V8 checks its cached data against the source and its own version, never the path).
    const file = path.join(dir, crypto.createHash('sha1').update(`${process.version}\0`).update(content).digest('hex'));
    let cachedData;
    try { cachedData = fs.readFileSync(file); } catch { /* not cached yet */ }
    // A shebang line is a comment once the module is wrapped.
    const source = Module.wrap(content.startsWith('#!') ? `//${content}` : content);
    const script = new vm.Script(source, { filename, cachedData, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
    if (!cachedData || script.cachedDataRejected) { fresh.push([script, file]); later(); }
    const mod = this;
    const require = (id) => mod.require(id);
    require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
    require.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
    require.main = process.mainModule;
    require.extensions = Module._extensions;
    require.cache = Module._cache;
    return script.runInThisContext({ displayErrors: true }).call(mod.exports, mod.exports, require, mod, filename, path.dirname(filename));
  };
  const flush = () => {
    for (const [script, file] of fresh.splice(0)) {
      // Whole or absent: another process may be reading or writing the same entry.
      const tmp = `${file}.${process.pid}.tmp`;
      try { fs.writeFileSync(tmp, script.createCachedData()); fs.renameSync(tmp, file); } catch { try { fs.rmSync(tmp, { force: true }); } catch { /* nothing to clean */ } }
    }
  };
  // Written a few seconds after loading (the functions a start-up runs are compiled by then), or at exit if that comes first: a
  // thread ended by terminate() runs no exit handler.
  let timer;
  const later = () => { if (!timer) { timer = setTimeout(() => { timer = undefined; flush(); }, 5_000); timer.unref(); } };
  process.once('exit', flush);
  globalThis[INSTALLED] = flush;
  return flush;
}

/**
 * `flushCompileCache()` writes now what the thread compiled that the cache lacks (a thread ended by terminate() runs no exit
 * handler, and a short-lived one may end before the write a few seconds after loading).
 */
module.exports = { compileCacheDir: dir, flushCompileCache: install() };
