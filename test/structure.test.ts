// The shape of the code: no import circle in any source folder (type imports and import() type references included), no module-level state but the listed caches, deviations at few places, policy files of values only, every surface one folder registered in app.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';
import { decisionPoints, byFile, forkMembers, LIMIT } from '../scripts/decision-points.js';
import { buildPolicies } from '../reference-impl/policies.js';

const SERVICE_DIRS = ['reference-impl', 'fake-connector', 'webhook-sink'];
/** Every folder of TypeScript sources (scripts/build.mjs SOURCE_DIRS: what is compiled to dist/), transcripts/ and the tests included. */
const { SOURCE_DIRS } = (await import(path.join(ROOT, 'scripts', 'build.mjs'))) as { SOURCE_DIRS: string[] };
const tsFiles = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
  const full = path.join(dir, e.name);
  return e.isDirectory() ? (e.name === 'public' || e.name === 'node_modules' ? [] : tsFiles(full)) : e.name.endsWith('.ts') ? [full] : [];
});

/** Every relative import of a file, type-only imports included (a circle of types is still a circle of modules), resolved to files. */
function imports(file: string): string[] {
  const src = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of src.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/gm)) {
    out.push(path.resolve(path.dirname(file), m[1]!.replace(/\.js$/, '.ts')));
  }
  // `import('./x.js').T` in a type, and import() of a module at run time: a dependency all the same.
  for (const m of src.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)) out.push(path.resolve(path.dirname(file), m[1]!.replace(/\.js$/, '.ts')));
  return out.filter((f) => fs.existsSync(f));
}

/**
 * Lines of a module that hold state at module level: a top-level `let` or `var` (with a value or without: `let x;`), or a top-level `const` that starts empty and is filled
 * later (`new Map()`, `new Set()`, `new WeakMap()`, `new WeakSet()`, `new Array()`, `[]`, `{}`) or an emitter (`new EventEmitter()`),
 * exported or not, typed or not. A table built once with its contents (`new Set(['a'])`), or a `const` typed Readonly… (`ReadonlyMap`,
 * `ReadonlySet`, `Readonly<…>`), is not state.
 */
export function moduleStateLines(src: string): string[] {
  const out: string[] = [];
  for (const line of src.split('\n')) {
    if (/^(?:export\s+)?(?:let|var)\s+\w+\s*(?::[^=;]+)?;/.test(line)) { out.push(line.trim()); continue; }
    const m = /^(?:export\s+)?(let|var|const)\s+\w+\s*(?::\s*([^=]+?))?\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    const [, kind, type, value] = m;
    if (kind !== 'const') { out.push(line.trim()); continue; }
    if (type && /^Readonly/.test(type.trim())) continue;
    if (/^new\s+(Map|Set|WeakMap|WeakSet|Array)\s*(<[^>]*>)?\(\s*\)/.test(value!) || /^new\s+EventEmitter\b/.test(value!) || /^\[\s*\](\s*(as\s+[^;]+)?)?;?\s*$/.test(value!) || /^\{\s*\}(\s*(as\s+[^;]+)?)?;?\s*$/.test(value!)) out.push(line.trim());
  }
  return out;
}

test('import() type references count as imports', () => {
  const dir = fs.mkdtempSync(path.join(ROOT, 'dist', '.structure-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.ts'), "export function f(x: import('./b.js').B): void { void x; }\n");
    fs.writeFileSync(path.join(dir, 'b.ts'), 'export interface B { n: number }\n');
    assert.deepEqual(imports(path.join(dir, 'a.ts')), [path.join(dir, 'b.ts')]);
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});

test('no import circle in any source folder (transcripts/, the suites, the scripts and the tests included)', () => {
  const files = SOURCE_DIRS.filter((d) => fs.existsSync(path.join(ROOT, d))).flatMap((d) => tsFiles(path.join(ROOT, d)));
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

test('the module-state check catches each form of module-level state, and leaves constants alone', () => {
  for (const bad of ['const cache = new Map();', 'const list = [];', 'export const E = new EventEmitter();', 'const seen: Set<string> = new Set();', 'const m = new Map<string, number>();',
    'let counter = 0;', 'export let current: string | undefined;'.replace(';', ' = undefined;'), 'var x = 1;', 'let x;', 'let cache: Map<string, number> | undefined;', 'export let y: string;', 'const byId = {};', 'const q: number[] = [];']) {
    assert.deepEqual(moduleStateLines(bad), [bad], `caught: ${bad}`);
  }
  for (const fine of ['const LIMIT = 10;', "export const NAMES = ['a', 'b'] as const;", 'const KEPT: ReadonlySet<string> = new Set([\'a\']);',
    "const TABLE: Readonly<Record<string, number>> = Object.freeze({ a: 1 });", '  const local = new Map();', 'export function f() {}', "const NAMES = new Set(['a', 'b']);"]) {
    assert.deepEqual(moduleStateLines(fine), [], `left alone: ${fine}`);
  }
});

/**
 * The module-level state kept outside the service, each with why it is not state a run could share by mistake: per-process caches
 * of what never changes while a process lives (files read once, validators compiled once, pools of connections and TLS contexts by
 * their settings), the secrets registry every writer masks against, and per-worker bookkeeping of the Playwright suites (one
 * worker is one process). A new entry needs a reason as good; the service and the fakes have none (their state lives in per-stack
 * services).
 */
const KEPT_STATE: Readonly<Record<string, string>> = {
  'check/settings.ts: let connectorCache: ConnectorCheckSettings | undefined;': 'the checker\'s settings, read once per process from its environment',
  'check/settings.ts: let receiverCache: ReceiverCheckSettings | undefined;': 'the checker\'s settings, read once per process from its environment',
  'lib/catalogue.ts: let clauses: Clause[] | undefined;': 'fixtures/clauses read once per process',
  'lib/catalogue.ts: let deviations: Deviation[] | undefined;': 'fixtures/deviations read once per process',
  'lib/http.ts: const agents = new Map<string, Agent>();': 'connection pools by their TLS settings, shared by the process\'s clients as undici intends',
  'lib/mask.ts: const secrets = new Set<string>();': 'the secrets every report writer of the process masks: one registry, or a writer would miss one',
  'lib/outbound.ts: const contexts = new Map<string, tls.SecureContext>();': 'TLS contexts by their CA files, built once per process',
  'lib/schemas.ts: let ajv: Ajv2020 | undefined;': 'the schemas compiled once per process',
  'lib/schemas.ts: let generated: Record<string, ValidateFunction> | null | undefined;': 'the validators generated at build time, loaded once per process',
  'lib/schemas.ts: const compiled = new Map<string, ValidateFunction>();': 'validators by schema id, compiled once per process',
  'suites/auth/support.ts: let workerAddress: ReturnType<typeof ownAddress> | undefined;': 'the Playwright worker\'s own source address (one worker, one process)',
  'suites/auth/support.ts: let nextUser = 0;': 'the next throw-away user of this Playwright worker',
  'suites/clock-lock.ts: const holding = new Map<string, { mode: ClockLockMode; depth: number }>();': 'the clock locks this worker holds, so a nested hold does not wait on itself',
  'suites/fixtures/current-target.ts: const read = new Map<string, Target>();': 'target files read once per worker',
  'suites/fixtures/target.ts: let preflightTokens: SessionToken[] | undefined;': 'the pre-flight\'s tokens, read once per worker (the login throttle is not spent again)',
  'suites/verdicts.ts: const startedAt = new WeakMap<TestInfo, number>();': 'when each check of this worker started, weakly keyed by the check',
  'suites/verdicts.ts: const namedOf = new WeakMap<TestInfo, string[]>();': 'the clauses each check of this worker names, weakly keyed by the check',
  'suites/verdicts.ts: const claimedErrors = new WeakSet<object>();': 'the assertion errors an under() already judged, so the check\'s own clause does not judge them again (weak: gone with the error)',
  'suites/verdicts.ts: const openUnders = new WeakMap<TestInfo, string[]>();': 'the under() calls still open in each check of this worker (a time-out fails the innermost), weakly keyed by the check',
};

test('no module-level mutable state in any source folder but the kept caches listed with their reason (the tests\' own hooks aside)', () => {
  const offenders: string[] = [];
  const seen = new Set<string>();
  for (const file of SOURCE_DIRS.filter((d) => d !== 'test' && fs.existsSync(path.join(ROOT, d))).flatMap((d) => tsFiles(path.join(ROOT, d)))) {
    for (const line of moduleStateLines(fs.readFileSync(file, 'utf8'))) {
      const key = `${path.relative(ROOT, file)}: ${line}`;
      if (KEPT_STATE[key] && !SERVICE_DIRS.some((d) => key.startsWith(`${d}/`))) seen.add(key); else offenders.push(key);
    }
  }
  assert.deepEqual(offenders, [], 'module-level state: move it into a per-stack service or an object passed along (or list a per-process cache in KEPT_STATE with its reason)');
  assert.deepEqual(Object.keys(KEPT_STATE).filter((k) => !seen.has(k)), [], 'KEPT_STATE lists state that is gone: remove the entry');
});

test('deviations act at few places: at most 60 decision points in at most 15 files (scripts/decision-points.ts), whatever the number of deviations', () => {
  const dps = decisionPoints();
  const files = byFile(dps);
  assert.ok(dps.length <= LIMIT.points, `${dps.length} decision points (at most ${LIMIT.points}):\n${dps.map((d) => `${d.file}:${d.line} ${d.why}`).join('\n')}`);
  assert.ok(files.length <= LIMIT.files, `decision points in ${files.length} files (at most ${LIMIT.files}): ${files.map(([f]) => f).join(', ')}`);
});

test('docs/ARCHITECTURE.md states the count of decision points as the script counts it', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const dps = decisionPoints();
  assert.match(doc, new RegExp(`\\*\\*${dps.length} decision points in ${byFile(dps).length} files\\*\\*`), 'update "Where deviations act" in docs/ARCHITECTURE.md (node --import tsx scripts/decision-points.ts)');
});

test('the counting rule counts what it says: a flag read, a function member, an edit applied, the deviations read', () => {
  const { flags } = forkMembers();
  for (const f of ['passwordChecked', 'lastPageRepeated', 'secretsKept', 'finalFailureClasses', 'unpromptedGreeting', 'deliveriesInFlightMax']) assert.ok(flags.includes(f), `${f} is a flag`);
  for (const v of ['pageMax', 'retryDelaysMs', 'periodWindows', 'botTextMax', 'closedChannels']) assert.ok(!flags.includes(v), `${v} is a named value`);
  const why = new Set(decisionPoints().map((d) => d.why));
  for (const w of ['flag read', 'page flag read', 'edit applied at a seam', 'deviation state read']) assert.ok(why.has(w), w);
});

test('policy files hold named values only: no SQL, no function, no parameter a default does not use; they import no domain module', () => {
  const problems: string[] = [];
  const policyFiles = tsFiles(path.join(ROOT, 'reference-impl')).filter((f) => f.endsWith('/policy.ts'));
  assert.ok(policyFiles.length >= 7);
  for (const file of policyFiles) {
    const rel = path.relative(ROOT, file);
    const src = fs.readFileSync(file, 'utf8');
    if (/\.prepare\(|\b(SELECT|INSERT|UPDATE|DELETE)\s/.test(src)) problems.push(`${rel}: SQL`);
    if (/\(\s*_\w*|,\s*_\w+\s*[:,)]/.test(src)) problems.push(`${rel}: a parameter named _… (a default that does not use what it declares)`);
    for (const dep of imports(file)) if (!/lib\/limits\.ts$|rest\/activity\/period\.ts$/.test(dep)) problems.push(`${rel} imports ${path.relative(ROOT, dep)}`);
  }
  for (const [area, policy] of Object.entries(buildPolicies([]))) {
    for (const [k, v] of Object.entries(policy)) if (typeof v === 'function') problems.push(`${area}.${k} is a function: a deviation acts as a value, an edit at a seam, or a flag`);
  }
  assert.deepEqual(problems, []);
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
