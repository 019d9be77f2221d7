// `ces record` and `ces replay --connector` trust a connector as `ces check` does (NODE_EXTRA_CA_CERTS, --ca-file) and pre-flight it before starting anything: unreachable or untrusted is one message, exit 2, in under 5 s.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { generateTls } from '../lib/tls.js';
import { ROOT } from '../lib/paths.js';
import { startFakeConnector, type FakeConnector } from '../fake-connector/server.js';
import { runCes, type CesRun } from './ces-process.js';

const SECRET = 'vendor-secret-for-trust-tests';
/** The pre-flight's promise to a user: a connector that cannot be used is said in under 5 s (the service is not started). */
const PREFLIGHT_EXIT_MS = 5_000;
/**
 * The tool's own start-up, measured in the same test (`ces replay --help` loads what `ces replay` loads): on a loaded machine it
 * alone can take seconds, and it is not the pre-flight's time. The limit is asserted on the time beyond it.
 */
async function startUpMs(): Promise<number> {
  const r = await ces(['replay', '--help']);
  assert.equal(r.code, 0, r.out);
  return r.ms;
}
let work: string;
let caFile: string;
let connector: FakeConnector;
let closedPort: number;

/** Runs `ces ...` from a folder outside the checkout, as a user would; asynchronous: the fake connector answers from this process. */
const ces = (args: string[], env: Record<string, string> = {}): Promise<CesRun> =>
  runCes(args, { cwd: work, env: { CES_REPORTS_DIR: path.join(work, 'reports'), NODE_EXTRA_CA_CERTS: '', ...env } });

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-transcripts-trust-'));
  const tls = generateTls();
  caFile = path.join(work, 'ca.pem');
  fs.writeFileSync(caFile, tls.ca.cert);
  connector = await startFakeConnector({ tls: tls.server, secret: SECRET });
  // A port nothing listens on: taken, then released.
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  closedPort = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
});
after(async () => {
  await connector?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

test('ces record and ces replay trust the connector through NODE_EXTRA_CA_CERTS, as ces check does', { timeout: 180_000 }, async () => {
  const out = path.join(work, 'transcripts');
  const recorded = await ces(['record', connector.url, '--secret', SECRET, '--script', '["example quick replies"]', '--out', out, '--bot', 'demo'], { NODE_EXTRA_CA_CERTS: caFile });
  assert.equal(recorded.code, 0, recorded.out);
  const files = fs.readdirSync(out).filter((f) => f.endsWith('.json'));
  assert.equal(files.length, 1, recorded.out);
  const replayed = await ces(['replay', out, '--connector', connector.url, '--secret', SECRET, '--report-dir', path.join(work, 'replay-run')], { NODE_EXTRA_CA_CERTS: caFile });
  assert.equal(replayed.code, 0, replayed.out);
  assert.match(replayed.out, /every conversation replays as recorded/);
});

test('an unreachable connector: ces replay and ces record exit 2 in under 5 s with one message, before starting the service', async () => {
  const transcript = path.join(work, 'one.json');
  fs.writeFileSync(transcript, fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'transcript-demo.json'), 'utf8'));
  const url = `https://127.0.0.1:${closedPort}`;
  const startUp = await startUpMs();
  for (const args of [['replay', transcript, '--connector', url, '--secret', SECRET], ['record', url, '--secret', SECRET, '--script', '["hello"]', '--out', path.join(work, 'never')]]) {
    const r = await ces(args);
    assert.equal(r.code, 2, r.out);
    assert.ok(r.ms - startUp < PREFLIGHT_EXIT_MS, `${args[0]}: exit 2 after ${Math.round(r.ms)} ms, ${Math.round(r.ms - startUp)} ms beyond the tool's start-up (${Math.round(startUp)} ms): under ${PREFLIGHT_EXIT_MS} ms`);
    assert.match(r.out, new RegExp(`pre-flight of ${url.replace(/[.]/g, '\\.')} failed, nothing was started: 127\\.0\\.0\\.1:${closedPort} is unreachable \\(ECONNREFUSED\\)`));
    assert.equal(r.out.trim().split('\n').length, 1, `${args[0]}: one message\n${r.out}`);
    assert.doesNotMatch(r.out, /starting the reference service/);
  }
});

test('an untrusted connector: exit 2 in under 5 s naming --ca-file and NODE_EXTRA_CA_CERTS', async () => {
  const transcript = path.join(work, 'one.json');
  fs.writeFileSync(transcript, fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'transcript-demo.json'), 'utf8'));
  const startUp = await startUpMs();
  const r = await ces(['replay', transcript, '--connector', connector.url, '--secret', SECRET]);
  assert.equal(r.code, 2, r.out);
  assert.ok(r.ms - startUp < PREFLIGHT_EXIT_MS, `exit 2 after ${Math.round(r.ms)} ms, ${Math.round(r.ms - startUp)} ms beyond the tool's start-up: under ${PREFLIGHT_EXIT_MS} ms`);
  assert.match(r.out, /the certificate of 127\.0\.0\.1:\d+ is not trusted .*--ca-file FILE, or set NODE_EXTRA_CA_CERTS=FILE/);
  assert.equal(r.out.trim().split('\n').length, 1, `one message\n${r.out}`);
});
