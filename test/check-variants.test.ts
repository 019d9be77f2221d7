// Project tests of `ces check connector` against the fake connector's partner variants (table): a correct one passes, each wrong one fails under the right clause with the right reason, and its reproduction pasted into a shell shows the failure.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeConnector } from '../fake-connector/server.js';
import { REFERENCE_SCRIPT } from '../check/settings.js';
import { http, agentFor } from '../lib/http.js';
import { CONNECTOR_SECRET, PARALLEL_RUNS, checkFolder, runCheck, runReproduction, partReproduction, assertRerunCommand, assertMode, tail, checksOf, saidAbout } from './check-support.js';

const folder = checkFolder();

describe('partners in every variant (table): a correct one passes, each wrong one fails under the right clause with the right reason', { concurrency: PARALLEL_RUNS }, () => {
  const script = JSON.stringify(REFERENCE_SCRIPT);
  interface Row {
    name: string; mode: Record<string, boolean>; args?: string[]; code: number;
    /**
     * Playwright workers, 1 by default (a second one starts a worker for little time gained: these runs take 3-10 s). A row that
     * needs 1 says so: no other check talks to the connector while the concurrency check holds its conversations.
     */
    workers?: number;
    /** clause → verdict, and a pattern its reasons must match. */
    expect: Array<[string, string, RegExp?]>;
    /**
     * Control API faults set beside the mode, on clauses the mode leaves alone (one partner and one `ces check` run for both),
     * each reported under its own clauses (FAIL) with its verdict line, and no harness error.
     */
    faults?: Array<{ name: string; faults: object[]; fail: string[] }>;
    /** No clause but these may pass (nothing passes without evidence). */
    onlyPass?: string[];
    /** No clause but these may fail (each FAIL with its terminal line, no harness error: assertMode). */
    onlyFail?: string[];
    /**
     * Each FAIL's reproduction, pasted into a shell, shows this; or (`rerun`) it is the command that re-runs the clause, checked as
     * printed: running a printed re-run command of CONN-CONC-01 against its partner is proven by test/check-evidence.test.ts (a
     * whole `ces check --only` run each).
     */
    repro?: Array<[string, RegExp | 'rerun']>;
  }
  const ROWS: Row[] = [
    {
      name: 'a correct connector with its own conversation ids, Java dates and extra fields', mode: { ownIds: true, javaDates: true, extraFields: true }, code: 0,
      expect: [
        ['CONN-EP6-01', 'warn', /idConversation "conv-\d+" is the connector's own id and not a UUID/],
        ['CONN-BOT-DATES-01', 'warn', /Java's zoned form/], ['CONN-CONV-DATES-01', 'warn', /Java's zoned form/],
        ['CONN-EP2-01', 'note', /fields beyond those listed .*locale/], ['CONN-EP7-02', 'note', /fields beyond those listed .*_links/],
        ['CONN-CONC-01', 'pass'], ['CONN-SCEN-01', 'pass'], ['CONN-LOOP-02', 'pass'],
      ],
    },
    {
      // What a run with a wrong --secret meets too (every call refused 401): a failure of CONN-AUTH-02 only.
      name: 'a connector that refuses every call', mode: { refuseAll: true }, code: 1,
      expect: [
        ['CONN-AUTH-02', 'fail', /refused the call: is --secret the connector's signing secret/],
        ['CONN-AUTH-01', 'not-judged', /no correctly signed call was accepted .*the connector refuses every call/],
        // A refusal of the call's credentials is evidence for CONN-AUTH-02 only (never the endpoints' failure), and no bot was created.
        ['CONN-EP1-01', 'not-judged', /→ 401: the call was refused for its credentials \(see CONN-AUTH-02\)/],
        ['CONN-EP2-01', 'not-judged', /→ 401: the call was refused for its credentials \(see CONN-AUTH-02\)/], ['CONN-CONC-01', 'not-judged', /No bot was created/],
        ['CONN-TIME-01', 'not-judged', /answered no configuration call with 2xx/], ['CONN-EP7-01', 'not-judged', /No bot was created/],
      ],
      // Its refusals are JSON: CONN-JSON-01 is judged on what it answered.
      onlyPass: ['CONN-HTTPS-01', 'CONN-JSON-01'], onlyFail: ['CONN-AUTH-02'],
      repro: [['CONN-AUTH-02', /status 401/]],
    },
    {
      name: 'a connector sharing state across conversations', mode: { sharedState: true }, code: 1, workers: 1,
      expect: [['CONN-CONC-01', 'fail', /held alone it was answered .* at once it was answered/], ['CONN-SCEN-01', 'pass'], ['CONN-EP7-02', 'pass']],
      repro: [['CONN-CONC-01', 'rerun']],
    },
    {
      name: 'a connector answering the right shapes with another conversation\'s id', mode: { wrongConversation: true }, code: 1,
      expect: [['CONN-CONC-01', 'fail', /carries idConversation "[0-9a-f-]{36}", another conversation's/], ['CONN-EP7-02', 'pass']],
      // Endpoint 5 late and endpoint 7 answering operator messages: clauses of their own, beside the conversation ids.
      faults: [
        { name: 'slow first messages', faults: [{ endpoint: 'first-messages', delayMs: 2_600 }], fail: ['CONN-EP5-01'] },
        { name: 'replies to operator messages', faults: [{ endpoint: 'messages', replyToOperator: true }], fail: ['CONN-LOOP-01', 'CONN-LOOP-02'] },
      ],
    },
    {
      name: 'a bot judged with --conversations 1', mode: { sharedState: true }, args: ['--conversations', '1'], code: 0,
      expect: [['CONN-CONC-01', 'not-judged', /--conversations 1/]],
    },
  ];
  for (const row of ROWS) {
    test(row.name, async (t) => {
      const fake = await startFakeConnector({ tls: folder.tls.server, secret: CONNECTOR_SECRET });
      try {
        const control = async (route: string, body: object) => {
          const res = await http({ method: 'POST', url: `${fake.controlUrl}/${route}`, headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.controlToken}` }, body: JSON.stringify(body) }, agentFor(folder.caFile));
          assert.equal(res.status, 200, `${route}: ${res.text}`);
        };
        await control('mode', row.mode);
        for (const f of (row.faults ?? []).flatMap((x) => x.faults)) await control('faults', f);
        const r = await runCheck(folder.work, ['connector', fake.url, '--secret', CONNECTOR_SECRET, '--ca-file', folder.caFile, '--script', script, ...(row.args ?? [])], { workers: row.workers });
        assert.equal(r.code, row.code, `${row.name}: exit code\n${tail(r)}`);
        for (const [id, verdict, why] of row.expect) {
          assert.equal(r.verdicts.get(id), verdict, `${row.name}: ${id}\n${saidAbout(r, id)}\n${tail(r)}`);
          if (why) assert.match(saidAbout(r, id), why, `${row.name}: the reason of ${id}`);
        }
        if (row.onlyPass) {
          const passed = [...r.verdicts.entries()].filter(([id, v]) => id.startsWith('CONN-') && v === 'pass' && !row.onlyPass!.includes(id)).map(([id]) => id);
          assert.deepEqual(passed, [], `${row.name}: nothing passes without evidence`);
        }
        for (const f of row.faults ?? []) await t.test(`fault "${f.name}" is reported under ${f.fail.join(', ')}`, () => assertMode(r, f.name, f.fail, [], [], row.code));
        if (row.onlyFail) {
          assertMode(r, row.name, row.onlyFail, [], [], row.code);
          assert.deepEqual([...r.verdicts].filter(([, v]) => v === 'fail').map(([id]) => id), row.onlyFail, `${row.name}: no other clause fails`);
        }
        if (row.code === 0) assert.deepEqual([...r.verdicts.entries()].filter(([, v]) => v === 'fail' || v === 'harness-error'), [], 'no FAIL, no HARNESS ERROR');
        assert.match(r.out, /idConnectorVersion [0-9a-f-]{36}/, 'one idConnectorVersion, printed');
        const versions = new Set(fake.state.log.map((x) => x.query.idConnectorVersion).filter(Boolean));
        assert.equal(versions.size, 1, `one idConnectorVersion per run (${[...versions].join(', ')})`);
        for (const [id, shows] of row.repro ?? []) {
          const k = checksOf(r).find((c) => c.clauses.includes(id) && c.outcome === 'failed');
          assert.ok(k?.reproductions?.length, `${row.name}: ${id} has a reproduction`);
          assert.ok(!k!.reproductions![0]!.includes(CONNECTOR_SECRET), 'the secret is never in clear');
          assert.match(k!.reproductions![0]!, /\$CES_SECRET/);
          if (shows === 'rerun') {
            const { rerun, rest } = partReproduction(k!.reproductions![0]!);
            assertRerunCommand(rerun, 'connector', fake.url, folder.caFile, id);
            assert.ok(rerun!.includes(` --script '${script}'`), `${row.name}: the re-run command gives the run's script`);
            assert.ok(rest.split('\n').every((l) => l.startsWith('#')), `${row.name}: the re-run command is the reproduction`);
          } else assert.match(await runReproduction(folder.work, k!.reproductions![0]!, CONNECTOR_SECRET), shows, `${row.name}: the reproduction of ${id} shows the failure`);
        }
      } finally { await fake.close(); }
    });
  }
});

