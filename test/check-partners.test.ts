// The fake connector's partner variants (G23-G25, G28, refusing everything) judged by the check code without Playwright, and the curl reproductions run in a shell against them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { generateTls, type TlsMaterial } from '../lib/tls.js';
import { agentFor, http } from '../lib/http.js';
import { startFakeConnector, type FakeConnector } from '../fake-connector/server.js';
import { ConnectorClient } from '../check/connector-client.js';
import { setupBot } from '../check/conversation.js';
import { concurrencyProblems, holdAlone, holdTogether, soloDifference } from '../check/concurrency.js';
import { REFERENCE_CONCURRENT_SCRIPTS, type ConnectorCheckSettings } from '../check/settings.js';
import { conversationIdWarning, dateWarnings, unlistedFields } from '../check/judge.js';
import { exchangeCurl, deliveryCurl } from '../check/reproduce.js';
import { deliveryHeaders } from '../check/webhook-samples.js';
import { startWebhookSink } from '../webhook-sink/server.js';
import { confirmPartnerDown, partnerDown } from '../check/partner.js';
import { preflight } from '../check/preflight.js';

const SECRET = 'partner-variants-secret-5e1d';
let tls: TlsMaterial;
let dir: string;
let caFile: string;
before(() => {
  tls = generateTls();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-partners-'));
  caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, tls.ca.cert);
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function fakeIn(mode: Record<string, boolean>): Promise<{ fake: FakeConnector; client: ConnectorClient }> {
  const fake = await startFakeConnector({ tls: tls.server, secret: SECRET });
  const res = await http({ method: 'POST', url: `${fake.controlUrl}/mode`, headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.controlToken}` }, body: JSON.stringify(mode) }, agentFor(caFile));
  assert.equal(res.status, 200, res.text);
  const settings: ConnectorCheckSettings = { url: fake.url, secret: SECRET, connectorVersion: '3f0c4d8e-8b1a-4c53-9a57-2f4d7e1b6a90', website: '1', language: 'en', allowHttp: false, unsigned: false, conversations: 3, script: [], origin: 'ces check' };
  const agent = agentFor(caFile);
  return { fake, client: new ConnectorClient(settings, (req) => http(req, agent)) };
}

/** Runs a reproduction in bash as a user would (CES_SECRET set); answers what it printed. Asynchronous: the fakes answer from this process. */
function shell(text: string, secret = SECRET): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', text], { env: { ...process.env, CES_SECRET: secret } });
    let out = '';
    const timer = setTimeout(() => child.kill(), 30_000);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', () => { clearTimeout(timer); resolve(out); });
  });
}

test('mode control: unknown keys and non-booleans are refused naming what is accepted', async () => {
  const fake = await startFakeConnector({ tls: tls.server, secret: SECRET });
  try {
    const res = await http({ method: 'POST', url: `${fake.controlUrl}/mode`, headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.controlToken}` }, body: JSON.stringify({ ownIds: 'yes', bogus: true }) }, agentFor(caFile));
    assert.equal(res.status, 400);
    assert.match(res.text, /ownIds, javaDates, extraFields, refuseAll, sharedState, wrongConversation.*not accepted: ownIds, bogus/);
  } finally { await fake.close(); }
});

test('allowed variants: own conversation ids are joined (WARN), Java dates accepted (WARN), extra fields named (NOTE)', async () => {
  const { fake, client } = await fakeIn({ ownIds: true, javaDates: true, extraFields: true });
  try {
    const bot = await setupBot(client);
    assert.equal(bot.put.status, 200);
    assert.equal(dateWarnings(bot.put.json, false).length, 2);
    assert.deepEqual(unlistedFields('connector/bot.json', bot.put.json), ['locale', '_links']);
    const held = await holdAlone(client, bot.idOperator, REFERENCE_CONCURRENT_SCRIPTS[0]!);
    assert.match(held.connectorConversationId, /^conv-\d+$/);
    assert.match(conversationIdWarning(held.start.json && (held.start.json as any).idConversation) ?? '', /not a UUID/);
    assert.ok(held.steps.every((s) => s.exchange.status === 200 && s.exchange.path === `/conversations/${held.connectorConversationId}/messages`), 'later calls use the joined id');
    const together = await holdTogether(client, bot.idOperator, [...REFERENCE_CONCURRENT_SCRIPTS]);
    const alone = [held, ...(await Promise.all(REFERENCE_CONCURRENT_SCRIPTS.slice(1).map((s) => holdAlone(client, bot.idOperator, s))))];
    assert.deepEqual(concurrencyProblems(alone, together), [], 'a correct connector with its own ids passes G28');
  } finally { await fake.close(); }
});

for (const [mode, shows] of [['sharedState', /held alone it was answered .* at once it was answered/], ['wrongConversation', /carries idConversation "[0-9a-f-]{36}", another conversation's/]] as const) {
  test(`G28: ${mode} is told apart from a correct connector held the same way`, async () => {
    const { fake, client } = await fakeIn({ [mode]: true });
    try {
      const bot = await setupBot(client);
      const scripts = [...REFERENCE_CONCURRENT_SCRIPTS];
      const alone = [];
      for (const s of scripts) alone.push(await holdAlone(client, bot.idOperator, s));
      assert.equal(soloDifference(alone[0]!, await holdAlone(client, bot.idOperator, scripts[0]!)), null, 'deterministic alone');
      const problems = concurrencyProblems(alone, await holdTogether(client, bot.idOperator, scripts));
      assert.ok(problems.length > 0, `${mode} is caught`);
      assert.match(problems.join('\n'), shows);
    } finally { await fake.close(); }
  });
}

test('reproductions: the curl of a refused call shows the refusal; the same curl against a correct connector is accepted (the signature is computed right from $CES_SECRET)', async () => {
  const refusing = await fakeIn({ refuseAll: true });
  const correct = await fakeIn({});
  try {
    const refused = await refusing.client.call(1, 'GET', '/external-bots', { timeoutMs: 5_000 });
    assert.equal(refused.status, 401);
    const repro = exchangeCurl(refused, { caFile });
    assert.ok(!repro.includes(SECRET), 'never the secret in clear');
    assert.match(repro, /\$CES_SECRET/);
    assert.match(await shell(repro), /status 401/);
    const put = await correct.client.call(2, 'PUT', '/bots/op-repro', { body: { name: 'n', pseudo: 'p', language: 'en', distributionRules: [], external: { idBot: 'demo' } }, timeoutMs: 5_000 });
    assert.equal(put.status, 200);
    const ok = await shell(exchangeCurl(put, { caFile }));
    assert.match(ok, /status 200/, ok);
    assert.match(await shell(exchangeCurl(put, { caFile }), 'not-the-secret'), /status 401/, 'the signature really comes from CES_SECRET');
    const get = await correct.client.call(1, 'GET', '/external-bots', { timeoutMs: 5_000 });
    assert.match(await shell(exchangeCurl(get, { caFile })), /status 200/, 'a GET signs the raw query string');
    assert.match(await shell('unset CES_SECRET; ' + exchangeCurl(get, { caFile })), /set CES_SECRET first/, 'a missing CES_SECRET is said, not sent');
  } finally { await refusing.fake.close(); await correct.fake.close(); }
});

test('reproductions: a webhook delivery curl is signed over the raw body from $CES_SECRET', async () => {
  const sink = await startWebhookSink({ tls: tls.server, secret: SECRET });
  try {
    const raw = JSON.stringify({ eventId: '3f0c4d8e-8b1a-4c53-9a57-2f4d7e1b6a90', eventType: 'user.created', platform: 'sd', clientId: 1, userId: 7, createdAt: '2024-05-01T10:00:00+00:00', sentAt: '2024-05-01T10:00:00+00:00' });
    const out = await shell(deliveryCurl(`${sink.url}/hooks/repro`, deliveryHeaders(SECRET, raw), raw, { caFile }));
    assert.match(out, /status 200/);
    const got = sink.deliveries({ path: '/hooks/repro' });
    assert.equal(got.length, 1);
    assert.equal(got[0]!.verdicts.signature.ok, true, 'the shell computed the same signature');
    assert.equal(got[0]!.body, raw, 'the exact bytes');
  } finally { await sink.close(); }
});

test('a partner that stops answering: a failed call and a failed new connection record since when (first record kept); a live one is not marked', async () => {
  const runDir = fs.mkdtempSync(path.join(dir, 'run-'));
  const fake = await startFakeConnector({ tls: tls.server, secret: SECRET });
  const url = fake.url;
  assert.equal(await confirmPartnerDown(url, caFile, new Date(), 'ECONNRESET', runDir), false, 'still answering: a single failed call is the clause\'s failure, not a stop');
  assert.equal(partnerDown(runDir), undefined);
  await fake.close();
  const at = new Date('2026-01-01T10:00:00Z');
  assert.equal(await confirmPartnerDown(url, caFile, at, 'GET /external-bots: connection reset by the partner', runDir), true);
  assert.equal(await confirmPartnerDown(url, caFile, new Date(), 'later', runDir), true);
  const down = partnerDown(runDir)!;
  assert.equal(down.since, at.toISOString(), 'since the first failure');
  assert.match(down.cause, /connection reset by the partner; then 127\.0\.0\.1:\d+ is unreachable \(ECONNREFUSED\)/);
});

test('pre-flight: unreachable, untrusted certificate (naming --ca-file and NODE_EXTRA_CA_CERTS), trusted', async () => {
  const fake = await startFakeConnector({ tls: tls.server, secret: SECRET });
  try {
    assert.deepEqual(await preflight(fake.url, caFile), { ok: true });
    const untrusted = await preflight(fake.url);
    assert.equal(untrusted.kind, 'untrusted');
    assert.match(untrusted.message!, /not trusted .*--ca-file FILE, or set NODE_EXTRA_CA_CERTS=FILE/);
  } finally { await fake.close(); }
  const gone = await preflight(fake.url, caFile);
  assert.equal(gone.kind, 'unreachable');
  assert.match(gone.message!, /ECONNREFUSED/);
});
