// Project tests of `ces check webhook-receiver`: a correct receiver and the webhook sink pass, each receiver mistake and sink plan is reported under its clause, no secret in the reports.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findLeaks } from '../lib/results.js';
import { startIntegratorReceiver, type ReceiverMistake } from './fixtures/integrator-receiver.js';
import { startWebhookSink } from '../webhook-sink/server.js';
import { http, agentFor } from '../lib/http.js';
import { RECEIVER_SECRET, PARALLEL_RUNS, checkFolder, runCheck, tail, areaIds, assertMode, clausesOf, checksOf } from './check-support.js';

const folder = checkFolder();

describe('ces check webhook-receiver', { concurrency: PARALLEL_RUNS }, () => {
  /**
   * Receiver mistakes → clauses that must FAIL (MUST) or WARN (SHOULD). Mistakes that touch different clauses share one
   * `ces check` run (each run is a Playwright launch): in a run, no mistake fails or warns a clause asserted for another, each
   * measured alone. The slow run (3 s per delivery) has two workers: one more worker's start (~1.7 CPU-s) halves its time.
   * A receiver refusing every delivery with 5xx (RECV-ANSWER-01 FAIL; the retry, signature and time clauses NOT JUDGED, a
   * refusal proving nothing about them) is the webhook sink refusing every first attempt (test/check-evidence.test.ts, each
   * clause's verdict asserted) and the sink answering 500 below.
   */
  const RUNS: Array<{ modes: Array<{ mistake: ReceiverMistake; fail?: string[]; warn?: string[] }>; workers?: number }> = [
    { modes: [{ mistake: 'slow', warn: ['RECV-FAST-01'] }, { mistake: 'no-signature-check', warn: ['RECV-SIG-01', 'RECV-SIG-02'] }, { mistake: 'dedupe-correlation', fail: ['RECV-RETRY-01'] }], workers: 2 },
  ];

  for (const run of RUNS) {
    test(`receiver mistakes ${run.modes.map((m) => m.mistake).join(', ')} in one run`, async (t) => {
      const rcv = await startIntegratorReceiver({ cert: folder.tls.server.cert, key: folder.tls.server.key, secret: RECEIVER_SECRET, mistakes: run.modes.map((m) => m.mistake) });
      try {
        const r = await runCheck(folder.work, ['webhook-receiver', rcv.url, '--secret', RECEIVER_SECRET, '--ca-file', folder.caFile], { workers: run.workers });
        const code = run.modes.some((m) => m.fail?.length) ? 1 : 0;
        for (const m of run.modes) await t.test(`receiver mistake ${m.mistake} is reported under ${clausesOf(m)}`, () => assertMode(r, m.mistake, m.fail, m.warn, [], code));
        // Alone, a mistake that only warns exits 0 (it fails no MUST): in a shared run, no clause fails but those asserted.
        const failed = [...r.verdicts].filter(([id, v]) => id.startsWith('RECV-') && v === 'fail').map(([id]) => id).sort();
        assert.deepEqual(failed, [...new Set(run.modes.flatMap((m) => m.fail ?? []))].sort(), `only the clauses asserted fail\n${tail(r)}`);
      } finally { await rcv.close(); }
    });
  }

  test('a correct receiver passes every receiver clause, no secret in the reports', async () => {
    const rcv = await startIntegratorReceiver({ cert: folder.tls.server.cert, key: folder.tls.server.key, secret: RECEIVER_SECRET });
    try {
      const r = await runCheck(folder.work, ['webhook-receiver', rcv.url, '--secret', RECEIVER_SECRET, '--ca-file', folder.caFile]);
      assert.equal(r.code, 0, tail(r));
      const notPassed = areaIds('receiver').filter((id) => r.verdicts.get(id) !== 'pass').map((id) => `${id}=${r.verdicts.get(id)}`);
      assert.deepEqual(notPassed, [], tail(r));
      // Every event kind arrived with the real headers, each delivery with its own id.
      const kinds = new Set(rcv.received.map((d) => d.eventType));
      for (const k of ['v2.conversation.pushed', 'v2.conversation.closed', 'conversation.started', 'visitor.updated', 'user.created', 'user.updated']) assert.ok(kinds.has(k), `${k} delivered`);
      assert.equal(new Set(rcv.received.map((d) => d.deliveryId)).size, rcv.received.length, 'X-Service-Delivery is unique per delivery');
      assert.deepEqual(findLeaks(r.dir, [RECEIVER_SECRET]), []);
    } finally { await rcv.close(); }
  });

  /**
   * Sink plans of disjoint clauses in one sink and one `ces check` run (each run is a Playwright launch): every first attempt
   * answered after 2.5 s (RECV-FAST-01 WARN) and its retry refused with 409 (RECV-RETRY-01 FAIL), and user.updated, which only
   * RECV-ANSWER-01's checks deliver, answered 500 (its FAIL). The later plan is matched first (the sink's newest plan wins).
   */
  const SINK_PLANS: Array<{ name: string; plan: object; fail?: string[]; warn?: string[] }> = [
    { name: 'answers after 2.5 s, refuses a retry with 409', plan: { match: {}, answers: [{ status: 200, delayMs: 2_500 }], then: 409 }, warn: ['RECV-FAST-01'], fail: ['RECV-RETRY-01'] },
    { name: 'answers user.updated 500', plan: { match: { eventType: 'user.updated' }, answers: [], then: 500 }, fail: ['RECV-ANSWER-01'] },
  ];
  test(`webhook sink plans ${SINK_PLANS.map((p) => `"${p.name}"`).join(', ')} in one run`, async (t) => {
    const sink = await startWebhookSink({ tls: folder.tls.server, secret: RECEIVER_SECRET });
    try {
      for (const p of SINK_PLANS) {
        const res = await http({ method: 'POST', url: `${sink.controlUrl}/plan`, headers: { 'content-type': 'application/json', authorization: `Bearer ${sink.controlToken}` }, body: JSON.stringify(p.plan) }, agentFor(folder.caFile));
        assert.equal(res.status, 201, `plan accepted: ${res.text}`);
      }
      const r = await runCheck(folder.work, ['webhook-receiver', `${sink.url}/hooks`, '--secret', RECEIVER_SECRET, '--ca-file', folder.caFile]);
      for (const p of SINK_PLANS) {
        await t.test(`webhook sink plan "${p.name}" is reported under ${[...(p.fail ?? []), ...(p.warn ?? [])].join(', ')}`, () => {
          for (const id of p.fail ?? []) assert.equal(r.verdicts.get(id), 'fail', `${id}\n${tail(r)}`);
          for (const id of p.warn ?? []) assert.equal(r.verdicts.get(id), 'warn', `${id}\n${tail(r)}`);
          assert.equal(r.code, 1, tail(r));
        });
      }
      // The 500 is user.updated's only: every other event kind's delivery was accepted (RECV-ANSWER-01 passed for it).
      const answered = checksOf(r).filter((c) => c.clauses.includes('RECV-ANSWER-01')).map((c) => `${c.title}: ${c.outcome}`).sort();
      assert.equal(answered.filter((c) => c.endsWith(': failed')).length, 1, `one event kind answered 500\n${answered.join('\n')}`);
      assert.match(answered.find((c) => c.endsWith(': failed'))!, /user\.updated/);
    } finally { await sink.close(); }
  });

  test('the webhook sink in its default plan has zero MUST failures', async () => {
    const sink = await startWebhookSink({ tls: folder.tls.server, secret: RECEIVER_SECRET });
    try {
      const r = await runCheck(folder.work, ['webhook-receiver', `${sink.url}/hooks`, '--secret', RECEIVER_SECRET, '--ca-file', folder.caFile]);
      assert.equal(r.code, 0, tail(r));
      for (const id of ['RECV-HTTPS-01', 'RECV-ANSWER-01', 'RECV-FAST-01', 'RECV-RETRY-01']) assert.equal(r.verdicts.get(id), 'pass', `${id}\n${tail(r)}`);
    } finally { await sink.close(); }
  });
});

