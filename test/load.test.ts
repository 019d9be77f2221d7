// `ces load`: thresholds become clause checks, the CA reaches k6, and runs against deviant instances (connector delayed past 10 s, polling at 2 s) exit 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../lib/paths.js';
import { LIMITS } from '../lib/limits.js';
import { loadClauses } from '../lib/catalogue.js';
import { caBundle, scenarios, thresholdChecks, type K6Summary } from '../cli/commands/load.js';
import { k6Gate } from './tools.js';

const k6 = k6Gate();

test('every scenario of the brief is a script under load/', () => {
  assert.deepEqual(scenarios(), ['availability-polling', 'graphql-read', 'message-path', 'rest-read', 'webhook-fanout']);
});

test('one check per threshold, named by its clause tag, failed when any of its expressions is crossed', () => {
  const summary: K6Summary = {
    metrics: {
      'message_answered{clause:LOAD-MSG-01}': { type: 'rate', values: { rate: 0.5, passes: 1, fails: 1 }, thresholds: { 'rate==1': { ok: false } } },
      'http_req_duration{endpoint:operator-live,clause:LOAD-REST-02}': { type: 'trend', values: { 'p(95)': 12 }, thresholds: { 'p(95)<500': { ok: true } } },
      http_reqs: { type: 'counter', values: { count: 10, rate: 2 } },
    },
  };
  const checks = thresholdChecks(summary, 'message-path');
  assert.equal(checks.length, 2, 'metrics without thresholds are not checks');
  const failed = checks.find((c) => c.outcome === 'failed')!;
  assert.deepEqual(failed.clauses, ['LOAD-MSG-01']);
  assert.match(failed.reason!, /rate==1/);
  assert.deepEqual(checks.find((c) => c.outcome === 'passed')!.clauses, ['LOAD-REST-02']);
});

test('every load clause is marked checkedBy k6 and has a severity of the spec', () => {
  const load = loadClauses().filter((c) => c.area === 'load');
  assert.ok(load.length >= 8);
  for (const c of load) assert.equal((c as { checkedBy?: string }).checkedBy, 'k6', c.id);
  assert.equal(load.find((c) => c.id === 'LOAD-MSG-01')?.severity, 'MUST', 'the 10 s message limit is a MUST of the spec');
});

test('the CA bundle k6 reads through SSL_CERT_FILE holds the target CA', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-load-ca-'));
  const ca = path.join(dir, 'ca.pem');
  fs.writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nTEST\n-----END CERTIFICATE-----\n');
  const bundle = caBundle(ca, dir)!;
  assert.ok(fs.readFileSync(bundle, 'utf8').endsWith(fs.readFileSync(ca, 'utf8')));
  assert.equal(caBundle(undefined, dir), undefined);
});

test(`ces load message-path exits 1 when the fake connector answers endpoint 7 after ${LIMITS.messageTimeoutMs + 1000} ms`, { skip: k6.skip, timeout: 120_000 }, () => {
  k6.require();
  const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-load-dev-'));
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'load', 'message-path', '--duration', '2s', '--vus', '2', '--no-dashboard'], {
    cwd: ROOT, encoding: 'utf8',
    env: { ...process.env, CES_REPORTS_DIR: reports, CES_CONNECTOR_DELAY_MS: String(LIMITS.messageTimeoutMs + 1000), CES_MESSAGES: '1' },
  });
  assert.equal(r.status, 1, `exit ${r.status}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
  assert.match(r.stdout, /FAIL message_answered\{clause:LOAD-MSG-01\} rate==1/);
  const run = fs.readdirSync(reports).find((d) => d.includes('-load-'))!;
  const summary = JSON.parse(fs.readFileSync(path.join(reports, run, 'summary.json'), 'utf8'));
  assert.equal(summary.kind, 'load');
  assert.equal(summary.exitCode, 1);
  assert.ok(summary.checks.some((c: { clauses: string[]; outcome: string }) => c.clauses.includes('LOAD-MSG-01') && c.outcome === 'failed'));
  assert.ok(fs.existsSync(path.join(reports, run, 'k6-summary.json')));
});

test('ces load availability-polling exits 1 against the deviation that polls every 2 s (LOAD-POLL-01)', { skip: k6.skip, timeout: 120_000 }, () => {
  k6.require();
  const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-load-poll-'));
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'load', 'availability-polling', '--duration', '4s', '--vus', '5', '--deviate', 'bots-poll-2s', '--no-dashboard'], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, CES_REPORTS_DIR: reports, CES_CONNECTOR_SIDE: '0' },
  });
  assert.equal(r.status, 1, `exit ${r.status}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
  assert.match(r.stdout, /FAIL poll_interval_ms\{clause:LOAD-POLL-01\} avg<1100/);
});

/** `ces load <args>` against the embedded reference implementation, its reports in a fresh folder. */
function cesLoad(args: string[], env: Record<string, string> = {}) {
  const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-load-proof-'));
  return spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'load', ...args, '--no-dashboard'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CES_REPORTS_DIR: reports, ...env } });
}
const shown = (r: ReturnType<typeof spawnSync>) => `exit ${r.status}\n${String(r.stdout).slice(-3000)}\n${String(r.stderr).slice(-2000)}`;

// The proofs of the LOAD clauses (fixtures/proofs.json): each scenario crosses its clause's threshold under a deviation or a connector fault.
test('ces load message-path exits 1 against the deviation whose visitor messages never reach endpoint 7 (LOAD-MSG-01)', { skip: k6.skip, timeout: 120_000 }, () => {
  k6.require();
  const r = cesLoad(['message-path', '--duration', '2s', '--vus', '2', '--deviate', 'bots-visitor-not-posted'], { CES_MESSAGES: '1' });
  assert.equal(r.status, 1, shown(r));
  assert.match(r.stdout, /FAIL message_answered\{clause:LOAD-MSG-01\} rate==1/);
});

test('ces load availability-polling exits 1 when the connector answers endpoint 4 with malformed JSON (LOAD-POLL-02)', { skip: k6.skip, timeout: 120_000 }, () => {
  k6.require();
  const r = cesLoad(['availability-polling', '--duration', '3s', '--vus', '2'], { CES_SERVICE_SIDE: '0', CES_CONNECTOR_FAULT: JSON.stringify({ endpoint: 'availability', malformed: true }) });
  assert.equal(r.status, 1, shown(r));
  assert.match(r.stdout, /FAIL checks\{endpoint:availability-strategies,clause:LOAD-POLL-02\} rate==1/);
});

test('ces load webhook-fanout exits 1 against the deviation that never retries (LOAD-WH-01: events answered 503 first are lost)', { skip: k6.skip, timeout: 150_000 }, () => {
  k6.require();
  const r = cesLoad(['webhook-fanout', '--duration', '3s', '--rate', '4', '--deviate', 'load-webhook-no-retry']);
  assert.equal(r.status, 1, shown(r));
  assert.match(r.stdout, /FAIL webhook_lost\{clause:LOAD-WH-01\} count==0/);
});

/**
 * A stand-in for k6 (CES_K6): `version` answers as the pinned k6; `run` writes the summary given in CES_FAKE_SUMMARY where
 * CES_SUMMARY says and exits as k6 does when a threshold is crossed (99). The verdict and exit code are then ces's alone.
 */
function fakeK6(dir: string): string {
  const file = path.join(dir, 'k6');
  fs.writeFileSync(file, `#!${process.execPath}\nconst fs = require('node:fs');\nif (process.argv[2] === 'version') { console.log('k6 v1.8.1'); process.exit(0); }\nfs.writeFileSync(process.env.CES_SUMMARY, process.env.CES_FAKE_SUMMARY);\nprocess.exit(99);\n`, { mode: 0o755 });
  return file;
}

test('ces load exits with the code its verdict line prints: a crossed REF threshold against another target is a WARN, exit 0; a crossed MUST threshold exit 1', { timeout: 60_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-load-verdict-'));
  try {
    const target = path.join(dir, 'target.json');
    fs.writeFileSync(target, JSON.stringify({ base_url: 'https://127.0.0.1:1', rest_base_url: 'https://127.0.0.1:1/api/2', graphql_url: 'https://127.0.0.1:1/graphql', api_key: 'k', user: { username: 'u', password: 'p' }, capabilities: [] }));
    const crossed = (clause: string): K6Summary => ({ metrics: {
      [`checks{endpoint:oauth2-token,clause:${clause}}`]: { type: 'rate', values: { rate: 0.5, passes: 1, fails: 1 }, thresholds: { 'rate==1': { ok: false } } },
      'http_req_duration{clause:LOAD-REST-02}': { type: 'trend', values: { 'p(95)': 12 }, thresholds: { 'p(95)<500': { ok: true } } },
    } });
    const run = (summary: K6Summary) => spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'load', 'graphql-read', '--target', target, '--no-preflight', '--no-dashboard'], {
      cwd: ROOT, encoding: 'utf8', env: { ...process.env, CES_K6: fakeK6(dir), CES_REPORTS_DIR: path.join(dir, 'reports'), CES_FAKE_SUMMARY: JSON.stringify(summary) },
    });
    const warn = run(crossed('LOAD-GQL-01'));
    assert.match(warn.stdout, /verdict: PASS with 1 WARN.*\(exit 0\)/, shown(warn));
    assert.equal(warn.status, 0, shown(warn));
    const fail = run(crossed('LOAD-MSG-01'));
    assert.match(fail.stdout, /verdict: FAIL.*\(exit 1\)/, shown(fail));
    assert.equal(fail.status, 1, shown(fail));
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});
