// A service that follows the spec but took other decisions where it is silent (a proxy in front of the reference implementation, test/alternatives-proxy.ts), run with `ces test --target` as a service team would: no MUST or SHOULD clause that passes directly fails through it, and only the REF clauses of its decisions are reported (issue 23 item 4, GAPS G34).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '../reference-impl/stack.js';
import { generateTls } from '../lib/tls.js';
import { clauseById } from '../lib/catalogue.js';
import type { RunSummary } from '../lib/landing.js';
import { DECISIONS, startProxy } from './alternatives-proxy.js';
import { runCes } from './ces-process.js';

/** The suites the decisions show in: REST and webhooks (the whole suites, not only the checks of the clauses concerned). */
const SUITES = 'rest,webhooks';
/**
 * All of their checks but the webhook retries (two minutes of real-time waiting per run): no decision of the proxy concerns a
 * retry, and their subscriptions do not pass the proxy (test/alternatives-proxy.ts).
 */
const GREP = '^(?!.*webhook retries)';

const ces = (args: string[], env: Record<string, string>) => runCes(args, { env });

/** Runs the suites against a target file in a reports folder of its own; its summary. */
async function run(dir: string, target: object): Promise<{ summary: RunSummary; out: string; code: number | null }> {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'target.json');
  fs.writeFileSync(file, JSON.stringify(target), { mode: 0o600 });
  const reports = path.join(dir, 'reports');
  const r = await ces(['test', '--target', file, '--suite', SUITES, '--grep', GREP, '--no-allure'], { CES_REPORTS_DIR: reports, CES_QUIET: '1' });
  const runDir = fs.existsSync(reports) ? fs.readdirSync(reports).find((d) => d.includes('-test-')) : undefined;
  assert.ok(runDir, `a run folder was written:\n${r.out.slice(-3000)}`);
  return { summary: JSON.parse(fs.readFileSync(path.join(reports, runDir, 'summary.json'), 'utf8')) as RunSummary, out: r.out, code: r.code };
}

test('a service that decided otherwise where the spec is silent: every MUST and SHOULD clause passing directly passes through it, and only the REF clauses of its decisions are reported', { timeout: 900_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-alt-proxy-'));
  const tls = generateTls();
  // Two stacks: one judged directly, one behind the proxy; each run moves its own service clock (the clock lock is per target).
  const [direct, behind] = await Promise.all([startStack({ workDir: path.join(dir, 'direct-stack'), tls }), startStack({ workDir: path.join(dir, 'proxied-stack'), tls })]);
  const proxy = await startProxy(behind.ready.base_url, tls);
  try {
    // Both as a service team's target files (not the reference: the REF clauses are WARN), with every part, so nothing is skipped:
    // the simulation API, the platform API and the clock through the proxy, the fake connector and the sink as they are.
    const plain = ({ reference: _r, deviations: _d, chat_url: _c, inspector_url: _i, ...rest }: typeof direct.ready) => rest;
    const p = proxy.url;
    const proxied = { ...plain(behind.ready), base_url: p, rest_base_url: `${p}/api/2`, rest_ha_base_url: `${p}/ha/api/2`, graphql_url: `${p}/graphql`, sim_url: `${p}/sim`, platform_url: `${p}/platform` };
    const [a, b] = await Promise.all([run(path.join(dir, 'direct'), plain(direct.ready)), run(path.join(dir, 'proxied'), proxied)]);
    const verdictsOf = (s: RunSummary) => new Map(s.verdicts.map((v) => [v.id, v.verdict]));
    const va = verdictsOf(a.summary);
    const vb = verdictsOf(b.summary);
    const catalogue = clauseById();
    const severity = (id: string) => catalogue.get(id)?.severity;
    // The direct run is clean: nothing reported, nothing broken (else the comparison proves nothing).
    assert.deepEqual([...va].filter(([, v]) => ['fail', 'warn', 'harness-error'].includes(v)), [], `the direct run:\n${a.out.slice(-3000)}`);
    // Every MUST and SHOULD clause that passes directly passes through the proxy: judged, and PASS.
    const lost = [...va].filter(([id, v]) => v === 'pass' && ['MUST', 'SHOULD'].includes(severity(id) ?? '') && vb.get(id) !== 'pass')
      .map(([id]) => `${id} (${severity(id)}): ${vb.get(id) ?? 'not run'}${reasonOf(b.summary, id)}`);
    assert.deepEqual(lost, [], 'MUST and SHOULD clauses passing directly and not through the proxy');
    // Only the REF clauses of the decisions are reported (WARN: it is not the reference), and each of those is.
    const reported = [...vb].filter(([, v]) => v !== 'pass' && v !== 'not-run' && v !== 'skipped').map(([id, v]) => `${id} ${v}`).sort();
    const expected = Object.keys(DECISIONS).filter((id) => catalogue.has(id)).map((id) => `${id} warn`).sort();
    assert.deepEqual(reported, expected, `clauses reported through the proxy:\n${reported.map((r) => `${r}${reasonOf(b.summary, r.split(' ')[0]!)}`).join('\n')}`);
    for (const id of Object.keys(DECISIONS).filter((x) => catalogue.has(x))) assert.equal(severity(id), 'REF', `${id} is a decision of GAPS (REF)`);
    // A WARN does not fail the run; no harness error.
    assert.equal(b.code, 0, b.out.slice(-3000));
    t.diagnostic(`direct: ${a.summary.checks.length} checks; through the proxy: ${b.summary.checks.length} checks; ${[...vb].filter(([, v]) => v === 'pass').length} clauses PASS, reported: ${reported.join(', ')}`);
  } finally {
    await proxy.close();
    await Promise.all([direct.close(), behind.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The first reasons a run gives for a clause's verdict (its failed or warned checks). */
function reasonOf(s: RunSummary, id: string): string {
  const v = s.verdicts.find((x) => x.id === id);
  const checks = s.checks.filter((c) => v?.checks.includes(c.title) && c.clauses.includes(id));
  const why = checks.map((c) => c.clauseResults?.[id]?.failed.join('; ') || c.reason || '').filter(Boolean)[0];
  return why ? ` — ${why.split('\n')[0]!.slice(0, 300)}` : '';
}
