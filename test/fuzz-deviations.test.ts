// `ces fuzz` proven like the checks: pointed at the reference implementation with each deviation that breaks a status code, an
// answer's schema, authentication or tenant isolation, it reports a failure of that kind that it does not report without the deviation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from '../reference-impl/stack.js';
import { generateTls, type TlsMaterial } from '../lib/tls.js';
import { http, agentFor } from '../lib/http.js';
import { credentialsOf, runFuzz, type FuzzReport } from '../fuzz/run.js';
import type { Credentials } from '../fuzz/exchange.js';

/**
 * Cases per operation in these runs: every operation is fuzzed (no pointing at the broken one), with a small floor and no budget.
 * 8 finds every deviation below with these seeds (measured 2026-11-28); the fuzz step of `npm test` keeps the command's own floor of 40.
 */
const FLOOR = 8;
const SEED = 20261123;

/** Each deviation, and the failure (operation, check) the fuzzer must report for it. */
const EXPECTED: Array<{ deviation: string; operation: RegExp; oracle: string }> = [
  { deviation: 'rest-bad-id-500', operation: /^REST .*\{id\}/, oracle: 'server-error' },
  { deviation: 'rest-create-status-200', operation: /^REST POST \/operator$/, oracle: 'undocumented-status' },
  { deviation: 'rest-forbidden-text', operation: /^REST /, oracle: 'schema' },
  { deviation: 'rest-unknown-id-text', operation: /^REST .*\{id\}/, oracle: 'schema' },
  { deviation: 'rest-tenant-leak', operation: /^REST (GET|PUT|DELETE) \/operator\/\{id\}/, oracle: 'tenant-leak' },
  { deviation: 'rest-tenant-leak-list', operation: /^REST GET \/operator$/, oracle: 'tenant-leak' },
  { deviation: 'rest-activity-tenant-leak', operation: /^REST GET \/(conversation|tag|transaction|satisfaction|callmeeting)/, oracle: 'tenant-leak' },
  { deviation: 'rest-limit-not-clamped', operation: /^REST GET /, oracle: 'schema' },
  { deviation: 'rest-envelope-no-link', operation: /^REST GET /, oracle: 'schema' },
  { deviation: 'rest-delete-no-id', operation: /^REST DELETE \/operator\/\{id\}$/, oracle: 'schema' },
  { deviation: 'rest-ha-base-missing', operation: /^REST /, oracle: 'undocumented-status' },
  { deviation: 'rest-auth-basic-ignored', operation: /^REST /, oracle: 'valid-key-refused' },
  { deviation: 'graphql-cross-client-leak', operation: /^GraphQL query project$/, oracle: 'tenant-leak' },
  { deviation: 'graphql-unauthenticated-200', operation: /^GraphQL /, oracle: 'auth-not-enforced' },
  { deviation: 'graphql-unauthenticated-data', operation: /^GraphQL /, oracle: 'auth-not-enforced' },
  { deviation: 'graphql-no-error-code', operation: /^GraphQL /, oracle: 'graphql-error-shape' },
];

/**
 * The fuzz runs, each with several deviations at once (a run costs ~2 CPU-s; one per deviation made this file 46 CPU-s). In one run
 * no deviation can make the failure another's row looks for: their rows have different checks (oracles), or the same check on
 * operations the other never answers differently (rest-limit-not-clamped's GET lists, rest-delete-no-id's DELETE), and no two
 * tenant leaks share a run (a leaking list would make the harvest count the other client's ids as the client's own, hiding a
 * leak by id). rest-ha-base-missing runs without another REST deviation: its 404s fail the schema and status checks on every REST
 * operation. Measured 2026-11-28: in every run, each row's failure is gone when its deviation alone is left out (the row finds
 * nothing the baseline does not), so no row passes on another's failure; RUNS below asserts that each row is in exactly one run.
 */
const RUNS: string[][] = [
  // First on a fresh stack: POST /operator's documented example (a fixed e-mail) creates only once per stack, and it is the
  // create whose 200 rest-create-status-200 is found by.
  ['rest-create-status-200', 'rest-bad-id-500', 'rest-forbidden-text', 'rest-tenant-leak', 'rest-auth-basic-ignored', 'graphql-no-error-code'],
  ['rest-activity-tenant-leak', 'rest-limit-not-clamped', 'rest-delete-no-id', 'graphql-unauthenticated-data'],
  ['rest-unknown-id-text', 'rest-tenant-leak-list', 'graphql-unauthenticated-200'],
  ['rest-envelope-no-link'],
  ['rest-ha-base-missing', 'graphql-cross-client-leak'],
];

type Run = FuzzReport & { secrets: string[] };
/** One CA and certificate for the two stacks of this file. */
let tls: TlsMaterial;
/** The baseline's own stack, and the stack the runs with deviations share (each run switching them through the simulation API). */
let baseStack: Stack;
let deviated: Stack;
let baseline: Run;
/** Each run's report, by run index, started on first demand and in order (a run switches the stack's deviations). */
const reports = new Map<number, Promise<Run>>();
const sig = (f: { operation: string; oracle: string; message: string }) => `${f.operation} | ${f.oracle} | ${f.message.slice(0, 60)}`;
const freshStack = () => startStack({ tls, workDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ces-fuzz-test-')) });

/** A fuzz run against `stack` with `credentials` (one login per client per stack: logins are throttled per user). */
async function fuzz(stack: Stack, credentials: Credentials, seed: number): Promise<Run> {
  const report = await runFuzz({ target: stack.ready, budgetMs: 0, floor: FLOOR, seed, credentials });
  return { ...report, secrets: [...credentials.keys, ...credentials.tokens] };
}

/** Switches the shared stack's deviations (the self-test's way: POST {sim_url}/deviations) and reads them back. */
async function switchDeviations(ids: string[]): Promise<void> {
  const { sim_url, sim_token, ca_file } = deviated.ready;
  const res = await http({ method: 'POST', url: `${sim_url}/deviations`, headers: { 'content-type': 'application/json', authorization: `Bearer ${sim_token}` }, body: JSON.stringify({ ids }) }, agentFor(ca_file));
  assert.equal(res.status, 200, `switching the deviations to [${ids}]: ${res.status} ${res.text.slice(0, 200)}`);
  assert.deepEqual([...(JSON.parse(res.text) as { ids: string[] }).ids].sort(), [...ids].sort());
}

let deviatedCredentials: Promise<Credentials> | undefined;
/** Run `i` (and every run before it first, so the first run meets the fresh stack), seeded SEED + i + 1. */
function runOf(i: number): Promise<Run> {
  let r = reports.get(i);
  if (!r) {
    const prior = i > 0 ? runOf(i - 1) : Promise.resolve(undefined);
    r = prior.then(async () => {
      deviatedCredentials ??= credentialsOf(deviated.ready);
      const credentials = await deviatedCredentials;
      await switchDeviations(RUNS[i]!);
      return fuzz(deviated, credentials, SEED + i + 1);
    });
    reports.set(i, r);
  }
  return r;
}

before(async () => {
  tls = generateTls();
  [baseStack, deviated] = await Promise.all([freshStack(), freshStack()]);
  baseline = await fuzz(baseStack, await credentialsOf(baseStack.ready), SEED);
});
after(async () => { await Promise.all([baseStack?.close(), deviated?.close()]); });

test('every deviation is in exactly one run', () => {
  assert.deepEqual(RUNS.flat().sort(), EXPECTED.map((e) => e.deviation).sort());
});

test('the fuzzer covers every operation of both surfaces, to its floor, with two clients', () => {
  assert.ok(baseline.isolation.checked && baseline.isolation.ownedIds.every((n) => n > 0), `ids seen per client: ${baseline.isolation.ownedIds}`);
  assert.ok(baseline.operations.some((o) => o.id.startsWith('REST ')) && baseline.operations.some((o) => o.id.startsWith('GraphQL ')));
  for (const o of baseline.operations) assert.ok(o.cases >= FLOOR, `${o.id}: ${o.cases} cases, floor ${FLOOR}`);
});

for (const e of EXPECTED) {
  test(`finds ${e.deviation}: ${e.oracle} on ${e.operation.source}`, async () => {
    const i = RUNS.findIndex((run) => run.includes(e.deviation));
    assert.ok(i >= 0, `${e.deviation} is in no run`);
    const r = await runOf(i);
    const hits = r.failures.filter((f) => f.oracle === e.oracle && e.operation.test(f.operation));
    assert.ok(hits.length > 0, `no ${e.oracle} failure on ${e.operation} with [${RUNS[i]}]; found: ${r.failures.map(sig).join('; ') || 'nothing'}`);
    // The failure is the deviation's: the same operation and check stay clean without it.
    const before = new Set(baseline.failures.map((f) => `${f.operation}|${f.key}`));
    assert.ok(hits.some((f) => !before.has(`${f.operation}|${f.key}`)), `the baseline already fails the same way: ${hits.map(sig).join('; ')}`);
    // Every reproduction is a curl command with the keys as variables, never in clear.
    for (const f of hits) {
      assert.match(f.curl, /^curl /);
      for (const k of r.secrets) assert.ok(!f.curl.includes(k), 'a secret is printed in a reproduction');
    }
  });
}
