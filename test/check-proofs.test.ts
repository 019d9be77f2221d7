// Proofs of the connector and receiver clauses no other partner variant broke (issue 24): a fake connector with one mistake per clause, each failing that clause's own check with a reason naming the mistake and nothing else; plain-http partners failing the HTTPS clauses with no call made.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createServer } from 'node:http';
import { startFakeConnector, type ConnectorMode } from '../fake-connector/server.js';
import { REFERENCE_SCRIPT } from '../check/settings.js';
import { FIXTURES } from '../lib/paths.js';
import { LIMITS } from '../lib/limits.js';
import { http, agentFor } from '../lib/http.js';
import { CONNECTOR_SECRET, RECEIVER_SECRET, PARALLEL_RUNS, checkFolder, runCheck, tail, areaIds, saidAbout, type CheckRun } from './check-support.js';

const folder = checkFolder();

/**
 * How late PUT /bots answers: over the 10 s limit with its 100 ms tolerance whatever the load (the checker's clock starts before
 * it sends), and 900 ms before it gives up at 11.1 s (so the bot is created and every clause needing it is still judged,
 * CONN-EP2-01 included; a loaded machine added 200 ms).
 */
const LATE_PUT_MS = LIMITS.configEndpointTimeoutMs + 200;

/** The visitor text whose answer carries a reply type the spec does not have (the last step of the reference script). */
const TYPING_TEXT = 'transfer support';

/**
 * The mistakes of one connector, each on clauses no other one touches (one `ces check` run judges them all): the clause, the
 * pattern its FAIL reason must match (naming the mistake), and how the mistake is set through the control API.
 */
const MISTAKES: Array<{ clause: string; why: RegExp; what: string }> = [
  { clause: 'CONN-TIME-01', what: `PUT /bots answered after ${LATE_PUT_MS} ms (a fault)`, why: /endpoint 2 PUT \/bots\/\{idOperator\} answered in 1[01]\d{3} ms; limit 10000 ms/ },
  { clause: 'CONN-EP1-03', what: 'editorUrl listed as a path (relativeEditorUrl)', why: /editorUrl must be a URI .*\[0\]\.editorUrl = "\/scenarios\/demo\/edit"/ },
  { clause: 'CONN-EP2-02', what: "PUT answering the connector's own bot id (putAnswersOwnId)", why: /idOperator must be the one of the path \(ces-check-[^)]+\)[\s\S]*"bot-1"/ },
  { clause: 'CONN-EP3-02', what: "GET answering the scenario's name as idBot (getNameAsIdBot)", why: /external\.idBot must be the scenario of the bot \(demo\)[\s\S]*"Demo assistant"/ },
  { clause: 'CONN-EP4-03', what: 'customAvailability with `available` (misspelledAvailability)', why: /customAvailability needs availability \(Boolean\): \{"strategy":"customAvailability","available":true\}/ },
  { clause: 'CONN-EP7-02', what: `a "typing" reply to "${TYPING_TEXT}" (a script)`, why: new RegExp(`"${TYPING_TEXT}"\\) replies\\[0\\]: .*type`) },
  // A conversation is held when each answer is timely and schema-valid: an invalid reply breaks both clauses (SCEN-01 is their sum).
  { clause: 'CONN-SCEN-01', what: `the same "typing" reply`, why: new RegExp(`every visitor message must get a timely, schema-valid answer: "${TYPING_TEXT}": .*replies/0/type`) },
];

/** Clauses of the parts the mistakes leave correct, next to them (same endpoints, same answers): each must still pass. */
const STILL_PASS = [
  'CONN-HTTPS-01', 'CONN-JSON-01', 'CONN-AUTH-02', 'CONN-EP1-01', 'CONN-EP1-02', 'CONN-EP1-04', 'CONN-EP2-01', 'CONN-EP3-01', 'CONN-EP4-01',
  'CONN-BOT-DATES-01', 'CONN-EP5-01', 'CONN-EP6-01', 'CONN-EP6-02', 'CONN-CONV-DATES-01', 'CONN-EP7-01', 'CONN-LOOP-02', 'CONN-TEXT-01',
  'CONN-TRANSFER-01', 'CONN-TRANSFER-03', 'CONN-CONC-01',
];

const control = async (controlUrl: string, token: string, route: string, body: unknown) => {
  const res = await http({ method: 'POST', url: `${controlUrl}/${route}`, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) }, agentFor(folder.caFile));
  assert.equal(res.status, 200, `${route}: ${res.text}`);
};

/** A plain-http partner that counts the calls it gets (there must be none: the service never calls an http:// URL). */
async function plainHttpPartner(): Promise<{ url: string; calls: () => number; close(): Promise<void> }> {
  let calls = 0;
  const server = createServer((_req, res) => { calls++; res.writeHead(200, { 'content-type': 'application/json' }).end('[]'); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, calls: () => calls, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function assertOnlyHttpsFails(r: CheckRun, area: 'connector' | 'receiver', clause: string, url: string): void {
  assert.equal(r.code, 1, `exit code: a MUST failed\n${tail(r)}`);
  assert.equal(r.verdicts.get(clause), 'fail', `${clause}\n${saidAbout(r, clause)}\n${tail(r)}`);
  assert.ok(saidAbout(r, clause).includes(`${url}`) && /must use HTTPS/.test(saidAbout(r, clause)), `the reason names the URL and HTTPS: ${saidAbout(r, clause)}`);
  const others = areaIds(area).filter((id) => id !== clause && r.verdicts.get(id) !== 'skipped').map((id) => `${id}=${r.verdicts.get(id)}`);
  assert.deepEqual(others, [], 'every other clause is skipped (the service would not call the URL)');
  assert.match(saidAbout(r, areaIds(area).find((id) => id !== clause)!), /the URL is not HTTPS/);
  assert.match(r.out, /the URL is not HTTPS/, 'the terminal says why the other checks were skipped');
}

describe('proofs of the clauses no other partner variant broke: each mistake fails its own clause, naming it, and nothing else', { concurrency: PARALLEL_RUNS }, () => {
  test(`a connector with ${MISTAKES.length - 1} mistakes on disjoint clauses: ${MISTAKES.map((m) => m.clause).join(', ')} fail, the rest of it passes`, async (t) => {
    const fake = await startFakeConnector({ tls: folder.tls.server, secret: CONNECTOR_SECRET });
    try {
      const mode: ConnectorMode = { relativeEditorUrl: true, putAnswersOwnId: true, getNameAsIdBot: true, misspelledAvailability: true };
      await control(fake.controlUrl, fake.controlToken, 'mode', mode);
      await control(fake.controlUrl, fake.controlToken, 'faults', { endpoint: 'bot-put', delayMs: LATE_PUT_MS });
      // The demo scenario's answer to TYPING_TEXT, with a typing indicator first: a reply type of another platform.
      const demo = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'scenarios', 'demo.json'), 'utf8'));
      const replies = demo.responses.find((x: { text: string }) => x.text === TYPING_TEXT).replies;
      await control(fake.controlUrl, fake.controlToken, 'scenario', { text: TYPING_TEXT, replies: [{ type: 'typing' }, ...replies] });

      const r = await runCheck(folder.work, ['connector', fake.url, '--secret', CONNECTOR_SECRET, '--ca-file', folder.caFile, '--script', JSON.stringify(REFERENCE_SCRIPT)], { workers: 2 });
      assert.equal(r.code, 1, `exit code\n${tail(r)}`);
      for (const m of MISTAKES) {
        assert.equal(r.verdicts.get(m.clause), 'fail', `${m.what}: ${m.clause}\n${saidAbout(r, m.clause)}\n${tail(r)}`);
        assert.match(saidAbout(r, m.clause), m.why, `${m.what}: the reason of ${m.clause} names the mistake`);
        // The reason in the test's output: what a reader of the proof record can check it by.
        t.diagnostic(`${m.clause} FAIL (${m.what}): ${saidAbout(r, m.clause).replace(/\s+/g, ' ').slice(0, 300)}`);
      }
      const failed = [...r.verdicts].filter(([, v]) => v === 'fail' || v === 'harness-error').map(([id, v]) => `${id}=${v}`).sort();
      assert.deepEqual(failed, MISTAKES.map((m) => `${m.clause}=fail`).sort(), `no other clause fails\n${tail(r)}`);
      const notPassed = STILL_PASS.filter((id) => r.verdicts.get(id) !== 'pass').map((id) => `${id}=${r.verdicts.get(id)}: ${saidAbout(r, id)}`);
      assert.deepEqual(notPassed, [], 'the correct parts beside the mistakes pass');
      // A customAvailability strategy alone leaves no atLeastOne/all strategy to judge: not judged, never failed.
      assert.equal(r.verdicts.get('CONN-EP4-02'), 'not-judged', saidAbout(r, 'CONN-EP4-02'));
      // The mistakes were made: the bot was created late, under the path's idOperator, and its conversation got the typing reply.
      const put = fake.state.log.find((x) => x.endpoint === 'bot-put');
      assert.ok(put?.answer?.status === 200 && put.answer.ms >= LATE_PUT_MS, `PUT answered 200 after ${LATE_PUT_MS} ms (${JSON.stringify(put?.answer?.ms)})`);
      assert.equal((put!.answer!.body as { idOperator?: string }).idOperator, 'bot-1');
      assert.ok(fake.state.log.some((x) => x.text === TYPING_TEXT && Array.isArray((x.answer?.body as { replies?: unknown[] })?.replies) && (x.answer!.body as { replies: Array<{ type: string }> }).replies[0]!.type === 'typing'));
    } finally { await fake.close(); }
  });

  test('a plain-http connector fails CONN-HTTPS-01 and a plain-http webhook receiver RECV-HTTPS-01, exit 1, with no call made', async () => {
    const partner = await plainHttpPartner();
    try {
      const connector = await runCheck(folder.work, ['connector', partner.url, '--secret', CONNECTOR_SECRET]);
      assertOnlyHttpsFails(connector, 'connector', 'CONN-HTTPS-01', partner.url);
      const hooks = `${partner.url}/hooks`;
      const receiver = await runCheck(folder.work, ['webhook-receiver', hooks, '--secret', RECEIVER_SECRET]);
      assertOnlyHttpsFails(receiver, 'receiver', 'RECV-HTTPS-01', hooks);
      assert.equal(partner.calls(), 0, 'no call reached the plain-http partner (no pre-flight, no check)');
    } finally { await partner.close(); }
  });
});
