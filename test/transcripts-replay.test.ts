// Issue 17 end to end: record a conversation with the fake connector (v1) through the reference service, replay it against v1 (no difference) and v2 (exactly its three changes), absorb a changed text with a hand-written `match`, accept with --update.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { generateTls } from '../lib/tls.js';
import { ROOT } from '../lib/paths.js';
import { startFakeConnector, type FakeConnector } from '../fake-connector/server.js';
import { V2_CHANGES } from '../fake-connector/versions.js';
import { embeddedSession, type Session } from '../transcripts/session.js';
import { parseRecordScript, recordConversation, replayTranscripts } from '../transcripts/run.js';
import { formatTranscript, parseTranscript, readTranscript, writeTranscript, isVisitor } from '../transcripts/format.js';
import { holdConversation } from '../transcripts/service.js';
import { agentFor, http } from '../lib/http.js';

const SECRET = 'vendor-secret-for-replay-tests';
const RECORDED_MS_FLOOR = 1_000;
const SCRIPT = JSON.stringify(['example quick replies', '@quick-reply', 'remember me', 'schedule a minute', '@wait 5m']);
let work: string;
let connector: FakeConnector;
let session: Session;
let file: string;
let caFile: string;

const replay = (opts: { update?: boolean } = {}) => {
  const runDir = fs.mkdtempSync(path.join(work, 'run-'));
  return replayTranscripts(session, { files: [file], update: opts.update ?? false, runDir, runId: path.basename(runDir), against: 'fake connector', reportsDir: path.join(work, 'reports'), log: () => {} });
};

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-transcripts-test-'));
  const tls = generateTls();
  caFile = path.join(work, 'ca.pem');
  fs.writeFileSync(caFile, tls.ca.cert);
  connector = await startFakeConnector({ tls: tls.server, secret: SECRET });
  session = await embeddedSession({ connectorUrl: connector.url, secret: SECRET, caFile });
  const { transcript } = await recordConversation(session, parseRecordScript(SCRIPT), 'order status');
  // Loopback answers take a few ms, so a busy CI machine could make a v1 turn "slower" (over max(500 ms, 50 %)); a vendor may
  // edit recorded times by hand, and a floor of 1 s keeps v1 within tolerance while v2's 3 s delay stays far beyond it.
  for (const turn of transcript.turns) if (typeof (turn as { ms?: number }).ms === 'number') (turn as { ms: number }).ms = Math.max((turn as { ms: number }).ms, RECORDED_MS_FLOOR);
  file = writeTranscript(transcript, path.join(work, 'transcripts'));
});

after(async () => {
  await session?.close();
  await connector?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

test('the recording holds every turn of the script, with no secret and no per-run id', () => {
  const text = fs.readFileSync(file, 'utf8');
  const t = readTranscript(file);
  assert.deepEqual(t.turns.map((x) => Object.keys(x)[0]), ['firstMessages', 'visitor', 'visitor', 'visitor', 'visitor', 'wait']);
  const click = t.turns[2]!;
  assert.ok(isVisitor(click) && click.quickReply === true && click.visitor === 'Yes please', 'the @quick-reply step clicks the first quick reply by its value');
  assert.deepEqual((t.turns[5] as { events?: string[] }).events, ['closed after inactivity'], 'the 5-minute wait ran on the service clock and closed the conversation');
  assert.ok(!text.includes(SECRET), 'the connector secret never appears');
  assert.ok(!/idQuickReply|idConversation|idMessage|createdAt|sha256=/.test(text), 'per-run values and signatures are normalised away');
  assert.equal(formatTranscript(t), text, 'the file is in the stable written form');
});

test('replaying against the same version (v1): exit 0, no difference', async () => {
  connector.state.version = 'v1';
  const { code, results } = await replay();
  assert.equal(code, 0);
  assert.deepEqual(results[0]!.comparison.differences, []);
  assert.equal(results[0]!.comparison.verdict, 'pass');
});

test('the chat page\'s "Save transcript" gives the conversation in the same format, the same turns', async () => {
  connector.state.version = 'v1';
  const meta = await session.prepare({ idBot: 'demo' });
  const held = await holdConversation(session.sim, [{ visitor: 'example quick replies' }, { visitor: 'Yes please', quickReply: true }, { visitor: 'example transfer' }], { ...meta, name: 'chat', by: 'test' });
  const base = session.sim.access.simUrl.replace(/\/sim\/?$/, '');
  const res = await http({ url: `${base}/console/api/conversations/${held.conversationId}/transcript` }, agentFor(session.sim.access.caFile));
  assert.equal(res.status, 200);
  assert.match(res.headers['content-disposition'] ?? '', /^attachment; filename="example-quick-replies\.json"$/);
  const saved = parseTranscript(res.text);
  assert.equal(saved.recorded.by, 'chat page');
  assert.deepEqual(saved.turns, held.transcript.turns);
  assert.deepEqual((saved.turns[3] as { events?: string[] }).events, ['transfer requested', 'transfer timed out', 'closed by the bot'], 'the transfer timeout ran on the service clock');
});

test('replaying against v2: exit 1 with exactly its three changes', async () => {
  connector.state.version = 'v2';
  const { code, results } = await replay();
  assert.equal(code, 1);
  const diffs = results[0]!.comparison.differences.map((d) => ({ turn: d.turn, kind: d.kind, verdict: d.verdict }));
  assert.deepEqual(diffs, [
    { turn: 2, kind: 'quick replies changed', verdict: 'fail' },
    { turn: 3, kind: 'text changed', verdict: 'fail' },
    { turn: 4, kind: 'slower', verdict: 'warn' },
  ]);
  const [qr, text] = results[0]!.comparison.differences;
  assert.match(qr!.now!, new RegExp(V2_CHANGES.quickReply.to));
  assert.match(text!.now!, new RegExp(V2_CHANGES.answer.to));
});

test('a hand-written match expectation absorbs the changed text', async () => {
  connector.state.version = 'v2';
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  raw.turns[2].bot[0].payload.value = { match: '^Great, here is your order status: (shipped|delivered)\\.$' };
  fs.writeFileSync(file, JSON.stringify(raw, null, 2));
  const { results } = await replay();
  assert.deepEqual(results[0]!.comparison.differences.map((d) => d.kind), ['quick replies changed', 'slower']);
});

test('--update accepts today\'s answers after the diff and keeps the expectations that still hold', async () => {
  connector.state.version = 'v2';
  const first = await replay({ update: true });
  assert.equal(first.code, 0, '--update accepts the differences');
  const updated = fs.readFileSync(file, 'utf8');
  assert.match(updated, /"match": "\^Great/, 'the hand-written expectation is kept');
  assert.match(updated, new RegExp(V2_CHANGES.quickReply.to));
  const again = await replay();
  assert.equal(again.code, 0);
  assert.deepEqual(again.results[0]!.comparison.differences.filter((d) => d.verdict === 'fail'), []);
});

test('ces replay exits 2 on a broken transcript and on a missing --connector/--target', () => {
  const bad = path.join(work, 'bad.json');
  fs.writeFileSync(bad, JSON.stringify({ format: 'ces-transcript/1', name: 'x', recorded: { at: new Date().toISOString(), by: 'hand', tool: 'ces' }, connector: { url: 'https://x.example' }, bot: { idBot: null }, website: { id: '1' }, turns: [{ visitor: 'hi', bot: [{ type: 'message', payload: { contentType: 'text', value: { match: '(a|b' } } }] }] }));
  const run = (...args: string[]) => spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), 'replay', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CES_REPORTS_DIR: path.join(work, 'reports') } });
  const broken = run(bad, '--connector', connector.url, '--secret', SECRET, '--ca-file', caFile);
  assert.equal(broken.status, 2, broken.stderr);
  assert.match(broken.stderr, /turns\[0\]\.bot\[0\]\.payload\.value\.match: .*missing closing \)/);
  const neither = run(bad);
  assert.equal(neither.status, 2);
  assert.match(neither.stderr, /exactly one of --connector URL .* or --target F/);
});
