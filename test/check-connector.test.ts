// Project tests of `ces check connector` against an independent integrator connector: a correct one passes every connector clause with reports and no secret in them, each typical mistake is reported under its clause, pre-flight failures exit 2.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { findLeaks } from '../lib/results.js';
import { startIntegratorConnector, type Mistake } from './fixtures/integrator-connector.js';
import { CONNECTOR_SECRET, PARALLEL_RUNS, checkFolder, runCheck, tail, areaIds, assertMode, clausesOf } from './check-support.js';

const folder = checkFolder();

interface Mode { mistakes: Mistake[]; fail?: string[]; warn?: string[]; note?: string[] }
/**
 * Deviant modes → clauses whose verdict must be `fail` (MUST), `warn` (SHOULD) or `note` (MAY), and the exit code.
 * Mistakes that touch different clauses share one `ces check` run (each run is a Playwright launch, and each FAIL costs a new
 * Playwright worker), and so do modes: in a run, no mode fails, warns or leaves NOT JUDGED a clause asserted for another, each
 * measured alone. The slow answer goes first: its run is the longest (12 s answers), and with one worker the others fit beside it;
 * what it shares the run with is judged without visitor answers (endpoints 1-4 and 6). A connector without PUT /bots (CONN-EP2-01)
 * is the fake connector's partner variant noPutBots (test/check-evidence.test.ts, with the verdict of every other clause).
 */
const CONNECTOR_RUNS: Array<{ modes: Mode[] }> = [
  { modes: [
    { mistakes: ['slow-answer'], fail: ['CONN-EP7-01'] },
    { mistakes: ['replies-on-start', 'availability-500', 'empty-createdAt'], fail: ['CONN-EP6-02', 'CONN-EP4-01', 'CONN-BOT-DATES-01', 'CONN-CONV-DATES-01'] },
    { mistakes: ['extra-scenario-field'], fail: ['CONN-EP1-02'] },
  ] },
  { modes: [
    { mistakes: ['long-answer', 'bad-bundle'], fail: ['CONN-TEXT-01', 'CONN-BUNDLE-01'], warn: ['CONN-TEXT-02'] },
    { mistakes: ['replies-to-echo', 'advised-transfer', 'no-signature-check'], fail: ['CONN-LOOP-01', 'CONN-LOOP-02'], warn: ['CONN-TRANSFER-02'], note: ['CONN-AUTH-01'] },
  ] },
  { modes: [
    { mistakes: ['slow-first-messages', 'short-transfer', 'unknown-rule', 'many-quick-replies', 'update-at', 'rules-not-given'],
      fail: ['CONN-EP5-01', 'CONN-TRANSFER-01', 'CONN-TRANSFER-03', 'CONN-EP4-02'], warn: ['CONN-TRANSFER-02', 'CONN-QR-01', 'CONN-CONV-DATES-02'] },
    // "The linked picture must be 240x120 pixels" (Payload objects / Image): a MUST clause.
    { mistakes: ['wide-image'], fail: ['CONN-IMAGE-01'] },
  ] },
];

describe('ces check connector against an independent integrator connector', { concurrency: PARALLEL_RUNS }, () => {
  for (const run of CONNECTOR_RUNS) {
    test(`mistakes ${run.modes.map((m) => m.mistakes.join(', ')).join('; ')} in one run`, async (t) => {
      const c = await startIntegratorConnector({ cert: folder.tls.server.cert, key: folder.tls.server.key, secret: CONNECTOR_SECRET, mistakes: run.modes.flatMap((m) => m.mistakes) });
      try {
        const r = await runCheck(folder.work, ['connector', c.url, '--secret', CONNECTOR_SECRET, '--ca-file', folder.caFile]);
        for (const m of run.modes) await t.test(`mistakes ${m.mistakes.join(', ')} are reported under ${clausesOf(m)}`, () => assertMode(r, m.mistakes.join('+'), m.fail, m.warn, m.note));
      } finally { await c.close(); }
    });
  }

  test('a correct connector passes every connector clause, with reports and no secret in them', async () => {
    const c = await startIntegratorConnector({ cert: folder.tls.server.cert, key: folder.tls.server.key, secret: CONNECTOR_SECRET });
    try {
      const r = await runCheck(folder.work, ['connector', c.url, '--secret', CONNECTOR_SECRET, '--ca-file', folder.caFile, '--connector-version', '3f0c4d8e-8b1a-4c53-9a57-2f4d7e1b6a90', '--website', '42'], { allure: true });
      assert.equal(r.code, 0, tail(r));
      const notPassed = areaIds('connector').filter((id) => r.verdicts.get(id) !== 'pass').map((id) => `${id}=${r.verdicts.get(id)}`);
      assert.deepEqual(notPassed, [], `every connector clause is judged and passes:\n${tail(r)}`);
      for (const f of ['junit.xml', 'results.json', 'summary.json', path.join('playwright', 'index.html'), path.join('allure-report', 'index.html')]) assert.ok(fs.existsSync(path.join(r.dir, f)), `report ${f} written`);
      assert.ok(fs.readdirSync(path.join(r.dir, 'allure-results')).some((f) => f.endsWith('-result.json')), 'allure results written');
      assert.deepEqual(findLeaks(r.dir, [CONNECTOR_SECRET]), [], 'the connector secret never reaches the reports');
      assert.ok(!r.out.includes(CONNECTOR_SECRET), 'the connector secret never reaches the terminal');
      assert.match(r.out, /verdict: PASS[^\n]*\(exit 0\)/);
    } finally { await c.close(); }
  });

  // A wrong --secret (every call refused 401, CONN-AUTH-02 FAIL only, the endpoints NOT JUDGED for the refusal): the fake
  // connector refusing every call (test/check-variants.test.ts) meets the checker with the same answers. The checker's signatures
  // are verified by the correct connector above, which refuses wrong ones (CONN-AUTH-01 PASS) and accepts its calls (CONN-AUTH-02 PASS).

  // A plain-http URL (CONN-HTTPS-01 FAIL, every other check skipped with the reason): test/check-proofs.test.ts, against a
  // plain-http partner that also counts the calls (none).

  test('--allow-http runs the pre-flight on the plain-http URL: nothing listens there, so one message and exit 2', async () => {
    const r = await runCheck(folder.work, ['connector', 'http://127.0.0.1:9', '--allow-http', '--secret', CONNECTOR_SECRET]);
    assert.equal(r.code, 2, tail(r));
    assert.match(r.out, /pre-flight of http:\/\/127\.0\.0\.1:9 failed, nothing was judged: 127\.0\.0\.1:9 is unreachable \(ECONNREFUSED\)/);
    assert.equal(r.verdicts.size, 0, 'no check ran');
  });

  test('pre-flight: an untrusted certificate and a missing --secret each stop the run with one message, exit 2', async () => {
    const c = await startIntegratorConnector({ cert: folder.tls.server.cert, key: folder.tls.server.key, secret: CONNECTOR_SECRET });
    try {
      const untrusted = await runCheck(folder.work, ['connector', c.url, '--secret', CONNECTOR_SECRET]);
      assert.equal(untrusted.code, 2, tail(untrusted));
      assert.match(untrusted.out, /the certificate of 127\.0\.0\.1:\d+ is not trusted .*--ca-file FILE, or set NODE_EXTRA_CA_CERTS=FILE/);
      assert.equal(untrusted.out.match(/ces: /g)?.length, 1, 'one message');
      const noSecret = await runCheck(folder.work, ['connector', c.url, '--ca-file', folder.caFile]);
      assert.equal(noSecret.code, 2, tail(noSecret));
      assert.match(noSecret.out, /--secret is missing: .*--unsigned/);
      const empty = await runCheck(folder.work, ['webhook-receiver', c.url, '--secret', '', '--ca-file', folder.caFile]);
      assert.equal(empty.code, 2, tail(empty));
      assert.match(empty.out, /--secret is empty/);
      for (const r of [untrusted, noSecret, empty]) assert.equal(r.verdicts.size, 0, 'nothing was judged');
    } finally { await c.close(); }
  });
});

// One refusal of each kind through the command line (the arguments' validation, yargs' choices); every other refusal of the
// validation (a non-http scheme, a connector version that is not a UUID...) by test/check-unit.test.ts, with no process each.
describe('ces check usage errors exit 2', () => {
  for (const [name, args] of [
    ['a URL that is not a URL', ['connector', 'not a url']],
    ['an unknown kind', ['bot', 'https://127.0.0.1:9']],
  ] as const) {
    test(name, async () => {
      const r = await runCheck(folder.work, [...args]);
      assert.equal(r.code, 2, r.out);
      assert.match(r.out, /ces: /);
    });
  }
});
