// Issue 25's table: partner modes written from the spec, each judged by `ces check` with exactly the table's verdicts (nothing passes without evidence); the terminal, evidence.html, JUnit, Allure and summary.json agree on every run; each failing mode's reproduction, replayed against a freshly started partner, shows the same failure.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startFakeConnector, type ConnectorMode } from '../fake-connector/server.js';
import { startWebhookSink } from '../webhook-sink/server.js';
import { REFERENCE_SCRIPT } from '../check/settings.js';
import { checkVerdicts, type CheckResult } from '../lib/results.js';
import { LABEL, countsLine, type Verdict } from '../lib/verdicts.js';
import { CONNECTOR_SECRET, RECEIVER_SECRET, PARALLEL_RUNS, checkFolder, runCheck, runReproduction, partReproduction, assertRerunCommand, tail, areaIds, checksOf, saidAbout, type CheckRun } from './check-support.js';

const folder = checkFolder();

/** A partner started fresh (no state), on a port of its own or on the one a run used: what a reproduction is replayed against. */
interface Partner { url: string; port: number; close(): Promise<void> }

async function connectorIn(mode: ConnectorMode, port = 0): Promise<Partner> {
  const fake = await startFakeConnector({ tls: folder.tls.server, secret: CONNECTOR_SECRET, port });
  fake.state.mode = { ...mode };
  return { url: fake.url, port: Number(new URL(fake.url).port), close: () => fake.close() };
}

/** A receiver that refuses every first attempt of an event (503) and accepts its retries: the webhook sink's plan. */
async function receiverRefusingFirstAttempts(port = 0): Promise<Partner> {
  const sink = await startWebhookSink({ tls: folder.tls.server, secret: RECEIVER_SECRET, port });
  sink.plan({}, [503], 200);
  return { url: `${sink.url}/hooks`, port: Number(new URL(sink.url).port), close: () => sink.close() };
}

interface Row {
  name: string;
  start(port?: number): Promise<Partner>;
  args: string[];
  code: number;
  /** clause → verdict id (summary.json), with a pattern its reasons match. */
  expect: Array<[string, Verdict, RegExp?]>;
  /** Every other clause of the area: this verdict (the table says "every check that needs a created bot NOT JUDGED"). */
  others?: Verdict;
  /** At least this many clauses of the area judged (PASS, FAIL, WARN or NOTE). */
  judgedAtLeast?: number;
  /**
   * Failing clauses whose printed reproduction, replayed against a freshly started partner, shows this: its curls, or its re-run
   * command where the reproduction is nothing else (CONN-CONC-01: the one proof here that a printed re-run command, pasted, judges
   * its clause again; each is a whole `ces check --only` run). A re-run command beside curls is checked as printed.
   */
  repro: Array<[string, RegExp]>;
  /** Allure beside the other reports (one row: Allure's agreement is the same code for every run; the others run --no-allure). */
  allure?: boolean;
  /** Said in evidence.html (what a check judged). */
  evidence?: RegExp[];
}

const connectorArgs = (extra: string[] = []) => ['--secret', CONNECTOR_SECRET, '--ca-file', folder.caFile, ...extra];
const NO_BOT = /^No bot was created \(PUT \/bots\/\S+ → 404; see CONN-EP2-01\)\./;
/** G36: the clauses whose evidence needs the created bot itself (reading it back, the rules given in its write body). */
const NEED_THE_BOT = ['CONN-EP2-02', 'CONN-EP3-01', 'CONN-EP3-02', 'CONN-BOT-DATES-01', 'CONN-EP4-02', 'CONN-TRANSFER-03'];

/**
 * The rows of the table. Modes touching different clauses share a run (each run is a Playwright launch): the connector without
 * PUT /bots also lists no scenario (its clauses are those of endpoint 1), and the connector hanging under concurrency is also
 * silent on its echoed messages (CONN-CONC-01 holds conversations without echoes; the loop checks hold no two at once).
 */
const ROWS: Row[] = [
  {
    // G36: endpoints 4-7 answered for the checker's own idOperator are judged; only what needs the bot itself is NOT JUDGED.
    name: 'a connector without PUT /bots (404) whose endpoints 4-7 work',
    start: (port) => connectorIn({ noPutBots: true }, port), args: connectorArgs(['--script', JSON.stringify(REFERENCE_SCRIPT)]), code: 1, allure: true,
    expect: [
      ['CONN-EP2-01', 'fail', /PUT \/bots\/\S+ → 404 .*Unknown route PUT.*the spec asks for a 2xx answer with the Bot/],
      ...NEED_THE_BOT.map((id): [string, Verdict, RegExp] => [id, 'not-judged', NO_BOT]),
      // Not for want of the bot: the demo scenario's strategies have no customAvailability.
      ['CONN-EP4-03', 'not-judged', /no customAvailability strategy answered/],
    ],
    others: 'pass',
    judgedAtLeast: 30,
    repro: [['CONN-EP2-01', /Unknown route PUT \/bots\/[^\n]*\nstatus 404/]],
  },
  {
    // Endpoint 7's answers to operator-role messages are judged as the visitor messages' are (CONN-EP7-02); the loop clause
    // defers to the clause that judged that same call. An empty scenario list is on clauses of its own (endpoint 1).
    name: 'a connector answering operator messages 200 with an empty body, whose scenario list is empty',
    start: (port) => connectorIn({ operatorEmptyBody: true, emptyScenarios: true }, port), args: connectorArgs(), code: 1,
    expect: [
      ['CONN-EP7-02', 'fail', /answer to the operator message \("Hello, an operator[^)]*\): answered 200 with an empty body, not a Connector conversation/],
      ['CONN-JSON-01', 'fail', /POST \/conversations\/\S+\/messages answered 200 with an empty body/],
      ['CONN-LOOP-01', 'not-judged', /endpoint 7 answered the operator message with no replies array \(.*; see CONN-EP7-02\)/],
      ['CONN-EP1-04', 'fail', /GET \/external-bots → 200 .*the spec asks for at least one scenario/],
      ['CONN-EP1-02', 'not-judged', /listed no scenario: no item to judge/], ['CONN-EP1-03', 'not-judged', /answered no scenario/],
      ['CONN-EP7-01', 'pass'], ['CONN-SCEN-01', 'pass'], ['CONN-EP2-01', 'pass'], ['CONN-AUTH-02', 'pass'],
    ],
    // The call that failed (the operator message, answered with nothing), after what it depends on: the bot, the opening.
    repro: [['CONN-EP7-02', /s\n\nstatus 200 in/], ['CONN-JSON-01', /s\n\nstatus 200 in/], ['CONN-EP1-04', /^\[\]\nstatus 200/m]],
  },
  {
    name: 'a connector whose endpoints 1-5 are missing (404) while 6 and 7 work',
    start: (port) => connectorIn({ onlyConversations: true }, port), args: connectorArgs(), code: 1,
    expect: [
      ['CONN-EP1-01', 'fail', /GET \/external-bots → 404/], ['CONN-EP1-04', 'fail', /GET \/external-bots → 404/], ['CONN-EP2-01', 'fail', /PUT \/bots\/\S+ → 404/],
      ['CONN-EP3-01', 'fail', /endpoint 3 GET \/bots\/\{idOperator\} does not exist: GET \/bots\/\S+ → 404 .*the answer it gives a path that does not exist/],
      ['CONN-EP4-01', 'fail', /endpoint 4 GET \/availability-strategies does not exist/],
      ['CONN-EP5-02', 'fail', /endpoint 5 GET \/bots\/\{idOperator\}\/conversation-first-messages does not exist/],
      // A 404 is not a refused signature, nor a time: signatures judged on endpoints 6 and 7, time on endpoint 6.
      ['CONN-AUTH-02', 'pass'], ['CONN-TIME-01', 'pass'], ['CONN-AUTH-01', 'pass'], ['CONN-HTTPS-01', 'pass'], ['CONN-JSON-01', 'pass'],
      ['CONN-EP3-02', 'not-judged', NO_BOT], ['CONN-EP5-01', 'not-judged', NO_BOT],
      // G36: endpoints 6 and 7 answered for the checker's own idOperator are judged (with no scenario, their replies are empty).
      ...['CONN-EP6-01', 'CONN-EP6-02', 'CONN-CONV-DATES-01', 'CONN-CONV-DATES-02', 'CONN-EP7-01', 'CONN-EP7-02', 'CONN-LOOP-01', 'CONN-SCEN-01', 'CONN-CONC-01'].map((id): [string, Verdict] => [id, 'pass']),
    ],
    others: 'not-judged',
    repro: [['CONN-EP3-01', /Unknown route GET \/bots\/[^\n]*\nstatus 404/], ['CONN-EP1-01', /Unknown route GET \/external-bots[^\n]*\nstatus 404/]],
    evidence: [/judged on endpoint 6 \(not on endpoint 1, endpoint 2, endpoint 3, endpoint 4, which answered no 2xx\)/, /signed calls of the scripted conversation/],
  },
  {
    name: 'a connector that hangs under concurrency and is silent on echoed operator messages',
    start: (port) => connectorIn({ hangConcurrent: true, silentToOperator: true }, port), args: connectorArgs(['--script', JSON.stringify(REFERENCE_SCRIPT)]), code: 1,
    expect: [
      ['CONN-CONC-01', 'fail', /held alone was answered 200 in \d+ ms; held with 2 other conversation\(s\) at once it got no answer within \d+ ms: no answer in time/],
      ['CONN-LOOP-01', 'not-judged', /no replies array .*no answer/], ['CONN-LOOP-02', 'not-judged', /echoes got no answer with a replies array/],
      ['CONN-EP7-01', 'fail', /operator message\) gave no answer/],
      ['CONN-SCEN-01', 'pass'], ['CONN-EP7-02', 'pass'],
    ],
    repro: [['CONN-CONC-01', /CONN-CONC-01\s+MUST\s+FAIL/], ['CONN-EP7-01', /Empty reply from server|status 000/]],
  },
  {
    name: 'a webhook receiver that refuses every first attempt',
    start: (port) => receiverRefusingFirstAttempts(port), args: ['--secret', RECEIVER_SECRET, '--ca-file', folder.caFile], code: 1,
    expect: [
      ['RECV-RETRY-01', 'not-judged', /the first attempt was not accepted \(answered 503/],
      ['RECV-ANSWER-01', 'fail', /answered 503/], ['RECV-FAST-01', 'not-judged', /not accepted/], ['RECV-SIG-01', 'not-judged'], ['RECV-SIG-02', 'not-judged'], ['RECV-HTTPS-01', 'pass'],
    ],
    repro: [['RECV-ANSWER-01', /status 503/]],
  },
];

/** The verdict each check gives, by title, as summary.json holds the checks (the one rule of lib/verdicts.ts). */
function verdictsOfChecks(r: CheckRun): Map<string, Verdict> {
  const checks = checksOf(r) as unknown as CheckResult[];
  const vs = checkVerdicts(checks, { reference: false });
  return new Map(checks.map((c, i) => [c.title, vs[i]!]));
}

const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The terminal, evidence.html, JUnit, Allure (when the run made it) and summary.json say the same verdict of every check and clause, with the same counts. */
function assertReportsAgree(r: CheckRun, area: string, name: string, withAllure: boolean): void {
  const perCheck = verdictsOfChecks(r);
  assert.ok(perCheck.size > 0, `${name}: checks in summary.json`);
  const label = (v: Verdict) => LABEL[v];
  // Terminal: the table row of every clause of the area, and the counts of checks.
  for (const id of areaIds(area)) {
    const m = new RegExp(`^${id}\\s+(MUST|SHOULD|MAY|REF)\\s+(PASS|FAIL|WARN|NOTE|SKIP|NOT JUDGED|HARNESS ERROR)\\b`, 'm').exec(r.out);
    assert.ok(m, `${name}: the terminal table has a row for ${id}\n${tail(r)}`);
    assert.equal(m![2], label(r.verdicts.get(id) as Verdict), `${name}: terminal and summary.json agree on ${id}`);
  }
  const counts = countsLine([...perCheck.values()]);
  assert.ok(r.out.includes(`checks (${perCheck.size}): ${counts}`), `${name}: the terminal counts "${counts}"\n${tail(r)}`);
  // Playwright's own vocabulary stays out of the terminal (a NOTE is never "failed" there).
  assert.doesNotMatch(r.out, /✘|\d+ failed\b|\d+ passed\b/, `${name}: no Playwright progress lines without --verbose`);
  // evidence.html: each check's badge, and the same counts.
  const html = fs.readFileSync(path.join(r.dir, 'evidence.html'), 'utf8');
  const badges = new Map([...html.matchAll(/<h3><span class="badge v-([a-z-]+)"[^>]*>[^<]*<\/span> ([^<]*)<\/h3>/g)].map((m) => [unescape(m[2]!), m[1] as Verdict]));
  for (const [title, v] of perCheck) assert.equal(badges.get(title), v, `${name}: evidence.html gives "${title}" ${label(v)}`);
  assert.ok(html.includes(`<span class="counts">${counts}</span>`), `${name}: evidence.html counts "${counts}"`);
  // JUnit: the verdict property of each testcase; <failure> exactly for FAIL, <skipped> for SKIP and NOT JUDGED.
  const junit = fs.readFileSync(path.join(r.dir, 'junit.xml'), 'utf8');
  for (const m of junit.matchAll(/<testcase name="([^"]*)"[^>]*><properties><property name="verdict" value="([^"]*)"\/>[\s\S]*?<\/testcase>/g)) {
    const v = perCheck.get(unescape(m[1]!));
    assert.ok(v, `${name}: JUnit testcase "${unescape(m[1]!)}" is a check of summary.json`);
    assert.equal(m[2], label(v!), `${name}: JUnit gives "${unescape(m[1]!)}" ${label(v!)}`);
    assert.equal(m[0].includes('<failure'), v === 'fail', `${name}: <failure> only for FAIL ("${unescape(m[1]!)}")`);
    assert.equal(m[0].includes('<skipped'), v === 'skipped' || v === 'not-judged', `${name}: <skipped> for SKIP and NOT JUDGED ("${unescape(m[1]!)}")`);
  }
  assert.equal([...junit.matchAll(/<testcase /g)].length, perCheck.size, `${name}: one JUnit testcase per check`);
  // Allure: the verdict parameter and status of each result.
  const results = path.join(r.dir, 'allure-results');
  assert.equal(fs.existsSync(results), withAllure, `${name}: Allure results ${withAllure ? '' : 'only '}with Allure`);
  if (!withAllure) return assertClausesFromChecks(r, area, name, perCheck);
  const allure = fs.readdirSync(results).filter((f) => f.endsWith('-result.json')).map((f) => JSON.parse(fs.readFileSync(path.join(results, f), 'utf8')));
  assert.equal(allure.length, perCheck.size, `${name}: one Allure result per check`);
  for (const a of allure) {
    const title = [...perCheck.keys()].find((t) => t === a.name || t.endsWith(` › ${a.name}`));
    assert.ok(title, `${name}: Allure result "${a.name}" is a check of summary.json`);
    const v = perCheck.get(title!)!;
    assert.equal(a.parameters.find((p: { name: string }) => p.name === 'verdict')?.value, label(v), `${name}: Allure gives "${a.name}" ${label(v)}`);
    assert.equal(a.status, v === 'fail' ? 'failed' : v === 'harness-error' ? 'broken' : ['skipped', 'not-judged'].includes(v) ? 'skipped' : 'passed', `${name}: Allure status of "${a.name}" (${label(v)})`);
  }
  assertClausesFromChecks(r, area, name, perCheck);
}

/** summary.json: each clause takes the strongest verdict of its checks. */
function assertClausesFromChecks(r: CheckRun, area: string, name: string, perCheck: Map<string, Verdict>): void {
  const checks = checksOf(r);
  for (const id of areaIds(area)) {
    const mine = checks.filter((c) => c.clauses.includes(id)).map((c) => perCheck.get(c.title)!);
    assert.ok(mine.includes(r.verdicts.get(id) as Verdict), `${name}: ${id}'s verdict is one of its checks'`);
  }
}

describe("issue 25's table: partner modes written from the spec get exactly their verdicts, alike in every report", { concurrency: PARALLEL_RUNS }, () => {
  for (const row of ROWS) {
    test(row.name, async (t) => {
      const receiver = row.expect[0]![0].startsWith('RECV-');
      const area = receiver ? 'receiver' : 'connector';
      let partner = await row.start();
      let r: CheckRun;
      try {
        r = await runCheck(folder.work, [receiver ? 'webhook-receiver' : 'connector', partner.url, ...row.args], { allure: row.allure });
      } finally { await partner.close(); }
      await t.test('the verdicts of the table, each with its reason, and the exit code', () => {
        assert.equal(r.code, row.code, `exit code\n${tail(r)}`);
        for (const [id, verdict, why] of row.expect) {
          assert.equal(r.verdicts.get(id), verdict, `${id}\n${saidAbout(r, id)}\n${tail(r)}`);
          if (why) assert.match(saidAbout(r, id), why, `the reason of ${id}`);
        }
        if (row.others) {
          const named = new Set(row.expect.map(([id]) => id));
          const wrong = areaIds(area).filter((id) => !named.has(id) && r.verdicts.get(id) !== row.others).map((id) => `${id}=${r.verdicts.get(id)}`);
          assert.deepEqual(wrong, [], `every other clause is ${row.others}`);
        }
        if (row.judgedAtLeast) {
          const judged = areaIds(area).filter((id) => ['pass', 'fail', 'warn', 'note'].includes(r.verdicts.get(id) ?? ''));
          assert.ok(judged.length >= row.judgedAtLeast, `at least ${row.judgedAtLeast} clauses judged, got ${judged.length}\n${tail(r)}`);
        }
        const html = fs.readFileSync(path.join(r.dir, 'evidence.html'), 'utf8');
        for (const said of row.evidence ?? []) assert.match(html, said);
        // Coverage counts the clauses of what was checked, not the catalogue.
        assert.match(r.out, new RegExp(`coverage: \\d+ of ${areaIds(area).length} clauses judged`));
        // The report: line names a landing page that lists this run.
        const landing = /^report: (\S+)$/m.exec(r.out)?.[1];
        assert.ok(landing && fs.existsSync(landing), `report: names a landing page\n${tail(r)}`);
        assert.ok(fs.readFileSync(landing!, 'utf8').includes(path.basename(r.dir)), 'the landing page lists the run');
      });
      await t.test(`the terminal, evidence.html, JUnit${row.allure ? ', Allure' : ''} and summary.json agree`, () => assertReportsAgree(r, area, row.name, !!row.allure));
      // Replayed against the same partner freshly started (same address, no state), from another folder, each reproduction shows the failure.
      partner = await row.start(partner.port);
      try {
        for (const [id, shows] of row.repro) {
          await t.test(`the reproduction of ${id}, replayed against a freshly started partner, shows the same failure`, async () => {
            const k = checksOf(r).find((c) => c.clauses.includes(id) && c.outcome === 'failed');
            assert.ok(k?.reproductions?.length, `${id} has a reproduction`);
            const text = k!.reproductions![0]!;
            assert.ok(!text.includes(receiver ? RECEIVER_SECRET : CONNECTOR_SECRET), 'the secret is never in clear');
            const first = /reproduction of the first failure \(([^:]+):/.exec(r.out)?.[1];
            if (first === id) assert.ok(r.out.includes(text.split('\n')[0]!), 'the terminal prints the reproduction of the first failure');
            // As printed, from an empty folder: a re-run command reaches ces by its absolute path (never `npx ces`).
            assert.doesNotMatch(text, /\bnpx ces\b/);
            // Each call once: no two steps alike (their bodies included; two messages differ by their idMessage).
            const steps = text.split(/^# (?=(?:GET|PUT|POST) )/m).slice(1).map((step) => step.replace(/: answered [^\n]*/, ''));
            assert.deepEqual(steps, [...new Set(steps)], `${id}: each call once in its reproduction\n${text}`);
            const { rerun, rest } = partReproduction(text);
            if (rerun) assertRerunCommand(rerun, receiver ? 'webhook-receiver' : 'connector', partner.url, folder.caFile, id);
            const curls = rest.split('\n').some((l) => l.trim() && !l.startsWith('#'));
            const out = await runReproduction(folder.work, curls ? rest : text, receiver ? RECEIVER_SECRET : CONNECTOR_SECRET);
            assert.match(out, shows, `${id}: the replayed reproduction shows the failure\n${text}\n---\n${out.slice(-3000)}`);
          });
        }
      } finally { await partner.close(); }
    });
  }
});
