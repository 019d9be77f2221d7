// `ces bench`: four benchmarks of the reference implementation, each against a baseline measured in the same run, written to reports/bench.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import https from 'node:https';
import { spawn, spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import type { CommandModule } from 'yargs';
import { REPORTS, ROOT } from '../../lib/paths.js';
import { LIMITS } from '../../lib/limits.js';
import { generateTls } from '../../lib/tls.js';
import { agentFor, http } from '../../lib/http.js';
import { newRunDir } from '../run.js';
import { resolveTarget } from '../embedded.js';
import { writeRunSummary, buildLanding } from '../../lib/landing.js';
import { mask } from '../../lib/mask.js';
import { findK6, runK6, LOAD_DIR, type K6Summary } from './load.js';
import type { Stack } from '../../reference-impl/stack.js';

const BENCH_DIR = path.join(LOAD_DIR, 'bench');
/** The polling benchmark's pass rule: p99 of |interval − 1 s| under this (the spec's ±10 % of the 1 s period). */
const POLL_P99_LIMIT_MS = LIMITS.availabilityPollMs * LIMITS.availabilityPollTolerance;

export interface BenchFigure {
  id: string;
  title: string;
  value: number;
  unit: string;
  baseline: { title: string; value: number; unit: string };
  /** value / baseline.value, when both measure the same thing. */
  ratio: number | null;
  details: Record<string, unknown>;
}

interface Plan { quick: boolean; vus: number; seconds: number; pollSteps: number[]; pollWindowS: number; webhookRates: number[]; conversations: number }

const metric = (s: K6Summary | null, key: string, stat: string): number => s?.metrics[key]?.values[stat] ?? NaN;
const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;
const quantile = (xs: number[], q: number) => { if (!xs.length) return NaN; const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]!; };

/** Machine the figures were measured on. */
export function machine() {
  const k6 = spawnSync(findK6(), ['version'], { encoding: 'utf8' }).stdout.trim();
  return { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', memoryGiB: round(os.totalmem() / 2 ** 30), os: `${os.type()} ${os.release()} ${os.arch()}`, node: process.version, k6 };
}

/** 1. REST GET /operator/live requests per second: reference implementation vs a bare node:https server answering the same bytes. */
async function restThroughput(stack: Stack, dir: string, targetFile: string, plan: Plan, caFile: string): Promise<BenchFigure> {
  const t = stack.ready;
  const url = `${t.rest_base_url}/operator/live`;
  const answer = await http({ url, headers: { 'X-API-Key': t.api_key } }, agentFor(t.ca_file));
  if (answer.status !== 200) throw new Error(`GET ${url}: ${answer.status}`);
  const bytes = Buffer.from(answer.text);
  // Same TLS (a certificate of the same key size), same keep-alive, same bytes and content type: only the service's work differs.
  const tls = generateTls();
  fs.appendFileSync(caFile, '\n' + tls.ca.cert);
  const bare = https.createServer({ cert: tls.server.cert, key: tls.server.key }, (_req, res) => {
    res.writeHead(200, { 'content-type': answer.headers['content-type'] ?? 'application/json', 'content-length': bytes.length });
    res.end(bytes);
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const bareUrl = `https://127.0.0.1:${(bare.address() as AddressInfo).port}/operator/live`;
  const rounds: Array<{ reference: number; bare: number }> = [];
  try {
    for (let r = 1; r <= (plan.quick ? 1 : 2); r++) {
      const one = async (u: string, name: string) => {
        const k = await runK6({ script: path.join(BENCH_DIR, 'throughput.js'), targetFile, caFile, outDir: dir, summaryName: `rest-${name}-${r}.json`, quiet: true, vus: plan.vus, duration: `${plan.seconds}s`, env: { CES_BENCH_URL: u, CES_BENCH_KEY: t.api_key } });
        if (k.code !== 0) throw new Error(`throughput run against ${name} failed (k6 exit ${k.code}, ${k.summaryFile})`);
        return metric(k.summary, 'http_reqs', 'rate');
      };
      // Alternate the order so neither side always runs on a warmer machine.
      const bareFirst = r % 2 === 1;
      const a = await one(bareFirst ? bareUrl : url, bareFirst ? 'bare' : 'reference');
      const b = await one(bareFirst ? url : bareUrl, bareFirst ? 'reference' : 'bare');
      rounds.push(bareFirst ? { bare: a, reference: b } : { reference: a, bare: b });
    }
  } finally {
    await new Promise((r) => bare.close(r));
  }
  const ref = rounds.reduce((n, x) => n + x.reference, 0) / rounds.length;
  const base = rounds.reduce((n, x) => n + x.bare, 0) / rounds.length;
  return {
    id: 'rest-operator-live-throughput', title: 'REST GET /operator/live throughput of the reference implementation', value: round(ref), unit: 'requests/s',
    baseline: { title: 'bare node:https server answering the same bytes', value: round(base), unit: 'requests/s' }, ratio: round(ref / base, 3),
    details: { vus: plan.vus, secondsPerRun: plan.seconds, rounds: rounds.map((x) => ({ reference: round(x.reference), bare: round(x.bare) })), bodyBytes: bytes.length },
  };
}

/** 3. Message-path latency the reference implementation adds (end to end minus endpoint 7's own time), at N concurrent conversations. */
async function messagePath(stack: Stack, dir: string, targetFile: string, plan: Plan): Promise<BenchFigure> {
  const k = await runK6({
    script: path.join(LOAD_DIR, 'message-path.js'), targetFile, caFile: stack.ready.ca_file, outDir: dir, summaryName: 'message-path.json',
    quiet: true, vus: plan.conversations, duration: `${plan.seconds * 2}s`, env: { CES_MESSAGES: '3' },
  });
  if (!k.summary) throw new Error(`message-path run failed (k6 exit ${k.code})`);
  const s = k.summary;
  const added = (st: string) => round(metric(s, 'message_added_ms', st));
  return {
    id: 'message-path-added-latency', title: `Message-path latency added by the reference implementation at ${plan.conversations} concurrent conversations (p95)`,
    value: added('p(95)'), unit: 'ms',
    baseline: { title: 'the connector\'s own endpoint 7 time in the same run (p95)', value: round(metric(s, 'message_connector_ms', 'p(95)')), unit: 'ms' }, ratio: null,
    details: {
      conversations: plan.conversations, seconds: plan.seconds * 2, thresholdsHeld: k.code === 0,
      addedMs: { med: added('med'), p95: added('p(95)'), p99: added('p(99)'), max: added('max') },
      endToEndMs: { med: round(metric(s, 'message_e2e_ms', 'med')), p95: round(metric(s, 'message_e2e_ms', 'p(95)')), max: round(metric(s, 'message_e2e_ms', 'max')) },
      connectorMs: { med: round(metric(s, 'message_connector_ms', 'med')), p95: round(metric(s, 'message_connector_ms', 'p(95)')) },
      messages: metric(s, 'message_e2e_ms', 'count'), answeredRate: metric(s, 'message_answered', 'rate'),
    },
  };
}

/** 4. Webhook deliveries per second with zero loss: highest event rate whose every event reached the sink, vs k6 posting straight to the sink. */
async function webhookRate(stack: Stack, dir: string, targetFile: string, plan: Plan, caFile: string): Promise<BenchFigure> {
  const direct = await runK6({
    script: path.join(BENCH_DIR, 'sink-direct.js'), targetFile, caFile, outDir: dir, summaryName: 'sink-direct.json', quiet: true,
    vus: plan.vus, duration: `${plan.seconds}s`, env: { CES_BENCH_URL: `${stack.ready.sink_url}/bench-direct` },
  });
  if (direct.code !== 0) throw new Error(`sink-direct baseline failed (k6 exit ${direct.code})`);
  const steps: Array<{ rate: number; held: boolean; events: number; lost: number; retried: number; firstAttemptP95Ms: number; deliveredPerSecond: number }> = [];
  for (const rate of plan.webhookRates) {
    const k = await runK6({
      script: path.join(LOAD_DIR, 'webhook-fanout.js'), targetFile, caFile: stack.ready.ca_file, outDir: dir, summaryName: `webhook-${rate}.json`,
      // Real-time retries: moving the clock would fire the retries of a whole step at once, a burst no real run produces.
      quiet: true, rate, duration: `${plan.seconds}s`, env: { CES_REAL_TIME_RETRIES: '1' },
    });
    const events = metric(k.summary, 'webhook_events', 'count');
    const retried = metric(k.summary, 'webhook_retried', 'count') || 0;
    steps.push({ rate, held: k.code === 0, events, lost: metric(k.summary, 'webhook_lost', 'count') || 0, retried, firstAttemptP95Ms: round(metric(k.summary, 'webhook_first_attempt_ms', 'p(95)')),
      // Every event once, plus the retry of each 503-first event, spread over the generation window.
      deliveredPerSecond: round((events + retried) / plan.seconds) });
    if (k.code !== 0) break;
  }
  const best = [...steps].reverse().find((x) => x.held);
  return {
    id: 'webhook-deliveries-zero-loss', title: 'Webhook deliveries per second to the sink with zero loss (503/200 mix, first attempt p95 under 1 s)', value: best?.deliveredPerSecond ?? 0, unit: 'deliveries/s',
    baseline: { title: 'k6 posting the same signed deliveries straight to the sink', value: round(metric(direct.summary, 'http_reqs', 'rate')), unit: 'deliveries/s' },
    ratio: best ? round(best.deliveredPerSecond / metric(direct.summary, 'http_reqs', 'rate'), 3) : 0,
    details: { eventRate: best?.rate ?? 0, steps, secondsPerStep: plan.seconds },
  };
}

/** Interval errors of each bot's consecutive endpoint-4 calls in the fake connector's log, for bots whose id passes `mine`. */
async function pollErrors(stack: Stack, since: number, mine: (id: string) => boolean) {
  const res = await http({ url: `${stack.ready.connector_url}/_control/requests?endpoint=availability&since=${since}`, headers: { authorization: `Bearer ${stack.ready.sim_token}` } }, agentFor(stack.ready.ca_file));
  const by = new Map<string, number[]>();
  for (const r of res.json.requests as Array<{ idOperator?: string; at: number }>) if (r.idOperator && mine(r.idOperator)) by.set(r.idOperator, [...(by.get(r.idOperator) ?? []), r.at]);
  const errors: number[] = [];
  const intervals: number[] = [];
  for (const ats of by.values()) for (let k = 1; k < ats.length; k++) { intervals.push(ats[k]! - ats[k - 1]!); errors.push(Math.abs(ats[k]! - ats[k - 1]! - LIMITS.availabilityPollMs)); }
  return { bots: by.size, polls: intervals.length + by.size, p99: quantile(errors, 0.99), p95: quantile(errors, 0.95), meanIntervalMs: intervals.length ? intervals.reduce((a, b) => a + b, 0) / intervals.length : NaN };
}
const lastSeq = async (stack: Stack) => (await http({ url: `${stack.ready.connector_url}/_control/requests?endpoint=availability&path=/none`, headers: { authorization: `Bearer ${stack.ready.sim_token}` } }, agentFor(stack.ready.ca_file))).json.lastSeq as number;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** 2. Bot operators polled at 1 Hz with p99 interval error under 100 ms: the reference implementation vs a bare Node poller, same connector. */
async function pollingCapacity(stack: Stack, plan: Plan): Promise<BenchFigure> {
  const t = stack.ready;
  const secret = stack.app.ces.settings.connectorSecret;
  const judge = (s: { bots: number; p99: number; meanIntervalMs: number }, n: number) =>
    s.bots >= n && s.p99 < POLL_P99_LIMIT_MS && Math.abs(s.meanIntervalMs - LIMITS.availabilityPollMs) <= POLL_P99_LIMIT_MS;
  const warmMs = 3_000;
  // Baseline first, while the reference implementation polls only its seeded bots.
  const bareSteps: Array<Record<string, number | boolean>> = [];
  for (const n of plan.pollSteps) {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(BENCH_DIR, 'bare-poller.ts'), t.connector_url, secret, t.ca_file, String(n), String(plan.pollWindowS + warmMs / 1000 + 1)], { cwd: ROOT, stdio: 'inherit' });
    await sleep(warmMs);
    const since = await lastSeq(stack);
    await sleep(plan.pollWindowS * 1000);
    const s = await pollErrors(stack, since, (id) => id.startsWith('bare-') && Number(id.slice(5)) <= n);
    await new Promise((r) => child.once('exit', r));
    const ok = judge(s, n);
    bareSteps.push({ bots: n, ok, polled: s.bots, p99ErrorMs: round(s.p99), p95ErrorMs: round(s.p95), meanIntervalMs: round(s.meanIntervalMs) });
    if (!ok) break;
  }
  const H = { 'X-API-Key': t.api_key, 'Content-Type': 'application/json' };
  const inst = (await http({ url: `${t.platform_url}/installations`, headers: H }, agentFor(t.ca_file))).json.data[0];
  const refSteps: Array<Record<string, number | boolean>> = [];
  const ids: string[] = [];
  for (const n of plan.pollSteps) {
    while (ids.length < n) {
      const r = await http({ method: 'POST', url: `${t.platform_url}/bots`, headers: H, body: JSON.stringify({ installationId: inst.id, name: `Bench bot ${ids.length + 1}`, pseudo: 'Bench', language: 'en', idBot: 'demo' }) }, agentFor(t.ca_file));
      if (r.status !== 201) throw new Error(`creating bench bot: ${r.status} ${r.text.slice(0, 200)}`);
      ids.push(String(r.json.idOperator));
    }
    await sleep(warmMs);
    const since = await lastSeq(stack);
    await sleep(plan.pollWindowS * 1000);
    const mine = new Set(ids);
    const s = await pollErrors(stack, since, (id) => mine.has(id));
    const ok = judge(s, n);
    refSteps.push({ bots: n, ok, polled: s.bots, p99ErrorMs: round(s.p99), p95ErrorMs: round(s.p95), meanIntervalMs: round(s.meanIntervalMs) });
    if (!ok) break;
  }
  const best = (steps: Array<Record<string, number | boolean>>) => Number([...steps].reverse().find((x) => x.ok)?.bots ?? 0);
  const ref = best(refSteps);
  const base = best(bareSteps);
  return {
    id: 'polling-capacity-1hz', title: `Bot operators the reference implementation polls at 1 Hz with p99 interval error under ${POLL_P99_LIMIT_MS} ms`, value: ref, unit: 'bot operators',
    baseline: { title: 'bare Node poller (fixed-rate timers + undici, G2-signed) against the same fake connector', value: base, unit: 'bot operators' }, ratio: base ? round(ref / base, 3) : null,
    details: { steps: plan.pollSteps, windowSeconds: plan.pollWindowS, reference: refSteps, bare: bareSteps, note: 'largest step passing; the step after it failed or the list ended' },
  };
}

interface Args { quick: boolean; only?: string }
const ALL = ['rest', 'message', 'webhook', 'polling'] as const;

export const benchCommand: CommandModule<{}, Args> = {
  command: 'bench',
  describe: 'Benchmark the reference implementation (REST throughput, polling capacity, message-path latency, webhook rate) against baselines; writes reports/bench.json',
  builder: (y) => y
    .option('quick', { type: 'boolean', default: false, describe: 'Short runs and few steps (a smoke of the benchmarks, figures not for the README)' })
    .option('only', { type: 'string', describe: `Comma list of benchmarks to run (${ALL.join(', ')}); default: all` }),
  handler: async (a) => {
    const only = a.only ? a.only.split(',').map((s) => s.trim()) : [...ALL];
    const plan: Plan = a.quick
      ? { quick: true, vus: 8, seconds: 3, pollSteps: [5, 10], pollWindowS: 4, webhookRates: [10], conversations: 20 }
      : { quick: false, vus: 16, seconds: 10, pollSteps: [5, 10, 25, 50, 100, 200, 400, 800], pollWindowS: 10, webhookRates: [25, 50, 100, 200], conversations: 200 };
    const run = newRunDir('bench');
    const resolved = await resolveTarget({ runDir: run.dir });
    const stack = resolved.stack!;
    const caFile = path.join(run.dir, 'bench-ca.pem');
    fs.writeFileSync(caFile, fs.readFileSync(stack.ready.ca_file, 'utf8'));
    const figures: BenchFigure[] = [];
    const started = new Date().toISOString();
    const loadAtStart = os.loadavg().map((x) => round(x, 2));
    try {
      console.log(`ces bench: reference implementation at ${stack.ready.base_url}; run folder ${run.dir}`);
      // Order matters: the polling benchmark leaves hundreds of bots polling, so it runs last.
      if (only.includes('rest')) figures.push(await restThroughput(stack, run.dir, resolved.file, plan, caFile));
      if (only.includes('message')) figures.push(await messagePath(stack, run.dir, resolved.file, plan));
      if (only.includes('webhook')) figures.push(await webhookRate(stack, run.dir, resolved.file, plan, caFile));
      if (only.includes('polling')) figures.push(await pollingCapacity(stack, plan));
    } finally {
      await resolved.close();
    }
    // The load average says how busy the machine was: the ratios hold up under contention, absolute figures do not.
    const report = { date: started, run: run.id, quick: plan.quick, machine: { ...machine(), loadAverageAtStart: loadAtStart, loadAverageAtEnd: os.loadavg().map((x) => round(x, 2)) }, figures };
    const text = mask(JSON.stringify(report, null, 2));
    fs.writeFileSync(path.join(run.dir, 'bench.json'), text);
    fs.writeFileSync(path.join(REPORTS, 'bench.json'), text);
    writeRunSummary(run.dir, { id: run.id, kind: 'bench', date: started, target: mask(stack.ready.base_url), reference: true, deviations: [], exitCode: 0, checks: [], verdicts: [] });
    buildLanding();
    for (const f of figures) console.log(`${f.title}: ${f.value} ${f.unit} (baseline ${f.baseline.value} ${f.baseline.unit}${f.ratio !== null ? `, ratio ${f.ratio}` : ''})`);
    console.log(`\nreports/bench.json written (${path.join(REPORTS, 'bench.json')})`);
  },
};
