// Project tests of `ces check connector` against the fake connector: each control API fault reported under its clause.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startFakeConnector } from '../fake-connector/server.js';
import { REFERENCE_SCRIPT } from '../check/settings.js';
import { http, agentFor } from '../lib/http.js';
import { CONNECTOR_SECRET, PARALLEL_RUNS, checkFolder, runCheck, assertMode } from './check-support.js';

const folder = checkFolder();

interface Fault { name: string; faults: object[]; fail: string[] }
/**
 * Faults that touch different clauses share one `ces check` run (each run is a Playwright launch, and each FAIL costs a new
 * Playwright worker): in a group, no fault fails or leaves NOT JUDGED a clause asserted for another, each measured alone, so
 * each clause asserted still fails because of its own fault. Two faults of one endpoint cannot share a run (the fake applies
 * the first rule of an endpoint). Malformed scenarios and a missing PUT /bots leave the checks that need a bot NOT JUDGED
 * (availability strategies too): they go together, apart from the faults of the bot's endpoints. Slow first messages and
 * replies to operator messages share the run of the partner variant answering another conversation's id
 * (test/check-variants.test.ts).
 */
const GROUPS: Fault[][] = [
  [
    { name: 'schema-invalid POST /conversations', faults: [{ endpoint: 'conversation-create', invalid: true }], fail: ['CONN-EP6-01'] },
    { name: '451-character text', faults: [{ endpoint: 'messages', longText: true }], fail: ['CONN-TEXT-01'] },
    { name: 'availability 500', faults: [{ endpoint: 'availability', status: 500 }], fail: ['CONN-EP4-01'] },
  ],
  [
    { name: 'malformed JSON scenarios', faults: [{ endpoint: 'external-bots', malformed: true }], fail: ['CONN-JSON-01', 'CONN-EP1-01'] },
    { name: 'missing PUT /bots', faults: [{ endpoint: 'bot-put', status: 404 }], fail: ['CONN-EP2-01'] },
  ],
];

describe('ces check connector against the fake connector (control API faults)', { concurrency: PARALLEL_RUNS }, () => {
  const script = JSON.stringify(REFERENCE_SCRIPT);
  const start = async (faults: object[]) => {
    const fake = await startFakeConnector({ tls: folder.tls.server, secret: CONNECTOR_SECRET });
    for (const f of faults) {
      const res = await http({ method: 'POST', url: `${fake.controlUrl}/faults`, headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.controlToken}` }, body: JSON.stringify(f) }, agentFor(folder.caFile));
      assert.equal(res.status, 200, `fault accepted: ${res.text}`);
    }
    return fake;
  };

  // The fake connector in its default mode, zero MUST failures: the package test's job of docs/ci.md for a connector vendor
  // (`ces check connector` against the fake connector of `ces serve`, exit 0), scripts/package-test.mjs.

  for (const group of GROUPS) {
    test(`fake connector faults ${group.map((f) => `"${f.name}"`).join(', ')} in one run`, async (t) => {
      const fake = await start(group.flatMap((f) => f.faults));
      try {
        const r = await runCheck(folder.work, ['connector', fake.url, '--secret', CONNECTOR_SECRET, '--ca-file', folder.caFile, '--script', script]);
        for (const f of group) await t.test(`fault "${f.name}" is reported under ${f.fail.join(', ')}`, () => assertMode(r, f.name, f.fail));
        // --no-allure (runCheck's default): no Allure results are written either, as no report will be made of them.
        assert.ok(fs.existsSync(path.join(r.dir, 'results.json')) && !fs.existsSync(path.join(r.dir, 'allure-results')), 'no allure-results under --no-allure');
      } finally { await fake.close(); }
    });
  }
});
