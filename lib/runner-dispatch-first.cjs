// Playwright's runner dispatches the files the configuration names first (its metadata `dispatchFirst`) before the others: `ces` starts the runner with this module required (lib/paths.ts RUNNER_HOOKS; its workers inherit the option and load it too, where it changes nothing).
//
// Why: the runner queues a phase's test groups project by project, a project's files in name order, and a worker process serves
// one project only (a lane moving to another project starts a new one, about 0.9 CPU-s). The webhook retry checks (20 to 50 s of
// real-time waiting each) must start first, and their folder, webhooks/, comes last by name: they had a project of their own, and
// every lane started a second worker when it moved on (6 in a conformance run, 12 in the self-test). With this hook they are one
// project with the rest, dispatched first.
//
// How: the runner's module is compiled with one line added before the phase's groups are run (where `--shuffle` would reorder
// them): a stable sort putting the groups of the named files first, in the order named (suites/playwright.config.ts). Without the
// hook (Playwright run by hand on the same configuration) the order is Playwright's: slower, never wrong.
// test/runner-dispatch-first.test.ts fails when a Playwright version queues the groups otherwise (then this module does nothing).
'use strict';
const Module = require('node:module');
const path = require('node:path');

const RUNNER = path.join('playwright', 'lib', 'runner', 'index.js');
/** The configuration's metadata entry: files relative to its rootDir (the test folder), dispatched first, in this order. */
const KEY = 'dispatchFirst';
/** Where the runner queues a phase's groups: the line before which the order is set. */
const ANCHOR = '        if (testRun.config.configCLIOverrides.shuffle)\n          shuffleTestGroups(phaseTestGroups, testRun.config.configCLIOverrides.shuffle);';

/** Sorts `groups` (Playwright's test groups: each has its `requireFile`) in place: the files `config.metadata.dispatchFirst` names first, in its order; the rest keep theirs. */
function dispatchFirst(groups, config) {
  const first = config && config.metadata && config.metadata[KEY];
  if (!Array.isArray(first) || !first.length || typeof config.rootDir !== 'string') return;
  const rank = new Map(first.map((file, i) => [path.resolve(config.rootDir, file), i]));
  const keyed = groups.map((group, i) => [rank.get(group.requireFile) ?? first.length, i, group]);
  keyed.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  keyed.forEach(([, , group], i) => { groups[i] = group; });
}

/** Installs the hook; answers whether the runner was compiled with the line added (for the tests). */
function install() {
  const compile = Module.prototype._compile;
  let added = false;
  Module.prototype._compile = function compileRunner(content, filename) {
    if (typeof filename !== 'string' || !filename.endsWith(RUNNER) || typeof content !== 'string' || content.split(ANCHOR).length !== 2) return compile.apply(this, arguments);
    const args = [...arguments];
    args[0] = content.replace(ANCHOR, `        require(${JSON.stringify(__filename)}).dispatchFirst(phaseTestGroups, testRun.config.config);\n${ANCHOR}`);
    added = true;
    return compile.apply(this, args);
  };
  return () => added;
}

module.exports = { KEY, dispatchFirst, added: install() };
