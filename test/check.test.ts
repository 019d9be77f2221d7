// Project tests of `ces check connector` and `ces check webhook-receiver`: correct partners pass with zero MUST failures, every deviant mode is reported under its clause, usage errors exit 2, secrets never reach the reports.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { generateTls, type TlsMaterial } from '../lib/tls.js';
import { ROOT } from '../lib/paths.js';
import { findLeaks } from '../lib/results.js';
import { loadClauses } from '../lib/catalogue.js';
import { startIntegratorConnector, type Mistake } from './fixtures/integrator-connector.js';
import { startIntegratorReceiver, type ReceiverMistake } from './fixtures/integrator-receiver.js';
import { startFakeConnector } from '../fake-connector/server.js';
import { startWebhookSink } from '../webhook-sink/server.js';
import { REFERENCE_SCRIPT } from '../check/settings.js';
import { http, agentFor } from '../lib/http.js';

const CONNECTOR_SECRET = 'integrator-connector-secret-7f3a';
const RECEIVER_SECRET = 'integrator-receiver-secret-91bc';
/** Parallel `ces check` runs (each is a Playwright run with one worker). */
const PARALLEL_RUNS = 3;

let tls: TlsMaterial;
let work: string;
let caFile: string;

before(() => {
  tls = generateTls();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-check-test-'));
  caFile = path.join(work, 'ca.pem');
  fs.writeFileSync(caFile, tls.ca.cert);
});
after(() => { fs.rmSync(work, { recursive: true, force: true }); });

interface CheckRun { code: number | null; out: string; dir: string; verdicts: Map<string, string> }

/** Runs `ces check ...` in a child process with its reports in a temporary folder. */
async function runCheck(args: string[], opts: { workers?: number; allure?: boolean } = {}): Promise<CheckRun> {
  const dir = fs.mkdtempSync(path.join(work, 'run-'));
  const full = ['check', ...args, '--report-dir', dir, '--workers', String(opts.workers ?? 1), ...(opts.allure ? [] : ['--no-allure'])];
  const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), ...full], { cwd: ROOT, env: { ...process.env, CES_REPORTS_DIR: path.join(work, 'reports') } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (c) => resolve({ code: c, out }));
  });
  const summaryFile = path.join(dir, 'summary.json');
  const verdicts = new Map<string, string>();
  if (fs.existsSync(summaryFile)) for (const v of JSON.parse(fs.readFileSync(summaryFile, 'utf8')).verdicts) verdicts.set(v.id, v.verdict);
  return { code, out, dir, verdicts };
}

const tail = (r: CheckRun) => r.out.split('\n').slice(-60).join('\n');
const areaIds = (area: string) => loadClauses().filter((c) => c.area === area && !c.retired).map((c) => c.id);

/**
 * Deviant modes → clauses whose verdict must be `fail` (MUST), `warn` (SHOULD) or `note` (MAY), and the exit code.
 * Mistakes that touch different clauses share one `ces check` run (each run is a Playwright launch).
 */
const CONNECTOR_MODES: Array<{ mistakes: Mistake[]; fail?: string[]; warn?: string[]; note?: string[]; workers?: number }> = [
  { mistakes: ['replies-on-start', 'availability-500', 'empty-createdAt', 'long-answer', 'extra-scenario-field', 'bad-bundle'],
    fail: ['CONN-EP6-02', 'CONN-EP4-01', 'CONN-BOT-DATES-01', 'CONN-CONV-DATES-01', 'CONN-TEXT-01', 'CONN-EP1-02', 'CONN-BUNDLE-01'], warn: ['CONN-TEXT-02'] },
  { mistakes: ['slow-first-messages', 'short-transfer', 'unknown-rule', 'many-quick-replies', 'wide-image', 'update-at', 'rules-not-given'],
    fail: ['CONN-EP5-01', 'CONN-TRANSFER-01', 'CONN-TRANSFER-03', 'CONN-EP4-02'], warn: ['CONN-TRANSFER-02', 'CONN-QR-01', 'CONN-IMAGE-01', 'CONN-CONV-DATES-02'] },
  { mistakes: ['replies-to-echo', 'advised-transfer', 'no-signature-check'], fail: ['CONN-LOOP-01', 'CONN-LOOP-02'], warn: ['CONN-TRANSFER-02'], note: ['CONN-AUTH-01'] },
  { mistakes: ['no-put-bots'], fail: ['CONN-EP2-01'] },
  { mistakes: ['slow-answer'], fail: ['CONN-EP7-01'], workers: 2 },
];

function assertMode(r: CheckRun, name: string, fail: string[] = [], warn: string[] = [], note: string[] = []) {
  for (const id of fail) assert.equal(r.verdicts.get(id), 'fail', `${name}: ${id} should fail, got ${r.verdicts.get(id)}\n${tail(r)}`);
  for (const id of warn) assert.equal(r.verdicts.get(id), 'warn', `${name}: ${id} should warn, got ${r.verdicts.get(id)}\n${tail(r)}`);
  for (const id of note) assert.equal(r.verdicts.get(id), 'note', `${name}: ${id} should be a note, got ${r.verdicts.get(id)}\n${tail(r)}`);
  assert.equal(r.code, fail.length ? 1 : 0, `${name}: exit code (a MUST failed: 1, else 0)\n${tail(r)}`);
  for (const id of [...fail, ...warn, ...note]) assert.match(r.out, new RegExp(`${id}\\s+\\S+\\s+(FAIL|WARN|NOTE)\\s+\\S`), `${name}: the terminal summary gives the verdict and a reason for ${id}`);
  assert.doesNotMatch(r.out, /HARNESS ERROR \[/, `${name}: no harness error`);
}

describe('ces check connector against an independent integrator connector', { concurrency: PARALLEL_RUNS }, () => {
  test('a correct connector passes every connector clause, with reports and no secret in them', async () => {
    const c = await startIntegratorConnector({ cert: tls.server.cert, key: tls.server.key, secret: CONNECTOR_SECRET });
    try {
      const r = await runCheck(['connector', c.url, '--secret', CONNECTOR_SECRET, '--ca-file', caFile, '--connector-version', '3f0c4d8e-8b1a-4c53-9a57-2f4d7e1b6a90', '--website', '42'], { workers: 2, allure: true });
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

  for (const m of CONNECTOR_MODES) {
    test(`mistakes ${m.mistakes.join(', ')} are reported under ${[...(m.fail ?? []), ...(m.warn ?? []), ...(m.note ?? [])].join(', ')}`, async () => {
      const c = await startIntegratorConnector({ cert: tls.server.cert, key: tls.server.key, secret: CONNECTOR_SECRET, mistakes: m.mistakes });
      try {
        const r = await runCheck(['connector', c.url, '--secret', CONNECTOR_SECRET, '--ca-file', caFile], { workers: m.workers ?? 2 });
        assertMode(r, m.mistakes.join('+'), m.fail, m.warn, m.note);
      } finally { await c.close(); }
    });
  }

  test('the calls carry idConnectorVersion, idWebsite and a G2 signature: a wrong secret is refused everywhere', async () => {
    const c = await startIntegratorConnector({ cert: tls.server.cert, key: tls.server.key, secret: CONNECTOR_SECRET });
    try {
      const r = await runCheck(['connector', c.url, '--secret', 'not-the-connector-secret', '--ca-file', caFile]);
      assertMode(r, 'wrong secret', ['CONN-EP1-01', 'CONN-EP2-01', 'CONN-EP6-01']);
    } finally { await c.close(); }
  });

  test('a plain-http URL is a CONN-HTTPS-01 failure and the other checks are skipped with the reason', async () => {
    const r = await runCheck(['connector', 'http://127.0.0.1:9', '--secret', CONNECTOR_SECRET]);
    assert.equal(r.code, 1, tail(r));
    assert.equal(r.verdicts.get('CONN-HTTPS-01'), 'fail');
    const others = areaIds('connector').filter((id) => id !== 'CONN-HTTPS-01').filter((id) => r.verdicts.get(id) !== 'skipped');
    assert.deepEqual(others, [], 'every other clause is skipped');
    assert.match(r.out, /the URL is not HTTPS/);
  });

  test('--allow-http runs the pre-flight on the plain-http URL: nothing listens there, so one message and exit 2', async () => {
    const r = await runCheck(['connector', 'http://127.0.0.1:9', '--allow-http', '--secret', CONNECTOR_SECRET]);
    assert.equal(r.code, 2, tail(r));
    assert.match(r.out, /pre-flight of http:\/\/127\.0\.0\.1:9 failed, nothing was judged: 127\.0\.0\.1:9 is unreachable \(ECONNREFUSED\)/);
    assert.equal(r.verdicts.size, 0, 'no check ran');
  });

  test('pre-flight: an untrusted certificate and a missing --secret each stop the run with one message, exit 2', async () => {
    const c = await startIntegratorConnector({ cert: tls.server.cert, key: tls.server.key, secret: CONNECTOR_SECRET });
    try {
      const untrusted = await runCheck(['connector', c.url, '--secret', CONNECTOR_SECRET]);
      assert.equal(untrusted.code, 2, tail(untrusted));
      assert.match(untrusted.out, /the certificate of 127\.0\.0\.1:\d+ is not trusted .*--ca-file FILE, or set NODE_EXTRA_CA_CERTS=FILE/);
      assert.equal(untrusted.out.match(/ces: /g)?.length, 1, 'one message');
      const noSecret = await runCheck(['connector', c.url, '--ca-file', caFile]);
      assert.equal(noSecret.code, 2, tail(noSecret));
      assert.match(noSecret.out, /--secret is missing: .*--unsigned/);
      const empty = await runCheck(['webhook-receiver', c.url, '--secret', '', '--ca-file', caFile]);
      assert.equal(empty.code, 2, tail(empty));
      assert.match(empty.out, /--secret is empty/);
      for (const r of [untrusted, noSecret, empty]) assert.equal(r.verdicts.size, 0, 'nothing was judged');
    } finally { await c.close(); }
  });
});

describe('ces check connector against the fake connector (control API faults)', { concurrency: PARALLEL_RUNS }, () => {
  const script = JSON.stringify(REFERENCE_SCRIPT);
  const FAULTS: Array<{ name: string; faults: object[]; fail: string[] }> = [
    { name: 'availability 500', faults: [{ endpoint: 'availability', status: 500 }], fail: ['CONN-EP4-01'] },
    { name: 'schema-invalid POST /conversations', faults: [{ endpoint: 'conversation-create', invalid: true }], fail: ['CONN-EP6-01'] },
    { name: 'replies to operator messages', faults: [{ endpoint: 'messages', replyToOperator: true }], fail: ['CONN-LOOP-01', 'CONN-LOOP-02'] },
    { name: '451-character text', faults: [{ endpoint: 'messages', longText: true }], fail: ['CONN-TEXT-01'] },
    { name: 'slow first messages', faults: [{ endpoint: 'first-messages', delayMs: 2_600 }], fail: ['CONN-EP5-01'] },
    { name: 'malformed JSON scenarios', faults: [{ endpoint: 'external-bots', malformed: true }], fail: ['CONN-JSON-01', 'CONN-EP1-01'] },
    { name: 'missing PUT /bots', faults: [{ endpoint: 'bot-put', status: 404 }], fail: ['CONN-EP2-01'] },
  ];
  const start = async (faults: object[]) => {
    const fake = await startFakeConnector({ tls: tls.server, secret: CONNECTOR_SECRET });
    for (const f of faults) {
      const res = await http({ method: 'POST', url: `${fake.controlUrl}/faults`, headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.controlToken}` }, body: JSON.stringify(f) }, agentFor(caFile));
      assert.equal(res.status, 200, `fault accepted: ${res.text}`);
    }
    return fake;
  };

  test('the fake connector in correct mode has zero MUST failures', async () => {
    const fake = await start([]);
    try {
      const r = await runCheck(['connector', fake.url, '--secret', CONNECTOR_SECRET, '--ca-file', caFile, '--script', script], { workers: 2 });
      assert.equal(r.code, 0, tail(r));
      assert.equal([...r.verdicts.entries()].filter(([id, v]) => id.startsWith('CONN-') && v === 'fail').length, 0);
    } finally { await fake.close(); }
  });

  for (const f of FAULTS) {
    test(`fake connector fault "${f.name}" is reported under ${f.fail.join(', ')}`, async () => {
      const fake = await start(f.faults);
      try {
        const r = await runCheck(['connector', fake.url, '--secret', CONNECTOR_SECRET, '--ca-file', caFile, '--script', script]);
        assertMode(r, f.name, f.fail);
      } finally { await fake.close(); }
    });
  }
});

/** The checks of a run as summary.json records them (outcome, reason, WARN/NOTE reasons, reproductions). */
function checksOf(r: CheckRun): Array<{ title: string; clauses: string[]; outcome: string; reason?: string; warnings?: string[]; notes?: string[]; reproductions?: string[] }> {
  const f = path.join(r.dir, 'summary.json');
  return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')).checks : [];
}
/** Everything a run said about a clause: failure and skip reasons, WARN and NOTE reasons. */
const saidAbout = (r: CheckRun, id: string) => checksOf(r).filter((c) => c.clauses.includes(id)).flatMap((c) => [c.reason ?? '', ...(c.warnings ?? []), ...(c.notes ?? [])]).join(' | ');

/** Runs a reproduction as a user would paste it (CES_SECRET set, from the project folder); answers what it printed. Asynchronous: the fakes answer from this process. */
function runReproduction(text: string, secret: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', text.replaceAll('npx ces ', `node ${path.join(ROOT, 'bin', 'ces.js')} `)], { cwd: ROOT, env: { ...process.env, CES_SECRET: secret, CES_REPORTS_DIR: path.join(work, 'reports') } });
    let out = '';
    const timer = setTimeout(() => child.kill(), 240_000);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', () => { clearTimeout(timer); resolve(out); });
  });
}

describe('partners in every variant (table): a correct one passes, each wrong one fails under the right clause with the right reason', { concurrency: PARALLEL_RUNS }, () => {
  const script = JSON.stringify(REFERENCE_SCRIPT);
  interface Row {
    name: string; mode: Record<string, boolean>; args?: string[]; code: number;
    /** Playwright workers (1: no other check talks to the connector while the concurrency check holds its conversations). */
    workers?: number;
    /** clause → verdict, and a pattern its reasons must match. */
    expect: Array<[string, string, RegExp?]>;
    /** No clause but these may pass (nothing passes without evidence). */
    onlyPass?: string[];
    /** Each FAIL's reproduction, pasted into a shell, shows this. */
    repro?: Array<[string, RegExp]>;
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
      name: 'a connector that refuses every call', mode: { refuseAll: true }, code: 1,
      expect: [
        ['CONN-AUTH-02', 'fail', /refused the call: is --secret the connector's signing secret/],
        ['CONN-AUTH-01', 'note', /refuses every call, so its refusal of bad signatures proves nothing/],
        ['CONN-EP1-01', 'fail', /401/], ['CONN-CONC-01', 'not-judged', /already failed/],
        ['CONN-TIME-01', 'not-judged', /answered no configuration call with 2xx/], ['CONN-EP7-01', 'not-judged', /answered no call with 2xx/],
      ],
      // Its refusals are JSON: CONN-JSON-01 is judged on what it answered.
      onlyPass: ['CONN-HTTPS-01', 'CONN-JSON-01'],
      repro: [['CONN-AUTH-02', /status 401/], ['CONN-EP1-01', /status 401/]],
    },
    {
      name: 'a connector sharing state across conversations', mode: { sharedState: true }, code: 1, workers: 1,
      expect: [['CONN-CONC-01', 'fail', /held alone it was answered .* at once it was answered/], ['CONN-SCEN-01', 'pass'], ['CONN-EP7-02', 'pass']],
      repro: [['CONN-CONC-01', /CONN-CONC-01\s+MUST\s+FAIL/]],
    },
    {
      name: 'a connector answering the right shapes with another conversation\'s id', mode: { wrongConversation: true }, code: 1,
      expect: [['CONN-CONC-01', 'fail', /carries idConversation "[0-9a-f-]{36}", another conversation's/], ['CONN-EP7-02', 'pass']],
    },
    {
      name: 'a bot judged with --conversations 1', mode: { sharedState: true }, args: ['--conversations', '1'], code: 0,
      expect: [['CONN-CONC-01', 'not-judged', /--conversations 1/]],
    },
  ];
  for (const row of ROWS) {
    test(row.name, async () => {
      const fake = await startFakeConnector({ tls: tls.server, secret: CONNECTOR_SECRET });
      try {
        const res = await http({ method: 'POST', url: `${fake.controlUrl}/mode`, headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.controlToken}` }, body: JSON.stringify(row.mode) }, agentFor(caFile));
        assert.equal(res.status, 200, res.text);
        const r = await runCheck(['connector', fake.url, '--secret', CONNECTOR_SECRET, '--ca-file', caFile, '--script', script, ...(row.args ?? [])], { workers: row.workers ?? 2 });
        assert.equal(r.code, row.code, `${row.name}: exit code\n${tail(r)}`);
        for (const [id, verdict, why] of row.expect) {
          assert.equal(r.verdicts.get(id), verdict, `${row.name}: ${id}\n${saidAbout(r, id)}\n${tail(r)}`);
          if (why) assert.match(saidAbout(r, id), why, `${row.name}: the reason of ${id}`);
        }
        if (row.onlyPass) {
          const passed = [...r.verdicts.entries()].filter(([id, v]) => id.startsWith('CONN-') && v === 'pass' && !row.onlyPass!.includes(id)).map(([id]) => id);
          assert.deepEqual(passed, [], `${row.name}: nothing passes without evidence`);
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
          assert.match(await runReproduction(k!.reproductions![0]!, CONNECTOR_SECRET), shows, `${row.name}: the reproduction of ${id} shows the failure`);
        }
      } finally { await fake.close(); }
    });
  }
});

describe('ces check webhook-receiver', { concurrency: PARALLEL_RUNS }, () => {
  const MODES: Array<{ mistake: ReceiverMistake; fail?: string[]; warn?: string[]; workers?: number }> = [
    { mistake: 'status-500', fail: ['RECV-ANSWER-01', 'RECV-RETRY-01'] },
    { mistake: 'slow', warn: ['RECV-FAST-01'], workers: 2 },
    { mistake: 'no-signature-check', warn: ['RECV-SIG-01', 'RECV-SIG-02'] },
    { mistake: 'dedupe-correlation', fail: ['RECV-RETRY-01'] },
  ];

  test('a correct receiver passes every receiver clause, no secret in the reports', async () => {
    const rcv = await startIntegratorReceiver({ cert: tls.server.cert, key: tls.server.key, secret: RECEIVER_SECRET });
    try {
      const r = await runCheck(['webhook-receiver', rcv.url, '--secret', RECEIVER_SECRET, '--ca-file', caFile]);
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
      const rcv = await startIntegratorReceiver({ cert: tls.server.cert, key: tls.server.key, secret: RECEIVER_SECRET, mistake: m.mistake });
      try {
        const r = await runCheck(['webhook-receiver', rcv.url, '--secret', RECEIVER_SECRET, '--ca-file', caFile], { workers: m.workers });
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
      const sink = await startWebhookSink({ tls: tls.server, secret: RECEIVER_SECRET });
      try {
        const res = await http({ method: 'POST', url: `${sink.controlUrl}/plan`, headers: { 'content-type': 'application/json', authorization: `Bearer ${sink.controlToken}` }, body: JSON.stringify(p.plan) }, agentFor(caFile));
        assert.equal(res.status, 201, `plan accepted: ${res.text}`);
        const r = await runCheck(['webhook-receiver', `${sink.url}/hooks`, '--secret', RECEIVER_SECRET, '--ca-file', caFile], { workers: 2 });
        for (const id of p.fail ?? []) assert.equal(r.verdicts.get(id), 'fail', `${id}\n${tail(r)}`);
        for (const id of p.warn ?? []) assert.equal(r.verdicts.get(id), 'warn', `${id}\n${tail(r)}`);
        assert.equal(r.code, p.fail?.length ? 1 : 0, tail(r));
      } finally { await sink.close(); }
    });
  }

  test('the webhook sink in its default plan has zero MUST failures', async () => {
    const sink = await startWebhookSink({ tls: tls.server, secret: RECEIVER_SECRET });
    try {
      const r = await runCheck(['webhook-receiver', `${sink.url}/hooks`, '--secret', RECEIVER_SECRET, '--ca-file', caFile]);
      assert.equal(r.code, 0, tail(r));
      for (const id of ['RECV-HTTPS-01', 'RECV-ANSWER-01', 'RECV-FAST-01', 'RECV-RETRY-01']) assert.equal(r.verdicts.get(id), 'pass', `${id}\n${tail(r)}`);
    } finally { await sink.close(); }
  });
});

describe('ces check usage errors exit 2', () => {
  for (const [name, args] of [
    ['a URL that is not a URL', ['connector', 'not a url']],
    ['a non-http scheme', ['webhook-receiver', 'ftp://example.com/hook']],
    ['a connector version that is not a UUID', ['connector', 'https://127.0.0.1:9', '--connector-version', 'v1']],
    ['an unknown kind', ['bot', 'https://127.0.0.1:9']],
  ] as const) {
    test(name, async () => {
      const r = await runCheck([...args]);
      assert.equal(r.code, 2, r.out);
      assert.match(r.out, /ces: /);
    });
  }
});
