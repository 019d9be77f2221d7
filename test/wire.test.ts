// The wire faults (issue 29): the catalogue, the proxy's edits and re-signing, `ces selftest --wire` against a target file, and two of the patterns shown fixed under `ces test --wire-fault`.
import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent } from 'undici';
import { ROOT } from '../lib/paths.js';
import { generateTls } from '../lib/tls.js';
import { sign, verify } from '../lib/signature.js';
import { http } from '../lib/http.js';
import { loadClauses } from '../lib/catalogue.js';
import { startFakeConnector } from '../fake-connector/server.js';
import { startWebhookSink } from '../webhook-sink/server.js';
import { startWireProxy } from '../wire/proxy.js';
import { applyWireEdits, editQuery, faultProblems, loadWireFaults, signatureFor, SIGN_MODES, type WireFault } from '../wire/faults.js';
import type { RunSummary } from '../lib/landing.js';
import { runCesReported } from './ces-process.js';

const clauseIds = new Set(loadClauses().map((c) => c.id));
const CES = path.join(ROOT, 'bin', 'ces.js');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-wire-test-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

test('the catalogue: at least 40 faults over the connector calls and the webhook deliveries, each valid and naming known clauses', () => {
  const faults = loadWireFaults(clauseIds);
  assert.ok(faults.length >= 40, `${faults.length} wire faults`);
  assert.ok(faults.filter((f) => f.partner === 'connector').length >= 20 && faults.filter((f) => f.partner === 'sink').length >= 20);
  const endpoints = new Set(faults.flatMap((f) => f.where?.endpoint ?? []));
  for (const e of ['external-bots', 'bot-put', 'bot-get', 'availability', 'first-messages', 'conversation-create', 'messages']) assert.ok(endpoints.has(e), `a fault on ${e} (endpoints 1-7)`);
  // Each pattern of issue 29 is shown fixed by at least one fault that says what let it pass before.
  assert.ok(faults.filter((f) => f.missedBefore).length >= 4);
});

test('a malformed fault is refused with what is wrong', () => {
  assert.match(faultProblems({ id: 'x', clauses: ['NOPE'], partner: 'bus', description: '' }, clauseIds).join('; '), /"wire-".*NOPE is not in the catalogue.*description.*partner/);
  assert.match(faultProblems({ id: 'wire-a', clauses: ['WH-SIG-01'], partner: 'sink', description: 'd' }, clauseIds).join(), /changes nothing/);
  assert.match(faultProblems({ id: 'wire-a', clauses: ['WH-SIG-01'], partner: 'sink', description: 'd', request: { body: [{ at: 'a', as: 'sideways' }] } } as unknown as WireFault, clauseIds).join(), /"as" is one of/);
});

test('edits: JSON edits plus push and merge; query edits keep the rest; every sign mode but the correct one fails verification', () => {
  assert.deepEqual(applyWireEdits({ replies: [{ type: 'a' }] }, [{ at: 'replies', push: { type: 'b' } }, { at: 'replies.*', merge: { x: 1 } }, { at: 'replies', as: 'reverse' }]), { replies: [{ type: 'b', x: 1 }, { type: 'a', x: 1 }] });
  assert.equal(editQuery('idConnectorVersion=v&idWebsite=1&idOperator=7', [{ param: 'idWebsite', drop: true }, { param: 'idOperator', set: '8' }]), 'idConnectorVersion=v&idOperator=8');
  assert.deepEqual(verify('s', 'a=1', signatureFor('correct', 's', 'a=1', 'GET')), { ok: true });
  for (const mode of SIGN_MODES) assert.equal(verify('s', '{"a":1}', signatureFor(mode, 's', '{"a":1}', 'POST')).ok, false, mode);
});

test('the proxy: control API guarded; what it changes reaches the partner re-signed; drop, answer edits and repeats', { timeout: 30_000 }, async () => {
  const tls = generateTls();
  const connectorSecret = 'wire-test-connector';
  const connector = await startFakeConnector({ tls: tls.server, secret: connectorSecret });
  const sink = await startWebhookSink({ tls: tls.server, secret: 'unused' });
  const faults: WireFault[] = [
    { id: 'wire-t-query', clauses: ['BOT-QUERY-01'], partner: 'connector', description: 'd', where: { endpoint: ['external-bots'] }, request: { query: [{ param: 'idWebsite', drop: true }] } },
    { id: 'wire-t-answer', clauses: ['BOT-SETUP-01'], partner: 'connector', description: 'd', where: { endpoint: ['external-bots'] }, answer: { status: [[200, 503]], body: [{ at: '$', set: [] }] } },
    { id: 'wire-t-repeat', clauses: ['WH-RETRY-01'], partner: 'sink', description: 'd', where: { attempt: [1] }, request: { body: [{ at: 'eventId', set: 'changed' }] }, repeat: { afterMs: 50 } },
    { id: 'wire-t-drop', clauses: ['WH-RETRY-01'], partner: 'sink', description: 'd', drop: { status: 503 } },
  ];
  const proxy = await startWireProxy({ tls: tls.server, ca: [tls.ca.cert], connectorUpstream: connector.url, sinkUpstream: sink.url, connectorSecret, controlToken: 'tok', faults });
  const agent = new Agent({ connect: { ca: [tls.ca.cert] } });
  try {
    const ctl = (body: unknown, token = 'tok') => http({ method: 'POST', url: `${proxy.controlUrl}/fault`, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }, agent);
    assert.equal((await ctl({ id: null }, 'wrong')).status, 401);
    assert.equal((await ctl({ id: 'wire-nope' })).status, 400);
    const q = 'idConnectorVersion=0b6e5c2e-51a3-4e7c-9d8a-2c4b7f0e1a11&idWebsite=1';
    const get = () => http({ method: 'GET', url: `${proxy.connectorUrl}/external-bots?${q}`, headers: { 'x-service-signature': sign(connectorSecret, q) } }, agent);
    assert.equal((await get()).status, 200, 'no fault: passes unchanged');
    assert.equal((await ctl({ id: 'wire-t-query' })).status, 200);
    assert.equal((await get()).status, 200);
    const rec = connector.state.log.at(-1)!;
    assert.equal(rec.query.idWebsite, undefined, 'the connector received the query without idWebsite');
    assert.deepEqual(rec.signature, { ok: true }, 'signed again with the connector secret');
    await ctl({ id: 'wire-t-answer' });
    const edited = await get();
    assert.equal(edited.status, 503);
    assert.deepEqual(edited.json, []);
    const applied = await http({ method: 'GET', url: `${proxy.controlUrl}/fault`, headers: { authorization: 'Bearer tok' } }, agent);
    assert.equal(applied.json.fault, 'wire-t-answer');
    assert.ok(applied.json.applied.length > 0, 'what it changed is listed');

    // The sink side: the subscription's secret given to the proxy, a delivery changed and re-signed, then sent again.
    await http({ method: 'POST', url: `${proxy.controlUrl}/secrets`, headers: { authorization: 'Bearer tok', 'content-type': 'application/json' }, body: JSON.stringify({ path: '/hooks/a', secret: 'sub-secret' }) }, agent);
    await ctl({ id: 'wire-t-repeat' });
    const body = JSON.stringify({ eventId: 'e1', eventType: 'user.created', userId: 1 });
    const post = (p: string) => http({ method: 'POST', url: `${proxy.sinkUrl}${p}`, headers: { 'content-type': 'application/json', 'x-service-signature': sign('sub-secret', body), 'x-service-correlationid': 'c1', 'x-service-delivery': 'd1' }, body }, agent);
    assert.equal((await post('/hooks/a')).status, 200);
    const got = await sink.waitFor({ path: '/hooks/a' }, 2, 3_000);
    assert.equal(got.deliveries.length, 2, 'the delivery and its repeat');
    for (const d of got.deliveries) {
      assert.equal((d.json as { eventId: string }).eventId, 'changed');
      assert.deepEqual(verify('sub-secret', Buffer.from(d.bodyBase64, 'base64'), d.headers['x-service-signature']), { ok: true });
    }
    assert.notEqual(got.deliveries[0]!.deliveryId, got.deliveries[1]!.deliveryId, 'a repeat has a new X-Service-Delivery');
    await ctl({ id: 'wire-t-drop' });
    assert.equal((await post('/hooks/b')).status, 503, 'dropped: the proxy answers');
    assert.equal(sink.deliveries({ path: '/hooks/b' }).length, 0, 'nothing reached the sink');
  } finally {
    await proxy.close();
    await agent.close();
    await connector.close();
    await sink.close();
  }
});

/** Runs `ces <args>` with its reports in a folder of its own; its exit code, output and summary. */
const ces = (args: string[]) => runCesReported(args, work);

// Three runs of `ces` at once: they mostly wait (real-time limits, polls), each on its own stack.
describe('ces runs with wire faults', { concurrency: true }, () => {
  let serve: ChildProcess | undefined;
  let ready = '';
  before(async () => {
    ready = path.join(work, 'ready.json');
    serve = spawn(process.execPath, [CES, 'serve', '--wire', '--ready-file', ready], { cwd: ROOT, stdio: 'ignore' });
    const deadline = Date.now() + 60_000;
    while (!fs.existsSync(ready) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  });
  after(() => { serve?.kill('SIGKILL'); });
  
  test('ces selftest --wire --target: the faults switched on a target\'s own proxy (`ces serve --wire`), each caught', { timeout: 180_000 }, async () => {
    assert.ok(JSON.parse(fs.readFileSync(ready, 'utf8')).wire_url, 'the ready file names the proxy');
    const r = await ces(['selftest', '--wire', '--target', ready, '--only', 'wire-ep7-answer-reversed,wire-wh-signature-other-secret', '--no-baseline']);
    assert.equal(r.code, 0, r.out.slice(-2000));
    assert.deepEqual(r.summary.wireFaults?.map((w) => [w.fault, w.caught, w.failedClauses]), [['wire-ep7-answer-reversed', true, ['BOT-EP7-04']], ['wire-wh-signature-other-secret', true, ['WH-SIG-01']]]);
    assert.deepEqual(r.summary.mutations, [], 'no deviation runs against a target file');
  });
  
  test('a failure names its cause: polls signed wrongly fail BOT-SIG-01 quoting the connector\'s log; the checks that need an available bot are NOT JUDGED naming it', { timeout: 180_000 }, async () => {
    const r = await ces(['test', '--suite', 'bot-runtime', '--grep', '@BOT-SIG-01|a close reply closes', '--wire-fault', 'wire-ep4-signed-with-mark', '--no-allure', '--workers', '1']);
    const sig = r.summary.checks.find((c) => c.title.includes('every connector call carries'));
    assert.equal(sig?.outcome, 'failed', r.out.slice(-2000));
    assert.match(String(sig?.reason), /availability-strategies\?.*→ 401/, 'the reason quotes the connector\'s log');
    const close = r.summary.checks.find((c) => c.title.includes('a close reply closes'));
    assert.equal(close?.outcome, 'not-judged', r.out.slice(-2000));
    assert.match(String(close?.reason), /refused.*BOT-SIG-01/s);
  });
  
  test('a creation flow the connector refuses (its GET calls signed wrongly): BOT-SIG-01 FAIL, exit 1; the lab-bot checks NOT JUDGED naming the failed flow, never a crash of their tear-down', { timeout: 180_000 }, async () => {
    const r = await ces(['test', '--suite', 'bot-runtime', '--grep', 'lab bot|every connector call carries', '--wire-fault', 'wire-creation-gets-signed-with-mark', '--no-allure', '--workers', '1']);
    assert.equal(r.code, 1, r.out.slice(-2000));
    assert.equal(r.summary.verdicts.find((v) => v.id === 'BOT-SIG-01')?.verdict, 'fail', r.out.slice(-2000));
    assert.deepEqual(r.summary.checks.filter((c) => c.outcome === 'harness-error').map((c) => c.title), [], 'no harness error');
    const lab = r.summary.checks.filter((c) => c.title.startsWith('lab bot'));
    assert.ok(lab.length >= 10, `the lab-bot checks ran (${lab.length})`);
    for (const c of lab) {
      assert.equal(c.outcome, 'not-judged', `${c.title}: ${c.reason}`);
      assert.match(String(c.reason), /bot creation flow of the seeded bots failed.*external-bots/s, c.title);
    }
  });

  test('no group hides results: under a fault that fails one lab-bot check, the others still run and pass', { timeout: 180_000 }, async () => {
    const r = await ces(['test', '--suite', 'bot-runtime', '--grep', '@BOT-AVAIL-0[1-4]\\b', '--wire-fault', 'wire-ep4-answer-all-as-atleastone', '--no-allure', '--workers', '1']);
    const outcomes = r.summary.checks.map((c) => `${c.outcome}: ${c.title.replace(/.*› /, '')}`);
    assert.deepEqual(outcomes.filter((o) => o.startsWith('failed')), ['failed: strategy all over an available and an empty rule: unavailable'], r.out.slice(-2000));
    assert.equal(outcomes.filter((o) => o.startsWith('passed')).length, 6, outcomes.join('\n'));
  });
});
