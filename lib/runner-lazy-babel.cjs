// Playwright's runner loads babel (2.8 MB) only when it uses it: `ces` starts the runner with this module required (lib/paths.ts RUNNER_HOOKS, for cli/run.ts and lib/list-checks.ts; its workers inherit the option and load it too, where it changes nothing).
//
// Why: the runner's rebase module (it rewrites a spec file's aria snapshots when asked to, `--update-snapshots`) requires
// Playwright's babel bundle as it loads and takes `babel.types` at once; a run of `ces` never rebases, and the bundle is about a
// tenth of a runner's CPU (0.1 s, in each of the 60 to 90 runners of `npm test`). The harness's suites are compiled JavaScript
// that Playwright does not transpile (suites/playwright.config.ts `build.external`); under tsx, its transform loads babel
// itself, from its own module, when a file needs it.
//
// How: the runner alone is given, for that request, a view of the bundle whose exports load it when first read; `types`, read at
// once, is a view of its own. The names come from the annotation esbuild writes at the bundle's end for Node's CommonJS lexer
// (`0 && (module.exports = { ... })`), read from its last bytes; without it the runner gets the bundle itself.
// test/runner-lazy-babel.test.ts fails when a Playwright version loads it otherwise.
'use strict';
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');

const RUNNER = path.join('playwright', 'lib', 'runner', 'index.js');
const BABEL = '../transform/babelBundle';
/** The end of the bundle read for its export names. */
const TAIL = 4096;

/** The export names of the CommonJS file `file`, from esbuild's annotation at its end; undefined without one. */
function exportNames(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(TAIL, size));
    fs.readSync(fd, buf, 0, buf.length, size - buf.length);
    const m = /0 && \(module\.exports = \{([^}]*)\}\);\s*$/.exec(buf.toString('utf8'));
    if (!m) return undefined;
    const names = m[1].split(',').map((s) => s.trim()).filter(Boolean);
    return names.every((n) => /^[A-Za-z_$][\w$]*$/.test(n)) ? names : undefined;
  } catch { return undefined; } finally { if (fd !== undefined) fs.closeSync(fd); }
}

/** An object that stands for `real()`'s value: every operation on it is done on that value, got at the first. */
function deferred(real) {
  return new Proxy(Object.create(null), {
    get: (_t, k) => Reflect.get(real(), k),
    has: (_t, k) => Reflect.has(real(), k),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_t, k) => { const d = Reflect.getOwnPropertyDescriptor(real(), k); return d && { ...d, configurable: true }; },
  });
}

/** Installs the hook; answers whether the runner was given the view (for the tests). */
function install() {
  const load = Module._load;
  let given = false;
  Module._load = function loadLazily(request, parent, isMain) {
    if (request !== BABEL || !parent || typeof parent.filename !== 'string' || !parent.filename.endsWith(RUNNER)) return load.apply(this, arguments);
    const file = Module._resolveFilename(request, parent, isMain);
    const names = exportNames(file);
    if (!names) return load.apply(this, arguments);
    let exports;
    const real = () => (exports ??= load.call(Module, request, parent, isMain));
    const types = deferred(() => real().types);
    const view = {};
    Object.defineProperty(view, '__esModule', { value: true });
    for (const n of names) Object.defineProperty(view, n, { enumerable: true, get: n === 'types' ? () => types : () => real()[n] });
    given = true;
    return view;
  };
  return () => given;
}

module.exports = { exportNames, given: install() };
