// Playwright's runner makes each error's code snippet once per place: `ces` starts the runner with this module required (lib/paths.ts RUNNER_HOOKS; its workers inherit the option and load it too, where it changes nothing).
//
// Why: the runner adds to the error of a failed check, and to the error of each of its steps, a snippet of the spec file
// (codeFrame), syntax-highlighting the whole file each time (3 to 7 ms for a spec file of 300 lines). A self-test's checks fail by
// design, hundreds of them, and a check's error and its steps' errors point at the same place: in a CPU profile of a self-test's
// runner, half of its time was this highlighting. The same arguments give the same text, so the text is kept by its arguments
// (the reports read exactly what Playwright would have written). Colours on only: in an environment that turns them off (CI=true
// on an unknown CI system, NO_COLOR) Playwright highlights nothing and this saves nothing.
//
// How: the runner takes codeFrame once, as it loads (`var { codeFrame } = require("playwright-core/lib/coreBundle").iso`); its
// exports are getters that cannot be redefined, so the runner alone is given a view of that module whose codeFrame is kept.
// test/runner-snippets.test.ts fails when a Playwright version takes it otherwise (then this module does nothing).
'use strict';
const Module = require('node:module');
const path = require('node:path');

/** The module of Playwright's runner that makes the snippets, and what it requires to get codeFrame. */
const RUNNER = path.join('playwright', 'lib', 'runner', 'index.js');
const CORE = 'playwright-core/lib/coreBundle';
/** Places kept; more is a run of unusual variety, and the oldest half is let go (each entry holds its file's text once). */
const KEPT_MAX = 400;

/** codeFrame with its texts kept by arguments: the file's text, the place, the options that shape the text, the colours object. */
function kept(codeFrame) {
  // Per colours object (the runner passes one; its colours may be on or off), then by the rest of the arguments.
  const byColors = new WeakMap();
  const none = {};
  return function keptCodeFrame(source, location, options = {}) {
    const colors = options.colors ?? none;
    let texts = byColors.get(colors);
    if (!texts) byColors.set(colors, (texts = new Map()));
    const key = `${location.line}:${location.column}:${options.linesAbove}:${options.linesBelow}:${options.message}:${colors.enabled}\u0000${source}`;
    let text = texts.get(key);
    if (text === undefined) {
      text = codeFrame(source, location, options);
      if (texts.size >= KEPT_MAX) for (const k of [...texts.keys()].slice(0, KEPT_MAX / 2)) texts.delete(k);
      texts.set(key, text);
    }
    return text;
  };
}

/** Installs the hook; answers whether the runner was given the view (for the tests: a Playwright that takes codeFrame otherwise never asks). */
function install() {
  const load = Module._load;
  let view;
  let given = false;
  Module._load = function loadForRunner(request, parent) {
    const exports = load.apply(this, arguments);
    if (request !== CORE || !parent || typeof parent.filename !== 'string' || !parent.filename.endsWith(RUNNER)) return exports;
    if (!exports.iso || typeof exports.iso.codeFrame !== 'function') return exports;
    view ??= Object.create(exports, { iso: { value: Object.create(exports.iso, { codeFrame: { value: kept(exports.iso.codeFrame) } }) } });
    given = true;
    return view;
  };
  return () => given;
}

module.exports = { kept, given: install() };
