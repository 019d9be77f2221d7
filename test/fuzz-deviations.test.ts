// `ces fuzz` proven like the checks: pointed at the reference implementation with each deviation that breaks a status code, an
// answer's schema, authentication or tenant isolation, it reports a failure of that kind that it does not report without the deviation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from '../reference-impl/stack.js';
import { generateTls, type TlsMaterial } from '../lib/tls.js';
import { credentialsOf, runFuzz, type FuzzReport } from '../fuzz/run.js';
import type { Credentials } from '../fuzz/exchange.js';

/**
 * Cases per operation in these runs: every operation is fuzzed (no pointing at the broken one), with a small floor and no budget.
 * 8 finds every deviation below with these seeds (measured 2026-11-26: 64 CPU-s for the file, against 128 at 20); the fuzz step of
 * `npm test` keeps the command's own floor of 40.
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

let baseline: FuzzReport & { secrets: string[] };
/** One CA and certificate for the 17 stacks of this file: generating them costs ~0.3 s of CPU per stack and proves nothing here. */
let tls: TlsMaterial;
const sig = (f: { operation: string; oracle: string; message: string }) => `${f.operation} | ${f.oracle} | ${f.message.slice(0, 60)}`;

/** One fresh stack per run: the document's examples (a create with a fixed e-mail) are accepted once per stack, and a run's
 * writes never change what the next run sees. One login per client per stack (logins are throttled per user). */
async function fuzz(deviations: string[], seed: number): Promise<FuzzReport & { secrets: string[] }> {
  const stack: Stack = await startStack({ tls, deviate: deviations, workDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ces-fuzz-test-')) });
  try {
    const credentials: Credentials = await credentialsOf(stack.ready);
    const report = await runFuzz({ target: stack.ready, budgetMs: 0, floor: FLOOR, seed, credentials });
    return { ...report, secrets: [...credentials.keys, ...credentials.tokens] };
  } finally { await stack.close(); }
}

before(async () => { tls = generateTls(); baseline = await fuzz([], SEED); });

test('the fuzzer covers every operation of both surfaces, to its floor, with two clients', () => {
  assert.ok(baseline.isolation.checked && baseline.isolation.ownedIds.every((n) => n > 0), `ids seen per client: ${baseline.isolation.ownedIds}`);
  assert.ok(baseline.operations.some((o) => o.id.startsWith('REST ')) && baseline.operations.some((o) => o.id.startsWith('GraphQL ')));
  for (const o of baseline.operations) assert.ok(o.cases >= FLOOR, `${o.id}: ${o.cases} cases, floor ${FLOOR}`);
});

for (const [i, e] of EXPECTED.entries()) {
  test(`finds ${e.deviation}: ${e.oracle} on ${e.operation.source}`, async () => {
    const r = await fuzz([e.deviation], SEED + i + 1);
    const hits = r.failures.filter((f) => f.oracle === e.oracle && e.operation.test(f.operation));
    assert.ok(hits.length > 0, `no ${e.oracle} failure on ${e.operation} with ${e.deviation}; found: ${r.failures.map(sig).join('; ') || 'nothing'}`);
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
