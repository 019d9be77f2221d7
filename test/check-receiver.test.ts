// Project tests of `ces check webhook-receiver`: a correct receiver and the webhook sink pass, each receiver mistake and sink plan is reported under its clause, no secret in the reports.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findLeaks } from '../lib/results.js';
import { startIntegratorReceiver, type ReceiverMistake } from './fixtures/integrator-receiver.js';
import { startWebhookSink } from '../webhook-sink/server.js';
import { http, agentFor } from '../lib/http.js';
import { RECEIVER_SECRET, PARALLEL_RUNS, checkFolder, runCheck, tail, areaIds, assertMode } from './check-support.js';

const folder = checkFolder();

describe('ces check webhook-receiver', { concurrency: PARALLEL_RUNS }, () => {
  const MODES: Array<{ mistake: ReceiverMistake; fail?: string[]; warn?: string[]; workers?: number }> = [
    { mistake: 'status-500', fail: ['RECV-ANSWER-01', 'RECV-RETRY-01'] },
    { mistake: 'slow', warn: ['RECV-FAST-01'], workers: 2 },
    { mistake: 'no-signature-check', warn: ['RECV-SIG-01', 'RECV-SIG-02'] },
    { mistake: 'dedupe-correlation', fail: ['RECV-RETRY-01'] },
  ];

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

  for (const m of MODES) {
    test(`receiver mistake ${m.mistake} is reported under ${[...(m.fail ?? []), ...(m.warn ?? [])].join(', ')}`, async () => {
      const rcv = await startIntegratorReceiver({ cert: folder.tls.server.cert, key: folder.tls.server.key, secret: RECEIVER_SECRET, mistake: m.mistake });
      try {
        const r = await runCheck(folder.work, ['webhook-receiver', rcv.url, '--secret', RECEIVER_SECRET, '--ca-file', folder.caFile], { workers: m.workers });
        assertMode(r, m.mistake, m.fail, m.warn);
      } finally { await rcv.close(); }
    });
  }

  const SINK_PLANS: Array<{ name: string; plan: object; fail?: string[]; warn?: string[] }> = [
    { name: 'answers 500', plan: { match: {}, answers: [], then: 500 }, fail: ['RECV-ANSWER-01'] },
    { name: 'answers after 2.5 s', plan: { match: {}, answers: [], then: { status: 200, delayMs: 2_500 } }, warn: ['RECV-FAST-01'] },
    { name: 'refuses a retry with 409', plan: { match: {}, answers: [200], then: 409 }, fail: ['RECV-RETRY-01'] },
  ];
  for (const p of SINK_PLANS) {
    test(`webhook sink plan "${p.name}" is reported under ${[...(p.fail ?? []), ...(p.warn ?? [])].join(', ')}`, async () => {
      const sink = await startWebhookSink({ tls: folder.tls.server, secret: RECEIVER_SECRET });
      try {
        const res = await http({ method: 'POST', url: `${sink.controlUrl}/plan`, headers: { 'content-type': 'application/json', authorization: `Bearer ${sink.controlToken}` }, body: JSON.stringify(p.plan) }, agentFor(folder.caFile));
        assert.equal(res.status, 201, `plan accepted: ${res.text}`);
        const r = await runCheck(folder.work, ['webhook-receiver', `${sink.url}/hooks`, '--secret', RECEIVER_SECRET, '--ca-file', folder.caFile], { workers: 2 });
        for (const id of p.fail ?? []) assert.equal(r.verdicts.get(id), 'fail', `${id}\n${tail(r)}`);
        for (const id of p.warn ?? []) assert.equal(r.verdicts.get(id), 'warn', `${id}\n${tail(r)}`);
        assert.equal(r.code, p.fail?.length ? 1 : 0, tail(r));
      } finally { await sink.close(); }
    });
  }

  test('the webhook sink in its default plan has zero MUST failures', async () => {
    const sink = await startWebhookSink({ tls: folder.tls.server, secret: RECEIVER_SECRET });
    try {
      const r = await runCheck(folder.work, ['webhook-receiver', `${sink.url}/hooks`, '--secret', RECEIVER_SECRET, '--ca-file', folder.caFile]);
      assert.equal(r.code, 0, tail(r));
      for (const id of ['RECV-HTTPS-01', 'RECV-ANSWER-01', 'RECV-FAST-01', 'RECV-RETRY-01']) assert.equal(r.verdicts.get(id), 'pass', `${id}\n${tail(r)}`);
    } finally { await sink.close(); }
  });
});

