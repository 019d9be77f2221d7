// The build of dist/ (scripts/build.mjs): file by file, only what changed, outputs of deleted sources removed, errors as one line naming the file; source maps point at the TypeScript.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { CODE, ROOT, playwrightEnv } from '../lib/paths.js';

interface Build { build(o: { root: string; quiet: boolean; clean?: boolean }): Promise<{ compiled: number; copied: number; removed: number }>; staleness(root: string): { stale: string[]; removed: string[] }; BuildError: new (m: string) => Error }
const load = async () => (await import(path.join(ROOT, 'scripts', 'build.mjs'))) as Build;

/** A project of its own: tsconfig.json, two modules, a non-TypeScript file beside them. */
function project(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-build-test-'));
  fs.copyFileSync(path.join(ROOT, 'tsconfig.json'), path.join(root, 'tsconfig.json'));
  fs.mkdirSync(path.join(root, 'lib'));
  fs.writeFileSync(path.join(root, 'lib', 'a.ts'), "import { b } from './b.js';\nexport const a = (n: number): number => b(n) + 1;\n");
  fs.writeFileSync(path.join(root, 'lib', 'b.ts'), 'export function b(n: number): number {\n  if (n < 0) throw new Error(`negative: ${n}`);\n  return n * 2;\n}\n');
  fs.writeFileSync(path.join(root, 'lib', 'schema.sql'), 'CREATE TABLE t (x INTEGER);\n');
  fs.writeFileSync(path.join(root, 'lib', 'notes.md'), 'not copied\n');
  return root;
}
/** Runs the compiled `a(2)` of a built project (its answer, or the run's stderr to say why not). */
const aOf2 = (root: string) => spawnSync(process.execPath, ['--input-type=module', '-e', `import { a } from ${JSON.stringify(path.join(root, 'dist', 'lib', 'a.js'))}; console.log(a(2));`], { encoding: 'utf8' });
/** Moves a file's mtime forward, as an edit does (a rewrite within the same millisecond could keep it). */
const touch = (f: string, content?: string) => { if (content !== undefined) fs.writeFileSync(f, content); const t = new Date(Date.now() + 5_000); fs.utimesSync(f, t, t); };

test('a first build compiles every TypeScript file and copies the other files (not documentation); a second does nothing', async () => {
  const { build, staleness } = await load();
  const root = project();
  try {
    const first = await build({ root, quiet: true });
    assert.deepEqual([first.compiled, first.copied, first.removed], [2, 1, 0]);
    for (const f of ['lib/a.js', 'lib/a.js.map', 'lib/b.js', 'lib/schema.sql']) assert.ok(fs.existsSync(path.join(root, 'dist', f)), f);
    assert.ok(!fs.existsSync(path.join(root, 'dist', 'lib', 'notes.md')), 'documentation is not copied');
    assert.match(fs.readFileSync(path.join(root, 'dist', 'lib', 'a.js'), 'utf8'), /from "\.\/b\.js"[\s\S]*sourceMappingURL=a\.js\.map/);
    assert.deepEqual(staleness(root), { ...staleness(root), stale: [], removed: [] });
    const second = await build({ root, quiet: true });
    assert.deepEqual([second.compiled, second.copied, second.removed], [0, 0, 0]);
  } finally { fs.rmSync(root, { recursive: true, force: true }); }
});

test("undici's bundle (lib/undici-entry.cjs and what it requires) is written again when its entry changes, no TypeScript changed", async () => {
  const { build } = await load();
  const root = project();
  try {
    fs.writeFileSync(path.join(root, 'lib', 'undici.ts'), 'export const loader = 1;\n');
    fs.writeFileSync(path.join(root, 'lib', 'undici-entry.cjs'), 'module.exports = { entry: "first" };\n');
    await build({ root, quiet: true });
    const bundle = path.join(root, 'dist', 'lib', 'undici-bundle.cjs');
    assert.match(fs.readFileSync(bundle, 'utf8'), /entry: ?"first"/);
    touch(path.join(root, 'lib', 'undici-entry.cjs'), 'module.exports = { entry: "second" };\n');
    const again = await build({ root, quiet: true });
    assert.equal(again.compiled, 0, 'no TypeScript compiled');
    assert.match(fs.readFileSync(bundle, 'utf8'), /entry: ?"second"/);
  } finally { fs.rmSync(root, { recursive: true, force: true }); }
});

test('an edited file is recompiled alone; a deleted one loses its outputs; the compiled code runs the edit', async () => {
  const { build, staleness } = await load();
  const root = project();
  try {
    await build({ root, quiet: true });
    touch(path.join(root, 'lib', 'b.ts'), 'export function b(n: number): number {\n  return n * 3;\n}\n');
    assert.deepEqual(staleness(root).stale, ['lib/b.ts']);
    const r = await build({ root, quiet: true });
    assert.deepEqual([r.compiled, r.copied], [1, 0]);
    const run = aOf2(root);
    assert.equal(run.stdout.trim(), '7', run.stderr);
    fs.rmSync(path.join(root, 'lib', 'b.ts'));
    assert.deepEqual(staleness(root).removed, ['lib/b.ts']);
    assert.equal((await build({ root, quiet: true })).removed, 1);
    assert.ok(!fs.existsSync(path.join(root, 'dist', 'lib', 'b.js')) && !fs.existsSync(path.join(root, 'dist', 'lib', 'b.js.map')));
  } finally { fs.rmSync(root, { recursive: true, force: true }); }
});

test('a stack trace of the compiled code names the TypeScript file and line', async () => {
  const { build } = await load();
  const root = project();
  try {
    await build({ root, quiet: true });
    const run = spawnSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', `import { b } from ${JSON.stringify(path.join(root, 'dist', 'lib', 'b.js'))}; b(-1);`], { encoding: 'utf8' });
    assert.match(run.stderr, /negative: -1/);
    assert.match(run.stderr, new RegExp(`${path.join(root, 'lib', 'b.ts').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:`), run.stderr);
  } finally { fs.rmSync(root, { recursive: true, force: true }); }
});

test('a syntax error is one BuildError naming the file, line and column; the outputs of the last good build stay', async () => {
  const { build, BuildError } = await load();
  const root = project();
  try {
    await build({ root, quiet: true });
    const before = fs.readFileSync(path.join(root, 'dist', 'lib', 'a.js'), 'utf8');
    touch(path.join(root, 'lib', 'a.ts'), 'export const a = (n: number =>;\n');
    await assert.rejects(build({ root, quiet: true }), (e: Error) => e instanceof BuildError && /^lib\/a\.ts:1:\d+: /.test(e.message));
    // The same path under the project whatever the process's working directory and its depth (esbuild reports relative to the
    // one its service started in): the file-system root, a folder four levels below the project.
    const deep = path.join(root, 'w', 'x', 'y', 'z');
    fs.mkdirSync(deep, { recursive: true });
    for (const cwd of [path.parse(root).root, deep]) {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', `const { build } = await import(${JSON.stringify(path.join(ROOT, 'scripts', 'build.mjs'))}); await build({ root: ${JSON.stringify(root)}, quiet: true }).catch((e) => console.log(e.message));`], { cwd, encoding: 'utf8' });
      assert.match(r.stdout, /^lib\/a\.ts:1:\d+: /, `from ${cwd}: ${r.stdout}${r.stderr}`);
    }
    assert.equal(fs.readFileSync(path.join(root, 'dist', 'lib', 'a.js'), 'utf8'), before);
  } finally { fs.rmSync(root, { recursive: true, force: true }); }
});

test('the compiled suites (dist/suites) list the same checks as their TypeScript sources, in a plain run and in a self-test plan', { timeout: 180_000 }, async () => {
  const { build } = await load();
  await build({ root: ROOT, quiet: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-list-both-'));
  try {
    const target = path.join(dir, 'target.json');
    fs.writeFileSync(target, JSON.stringify({ base_url: 'https://127.0.0.1:1', rest_base_url: 'https://127.0.0.1:1/api/2', graphql_url: 'https://127.0.0.1:1/graphql', api_key: 'k', user: { username: 'u', password: 'p' }, capabilities: [] }));
    // A plan with each kind of project: the checks of a few clauses, every check of one suite (alternatives), a baseline.
    const plan = path.join(dir, 'plan.json');
    fs.writeFileSync(plan, JSON.stringify([
      { name: 'baseline', grep: '@(REST-PAGE-0[12]|WH-RETRY-01)\\b', deviations: [], baseline: true },
      { name: 'p1', grep: '@(REST-PAGE-01|WH-RETRY-01|CONSOLE-INS-01)\\b', deviations: [{ id: 'x', clauses: ['REST-PAGE-01', 'WH-RETRY-01', 'CONSOLE-INS-01'] }] },
      { name: 'alt', suites: ['auth'], deviations: [{ id: 'y', clauses: ['AUTH-TOKEN-01'] }], together: true },
    ]));
    // Each listed as `ces` runs it: the compiled suites without Playwright's ES module loader (playwrightEnv; 0.8 CPU-s of its
    // thread), both with the compile cache bin/ces.js gives every process of a run.
    const cache = `--require ${JSON.stringify(path.join(CODE, 'lib', 'compile-cache.cjs'))}`;
    const list = (config: string, env: Record<string, string> = {}) => {
      const how = { ...(config.endsWith('.js') ? playwrightEnv() : {}), NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${cache}`.trim() };
      const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--list', '--reporter=json', '-c', config], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CES_TARGET: target, CES_RUN_DIR: dir, ...how, ...env } });
      assert.equal(r.status, 0, r.stderr.slice(-2000));
      const out: string[] = [];
      const walk = (s: any) => { for (const sp of s.specs ?? []) for (const t of sp.tests ?? []) { out.push(`${t.projectName} ${sp.title}`); at.set(`${t.projectName} ${sp.title}`, `${sp.file}:${sp.line}:${sp.column}`); } for (const x of s.suites ?? []) walk(x); };
      for (const s of JSON.parse(r.stdout).suites ?? []) walk(s);
      return out.sort();
    };
    const at = new Map<string, string>();
    const runs: Array<Record<string, string>> = [{}, { CES_SELFTEST_PLAN: plan }];
    for (const env of runs) {
      const sources = list(path.join(ROOT, 'suites', 'playwright.config.ts'), env);
      at.clear();
      const compiled = list(path.join(ROOT, 'dist', 'suites', 'playwright.config.js'), env);
      assert.ok(sources.length > (env.CES_SELFTEST_PLAN ? 3 : 400), `checks listed from the sources: ${sources.length}`);
      assert.deepEqual(compiled, sources, env.CES_SELFTEST_PLAN ? 'self-test plan' : 'plain run');
      if (!env.CES_SELFTEST_PLAN) continue;
      // The planned projects' checks run as copies (lib/selftest-copies.ts) in one project, the retry checks with them (dispatched
      // first, lib/runner-dispatch-first.cjs), the browser checks in one of their own: each copy declared where its check is (the
      // spec's line, not the module that declares the copies); none elsewhere.
      const copies = compiled.filter((c) => c.endsWith(' ⟨p1⟩'));
      assert.ok(copies.length >= 3 && copies.every((c) => /^copies(-browser)? /.test(c)), copies.join('\n'));
      assert.ok(copies.some((c) => c.startsWith('copies ') && /webhooks[\\/]retry\.spec\.ts:/.test(at.get(c)!)), 'the retry checks with the other copies');
      assert.ok(copies.some((c) => c.startsWith('copies-browser ')), 'the browser checks apart (a project limited to two lanes)');
      assert.ok(compiled.every((c) => !/^copies(-browser)? /.test(c) || / ⟨(p1|alt)⟩$/.test(c)), 'only copies in the project of copies');
      assert.ok(compiled.some((c) => c.startsWith('copies ') && c.endsWith(' ⟨alt⟩')), "the alternatives' copies");
      for (const c of copies.filter((x) => x.startsWith('copies '))) {
        const original = compiled.find((o) => o.startsWith('baseline ') && o.slice('baseline '.length) === c.slice('copies '.length, -' ⟨p1⟩'.length));
        assert.ok(original, `the baseline lists the check of ${c}`);
        assert.equal(at.get(c), at.get(original), `${c}: declared where its check is`);
        assert.match(at.get(c)!, /suites[\\/](rest|webhooks)[\\/].*\.spec\.ts:\d+:\d+$/);
      }
    }
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});

test('builds started together (processes after an edit) take turns: each ends with dist/ up to date, no lock left behind', async () => {
  const { build, staleness } = await load();
  const root = project();
  try {
    await build({ root, quiet: true });
    touch(path.join(root, 'lib', 'b.ts'), 'export function b(n: number): number {\n  return n * 5;\n}\n');
    const code = `import { build } from ${JSON.stringify(path.join(ROOT, 'scripts', 'build.mjs'))}; const r = await build({ root: ${JSON.stringify(root)}, quiet: true }); console.log(r.compiled);`;
    const runs = await Promise.all(Array.from({ length: 4 }, () => new Promise<string>((resolve) => {
      const c = spawn(process.execPath, ['--input-type=module', '-e', code]);
      let out = '';
      c.stdout.on('data', (d) => (out += d));
      c.stderr.on('data', (d) => (out += d));
      c.on('exit', () => resolve(out.trim()));
    })));
    // One of them compiled the edited file; the others found it done once they had the lock (or before taking it).
    assert.deepEqual(runs.sort(), ['0', '0', '0', '1'], `compiled counts: ${runs.join(', ')}`);
    assert.deepEqual(staleness(root).stale, []);
    assert.ok(!fs.existsSync(path.join(root, 'dist', '.build-lock')), 'the lock is released');
    const run = aOf2(root);
    assert.equal(run.stdout.trim(), '11', run.stderr);
  } finally { fs.rmSync(root, { recursive: true, force: true }); }
});

test('every top-level folder of TypeScript sources is built and type-checked (a new folder left out of SOURCE_DIRS would be missing from dist/ and the package)', async () => {
  const { SOURCE_DIRS } = (await import(path.join(ROOT, 'scripts', 'build.mjs'))) as { SOURCE_DIRS: string[] };
  const notCode = new Set(['node_modules', 'dist', 'docs', 'fixtures', 'reports', 'bin', '.git', '.cache', '.ci']);
  const hasTs = (dir: string): boolean => fs.readdirSync(dir, { withFileTypes: true }).some((e) => (e.isDirectory() ? hasTs(path.join(dir, e.name)) : e.name.endsWith('.ts')));
  const folders = fs.readdirSync(ROOT, { withFileTypes: true }).filter((e) => e.isDirectory() && !notCode.has(e.name) && !e.name.startsWith('.') && hasTs(path.join(ROOT, e.name))).map((e) => e.name);
  assert.deepEqual(folders.filter((f) => !SOURCE_DIRS.includes(f)), [], 'folders of TypeScript that scripts/build.mjs does not build');
  // And type-checks: `tsc --noEmit -p .` reads tsconfig.json's "include" (a folder only imported from elsewhere would be checked
  // only in part).
  const include = (JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] }).include;
  assert.deepEqual(SOURCE_DIRS.filter((f) => !include.includes(f)), [], 'source folders tsconfig.json does not include');
});

test("the schemas' validators are generated into dist/lib/schema-validators.cjs, and again when a schema changes or the file is gone", async () => {
  const { build, staleness } = await load();
  const root = project();
  try {
    for (const f of ['schema-standalone.ts', 'schemas.ts', 'schema-formats.ts', 'iso8601.ts', 'paths.ts']) fs.copyFileSync(path.join(ROOT, 'lib', f), path.join(root, 'lib', f));
    fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules')), path.join(root, 'node_modules'), 'dir');
    const schema = path.join(root, 'fixtures', 'schemas', 't', 'one.json');
    fs.mkdirSync(path.dirname(schema), { recursive: true });
    const write = (required: string) => touch(schema, JSON.stringify({ $id: 't/one.json', type: 'object', required: [required], properties: { a: { type: 'string', format: 'rest-date' } }, $defs: { n: { type: 'number' } } }));
    write('a');
    await build({ root, quiet: true });
    const generated = path.join(root, 'dist', 'lib', 'schema-validators.cjs');
    assert.ok(fs.existsSync(generated), 'generated');
    assert.ok(!fs.existsSync(path.join(root, 'dist', 'fixtures')), 'the schemas themselves are not copied to dist/');
    /** Each value's verdict by the generated validators (their file read again each time), and whether they were generated. */
    const verdicts = (values: unknown[]) => {
      const r = spawnSync(process.execPath, ['-e', `const v = require(${JSON.stringify(generated)})(${'{ "rest-date": /^\\\\d{4}-\\\\d{2}-\\\\d{2} \\\\d{2}:\\\\d{2}:\\\\d{2}$/ }'});
        console.log(JSON.stringify({ ids: Object.keys(v), one: ${JSON.stringify(values)}.map((x) => v['t/one.json'](x)), n: [v['t/one.json#/$defs/n'](1), v['t/one.json#/$defs/n']('1')] }));`], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    assert.deepEqual(verdicts([{ a: '2026-11-28 10:00:00' }, { a: '2026-11-28T10:00:00Z' }, {}]), { ids: ['t/one.json', 't/one.json#/$defs/n'], one: [true, false, false], n: [true, false] });
    write('b');
    assert.deepEqual(staleness(root).stale, [path.join('fixtures', 'schemas', 't', 'one.json')]);
    await build({ root, quiet: true });
    assert.deepEqual(verdicts([{ a: '2026-11-28 10:00:00' }, { b: 1 }]).one, [false, true], 'the edited schema is the one generated');
    fs.rmSync(generated);
    assert.ok(staleness(root).stale.length, 'a missing file is stale');
    await build({ root, quiet: true });
    assert.ok(fs.existsSync(generated), 'generated again');
  } finally { fs.rmSync(root, { recursive: true, force: true }); }
});
