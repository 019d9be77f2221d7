// The proof of issue 41, run once by hand (its figures are in docs/explore.md): with the default options (60 s budget, 30 s shrink budget, 50 calls/s, 4 conversations at once), each hidden bug of the fake connector is found on 10 seeds of 10 and shrunk to at most 2 steps more than the shortest failing session; the conforming fake connector gives no failure on 10 seeds, the integrator connector on 3.
// Run: node --import tsx scripts/explore-proof.ts [--seeds 10] [--budget 60000] [--shrink-budget 30000] [--only crash]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateTls } from '../lib/tls.js';
import { startFakeConnector, type ConnectorMode } from '../fake-connector/server.js';
import { CHARACTER_CLASS_NAMES } from '../fake-connector/hidden-bugs.js';
import { explore } from '../explore/run.js';
import { explorerClient } from '../explore/client.js';
import { DEFAULT_MAX_TEXT } from '../explore/texts.js';
import { DEFAULTS } from '../cli/commands/explore.js';
import { startIntegratorConnector } from '../test/fixtures/integrator-connector.js';

const arg = (name: string, dflt: number) => { const i = process.argv.indexOf(name); return i > 0 ? Number(process.argv[i + 1]) : dflt; };
const SEEDS = arg('--seeds', 10);
const BUDGET = arg('--budget', 60_000);
const SHRINK = arg('--shrink-budget', 30_000);
const SECRET = 'explore-proof-secret';

const tls = generateTls();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-explore-proof-'));
const caFile = path.join(work, 'ca.pem');
fs.writeFileSync(caFile, tls.ca.cert);

interface Bug { name: string; clause?: string; mode: () => { mode: ConnectorMode; shortest: number; said: string } }
const BUGS: Bug[] = [
  { name: '500 on the n-th visitor message', clause: 'CONN-EP7-02', mode: () => { const n = 5 + Math.floor(Math.random() * 4); return { mode: { failOnVisitorMessage: n }, shortest: n, said: `n=${n}` }; } },
  { name: 'operator message answered after a click', clause: 'CONN-LOOP-01', mode: () => ({ mode: { operatorReplyAfterClick: true }, shortest: 3, said: '' }) },
  { name: 'crash on a class of characters', clause: 'CONN-EP7-01', mode: () => { const c = CHARACTER_CLASS_NAMES[Math.floor(Math.random() * CHARACTER_CLASS_NAMES.length)]!; return { mode: { crashOnCharacters: c }, shortest: 1, said: c }; } },
  { name: 'variables leaking after a click', clause: 'CONN-CONC-01', mode: () => ({ mode: { leakVariablesAfterClick: true }, shortest: 4, said: '' }) },
  { name: 'conforming fake connector', mode: () => ({ mode: {}, shortest: 0, said: '' }) },
];

async function one(bug: Bug, seed: number) {
  const { mode, shortest, said } = bug.mode();
  const fake = await startFakeConnector({ tls: tls.server, secret: SECRET });
  Object.assign(fake.state.mode, mode);
  const client = explorerClient({ url: fake.url, secret: SECRET, caFile, allowHttp: false, rate: DEFAULTS.rate });
  const started = performance.now();
  try {
    const r = await explore({ client, budgetMs: BUDGET, shrinkBudgetMs: SHRINK, seed, parallel: DEFAULTS.parallel, maxText: DEFAULT_MAX_TEXT, stopAfterFailures: bug.clause ? 1 : undefined });
    const f = r.failures[0];
    return { seed, said, shortest, sessions: r.explored.sessions, calls: r.explored.calls, found: f?.finding.clause, steps: f?.steps.length, foundSteps: f?.foundSteps, replays: f?.replays.filter(Boolean).length, failures: r.failures.length, s: Math.round((performance.now() - started) / 1000) };
  } finally { await fake.close(); }
}

const seeds = Array.from({ length: SEEDS }, (_, i) => 1000 + i);
const rows: string[] = ['| bug | seeds found (clause) | shrunk steps (shortest) | sessions to find (min-max) | replays failing | wall s (max) |', '|---|---|---|---|---|---|'];
// --only <words>: the rows whose name contains them (e.g. --only crash), without the integrator's.
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
for (const bug of BUGS.filter((b) => !only || b.name.includes(only))) {
  const results = await Promise.all(seeds.map((s) => one(bug, s)));
  for (const r of results) console.log(bug.name, JSON.stringify(r));
  if (bug.clause) {
    const ok = results.filter((r) => r.found === bug.clause);
    const within = ok.filter((r) => r.steps! <= r.shortest + 2);
    rows.push(`| ${bug.name} | ${ok.length}/${results.length} (${bug.clause}) | ${results.map((r) => `${r.steps ?? '-'} (${r.shortest}${r.said ? `, ${r.said}` : ''})`).join(', ')}; ${within.length}/${results.length} within +2 | ${Math.min(...results.map((r) => r.sessions))}-${Math.max(...results.map((r) => r.sessions))} | ${results.map((r) => r.replays ?? 0).join(' ')} of 3 | ${Math.max(...results.map((r) => r.s))} |`);
  } else {
    rows.push(`| ${bug.name} | failures: ${results.map((r) => r.failures).join(' ')} over ${results.length} seeds of ${BUDGET / 1000} s | - | ${results.map((r) => r.sessions).join(' ')} sessions | - | ${Math.max(...results.map((r) => r.s))} |`);
  }
  console.log(rows.at(-1));
}

// The independent integrator connector of the project's tests: 3 seeds of the full budget, no failure expected.
const integrator = await Promise.all((only ? [] : [1000, 1001, 1002]).map(async (seed) => {
  const c = await startIntegratorConnector({ cert: tls.server.cert, key: tls.server.key, secret: SECRET });
  try {
    const client = explorerClient({ url: c.url, secret: SECRET, caFile, allowHttp: false, rate: DEFAULTS.rate });
    const r = await explore({ client, budgetMs: BUDGET, shrinkBudgetMs: SHRINK, seed, parallel: DEFAULTS.parallel, maxText: DEFAULT_MAX_TEXT });
    return { seed, sessions: r.explored.sessions, calls: r.explored.calls, failures: r.failures.map((f) => `${f.finding.clause}: ${f.finding.message}`) };
  } finally { await c.close(); }
}));
for (const r of integrator) console.log('integrator', JSON.stringify(r));
if (!only) rows.push(`| integrator connector (test/fixtures) | failures: ${integrator.map((r) => r.failures.length).join(' ')} over 3 seeds of ${BUDGET / 1000} s | - | ${integrator.map((r) => r.sessions).join(' ')} sessions | - | - |`);
console.log(`\n${rows.join('\n')}`);
fs.rmSync(work, { recursive: true, force: true });
