// The shape of the service (issue 15 item 3): no import circle, no module-level mutable state, every surface one folder registered in app.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';

const SERVICE_DIRS = ['reference-impl', 'fake-connector', 'webhook-sink'];
const tsFiles = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
  const full = path.join(dir, e.name);
  return e.isDirectory() ? (e.name === 'public' || e.name === 'node_modules' ? [] : tsFiles(full)) : e.name.endsWith('.ts') ? [full] : [];
});

/** Value imports (type-only imports are erased and cannot form a circle at run time) of a file, resolved to files. */
function imports(file: string): string[] {
  const src = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of src.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/gm)) {
    if (m[1]) continue;
    out.push(path.resolve(path.dirname(file), m[2]!.replace(/\.js$/, '.ts')));
  }
  return out.filter((f) => fs.existsSync(f));
}

test('no import circle among the service, the fakes and lib/', () => {
  const files = [...SERVICE_DIRS, 'lib'].flatMap((d) => tsFiles(path.join(ROOT, d)));
  const graph = new Map(files.map((f) => [f, imports(f)]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (f: string) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') { cycles.push([...stack.slice(stack.indexOf(f)), f].map((x) => path.relative(ROOT, x)).join(' → ')); return; }
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) visit(g);
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) visit(f);
  assert.deepEqual(cycles, []);
});

test('no module-level mutable state in the service and the fakes (state lives in per-stack services)', () => {
  const offenders: string[] = [];
  for (const file of SERVICE_DIRS.flatMap((d) => tsFiles(path.join(ROOT, d)))) {
    fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      // A top-level `let`/`var`, or a top-level collection that is filled later (Map, Set, WeakMap, array, emitter).
      if (/^(export\s+)?const\s+\w+\s*:\s*Readonly(Map|Set)</.test(line)) return; // typed read-only: built once, never changed
      if (/^(export\s+)?(let|var)\s/.test(line) || /^(export\s+)?const\s+\w+(\s*:[^=]+)?=\s*(new\s+(Map|Set|WeakMap|WeakSet|EventEmitter)\b|\[\s*\];)/.test(line)) {
        offenders.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      }
    });
  }
  assert.deepEqual(offenders, []);
});

test('every API surface is one folder, registered in app.ts', () => {
  const app = fs.readFileSync(path.join(ROOT, 'reference-impl/app.ts'), 'utf8');
  for (const surface of ['rest', 'auth', 'graphql', 'platform', 'sim', 'console']) {
    assert.ok(fs.existsSync(path.join(ROOT, 'reference-impl', surface, 'index.ts')), `reference-impl/${surface}/index.ts`);
    assert.match(app, new RegExp(`import \\w+ from './${surface}/index.js'`), `app.ts registers ${surface}`);
  }
  for (const service of ['bots', 'webhooks', 'store']) assert.ok(fs.existsSync(path.join(ROOT, 'reference-impl', service)), service);
  // Routes of a surface live in its folder: nobody else registers /sim or /platform paths.
  for (const file of tsFiles(path.join(ROOT, 'reference-impl'))) {
    const rel = path.relative(path.join(ROOT, 'reference-impl'), file);
    const src = fs.readFileSync(file, 'utf8');
    if (!rel.startsWith('sim/')) assert.doesNotMatch(src, /\.(get|post|put|delete|route)\b[^(]*\(\s*['"`]\/sim\b/, `${rel} registers a /sim route`);
    if (!rel.startsWith('platform/')) assert.doesNotMatch(src, /\.(get|post|put|delete|route)\b[^(]*\(\s*['"`]\/platform\b/, `${rel} registers a /platform route`);
  }
});

test('the README\'s layout table names every top-level folder and every folder of the service', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const tracked = fs.readdirSync(ROOT, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules').map((e) => e.name);
  const missing = tracked.filter((d) => !readme.includes(`| \`${d}/\``) && !readme.includes(`\`${d}/${'ces.js'}\``));
  assert.deepEqual(missing, [], 'top-level folders missing from the README table');
  const service = fs.readdirSync(path.join(ROOT, 'reference-impl'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  const unnamed = service.filter((d) => !readme.includes(`\`${d}/\``));
  assert.deepEqual(unnamed, [], 'reference-impl folders missing from the README');
});
