// The embedded reference implementation described as a bare target (no capability, no connector, sink, sim or platform URL): `ces test --target` must find nothing to fail, judge what it can, and say why it judged nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '../reference-impl/stack.js';
import { coverageOf } from '../lib/coverage.js';
import type { RunSummary } from '../lib/landing.js';
import { runCes } from './ces-process.js';

/** Clauses judged against this bare target when issue 18 was filed; a run may judge more, never fewer. */
const JUDGED_AT_LEAST = 167;

const ces = (args: string[], env: Record<string, string>) => runCes(args, { env });

test('bare target: zero FAIL, exit 0, at least 167 clauses judged, every unjudged clause with its reason', { timeout: 240_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-bare-'));
  const stack = await startStack({ workDir: dir });
  try {
    const r = stack.ready;
    // What a staging service gives: its URLs, keys and users of two clients, its CA. Nothing of the harness.
    const bare = { base_url: r.base_url, rest_base_url: r.rest_base_url, rest_ha_base_url: r.rest_ha_base_url, graphql_url: r.graphql_url, api_key: r.api_key, api_keys: r.api_keys, user: r.user, users: r.users, ca_file: r.ca_file, capabilities: [] };
    const file = path.join(dir, 'bare.json');
    fs.writeFileSync(file, JSON.stringify(bare), { mode: 0o600 });
    const reports = path.join(dir, 'reports');
    const run = await ces(['test', '--target', file, '--no-allure', '--workers', '1'], { CES_REPORTS_DIR: reports, CES_QUIET: '1' });
    const runDir = fs.readdirSync(reports).find((d) => d.includes('-test-'));
    assert.ok(runDir, `a run folder was written:\n${run.out.slice(-3000)}`);
    const summary = JSON.parse(fs.readFileSync(path.join(reports, runDir, 'summary.json'), 'utf8')) as RunSummary;
    const failed = summary.checks.filter((c) => c.outcome === 'failed');
    assert.deepEqual(failed.map((c) => `${c.title}: ${(c.reason ?? '').split('\n')[0]}`), [], 'no check fails against a conforming service for what the target lacks');
    assert.equal(run.code, 0, run.out.slice(-3000));
    const cov = coverageOf(summary.checks, summary.verdicts);
    assert.ok(cov.judged >= JUDGED_AT_LEAST, `judged ${cov.judged} clauses, expected at least ${JUDGED_AT_LEAST}`);
    for (const u of cov.unjudged) assert.ok(u.why.length > 0, `${u.id} is not judged without a reason`);
    // The lack of every part is named: only parts a bare target lacks, and every skip says which.
    const lacked = new Set(cov.byPart.map((p) => p.part));
    for (const p of lacked) assert.ok(['sim', 'clock', 'platform', 'connector_url', 'sink_url', 'console'].includes(p), `a bare target with two clients does not lack ${p}`);
    t.diagnostic(`judged ${cov.judged} of ${cov.total}; unjudged ${cov.unjudged.length}:`);
    for (const u of cov.unjudged) t.diagnostic(`  ${u.id}: ${u.why.split('\n')[0]}`);
  } finally {
    await stack.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
