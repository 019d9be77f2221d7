// k6 scenario webhook-fanout: events at a steady rate, the sink answering a mix of 503 and 200; nothing may be lost (every event ends in a 20x at the sink).
import http from 'k6/http';
import { check, sleep } from 'k6';
import exec from 'k6/execution';
import { Trend, Counter, Rate } from 'k6/metrics';
import { target, baseOptions, envInt, envDuration, tags, json, summary, simAuth, BUDGETS, LIMITS } from './lib/ces.js';

const rate = envInt('CES_RATE', 10);
/** Every `RETRY_EVERY`-th visitor's events get 503 first (then 200 on the first retry, G4): the 503/200 mix. */
const RETRY_EVERY = 2;
/** With the clock capability the drain advances the service clock past the retry delays; CES_REAL_TIME_RETRIES=1 waits them out. */
const FAST_RETRIES = (target.capabilities || []).includes('clock') && __ENV.CES_REAL_TIME_RETRIES !== '1';
const ADVANCE_STEPS = 20;
const DRAIN_MS = LIMITS.webhookRetryDelaysMs.reduce((a, b) => a + b, 0) + 10_000;

const firstAttemptMs = new Trend('webhook_first_attempt_ms', true);
const endToEndMs = new Trend('webhook_delivered_after_ms', true);
const delivered = new Rate('webhook_delivered');
const lost = new Counter('webhook_lost');
const retried = new Counter('webhook_retried');
const events = new Counter('webhook_events');

export const options = {
  ...baseOptions(),
  scenarios: {
    'webhook-fanout': {
      executor: 'constant-arrival-rate', rate, timeUnit: '1s', duration: envDuration('30s'),
      preAllocatedVUs: Math.max(2, Math.ceil(rate / 5)), maxVUs: Math.max(10, rate * 2),
    },
  },
  // teardown waits for the retries (10 s then 20 s) of the last events.
  teardownTimeout: `${DRAIN_MS + 20_000}ms`,
  thresholds: {
    'checks{endpoint:sim-visitor-update,clause:LOAD-WH-01}': ['rate==1'],
    'webhook_delivered{clause:LOAD-WH-01}': ['rate==1'],
    'webhook_lost{clause:LOAD-WH-01}': ['count==0'],
    // The mix really happened: some events were answered 503 and retried.
    'webhook_retried{clause:LOAD-WH-01}': ['count>0'],
    'webhook_first_attempt_ms{clause:LOAD-WH-02}': [`p(95)<${BUDGETS.webhookFirstAttemptP95Ms}`],
  },
};

// The key names the client (REST, platform, sim visitors); the sim token opens the simulation and sink control APIs.
const keyed = (extra = {}) => ({ headers: { 'X-API-Key': target.api_key, 'Content-Type': 'application/json', ...simAuth(), ...extra } });
const call = (method, url, body, endpoint) => {
  const res = http.request(method, url, body === undefined ? null : JSON.stringify(body), { ...keyed(), tags: tags(endpoint, 'setup') });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${String(res.body).slice(0, 300)}`);
  return json(res);
};

/** One subscription per k6 instance on its own sink path (segment-safe), and the sink's answer plan for that path. */
export function setup() {
  const caps = target.capabilities || [];
  if (!caps.includes('platform') || !caps.includes('sim') || !target.sink_url) throw new Error('webhook-fanout needs the platform and sim capabilities and sink_url (the embedded stack has them)');
  const path = `/k6-fanout-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e9).toString(36)}`;
  const visitors = call('GET', `${target.sim_url}/visitors?limit=20`, undefined, 'sim-visitors').visitors;
  if (!visitors?.length) throw new Error('no visitor to update on the target');
  for (let k = 0; k < visitors.length; k += RETRY_EVERY) {
    call('POST', `${target.sink_url}/_control/plan`, { match: { path, body: { visitorId: visitors[k].uniqueId } }, answers: [503], then: 200 }, 'sink-control');
  }
  const sub = call('POST', `${target.platform_url}/webhooks`, { url: `${target.sink_url}${path}`, secret: `k6-fanout-${path}`, events: ['visitor.updated'] }, 'platform-webhooks');
  return { path, subscription: sub.id, visitors: visitors.map((v) => v.uniqueId) };
}

export default function (data) {
  const i = exec.scenario.iterationInTest;
  const visitor = data.visitors[i % data.visitors.length];
  const res = http.post(`${target.sim_url}/visitors/${encodeURIComponent(visitor)}`, JSON.stringify({ city: `k6 city ${i}` }), { ...keyed(), tags: tags('sim-visitor-update', 'LOAD-WH-01') });
  check(res, { 'event raised (visitor updated)': (r) => r.status === 200 }, tags('sim-visitor-update', 'LOAD-WH-01'));
}

/** Waits until no delivery of the subscription is pending, then judges every event against what the sink received. */
export function teardown(data) {
  const log = () => call('GET', `${target.platform_url}/webhooks/${data.subscription}/deliveries`, undefined, 'platform-deliveries').data;
  const deadline = Date.now() + DRAIN_MS;
  if (FAST_RETRIES) {
    // The retries are due 10 s then 20 s after the previous attempt on the service clock: move it instead of waiting (capability clock),
    // in steps, so the first retries (one per 503-first event) stay spread over seconds instead of firing as one burst; second retries are rare.
    sleep(1);
    LIMITS.webhookRetryDelaysMs.forEach((delay, n) => {
      const steps = n === 0 ? ADVANCE_STEPS : ADVANCE_STEPS / 5;
      for (let k = 0; k < steps; k++) { call('POST', `${target.sim_url}/clock/advance`, { ms: delay / steps }, 'sim-clock'); sleep(0.1); }
    });
  }
  let rows = log();
  while (rows.some((d) => d.state === 'pending') && Date.now() < deadline) { sleep(1); rows = log(); }
  const received = call('GET', `${target.sink_url}/_control/deliveries?path=${encodeURIComponent(data.path)}`, undefined, 'sink-control').deliveries;
  let shownLost = 0;
  const ok = new Set(received.filter((d) => d.answer.status >= 200 && d.answer.status < 300).map((d) => d.eventId));
  for (const d of rows) {
    events.add(1);
    const reached = ok.has(d.eventId);
    delivered.add(reached, { clause: 'LOAD-WH-01' });
    if (!reached) {
      lost.add(1, { clause: 'LOAD-WH-01' });
      // The first few lost events, with their attempts, say why (state, statuses, errors).
      if (shownLost++ < 3) console.warn(`lost event ${d.eventId}: state ${d.state}, attempts ${JSON.stringify(d.attempts.map((x) => ({ status: x.status, error: x.error, startedAt: x.startedAt })))}`);
    }
    if (d.attempts.length > 1) retried.add(1, { clause: 'LOAD-WH-01' });
    const first = d.attempts[0];
    if (first?.startedAt) firstAttemptMs.add(Date.parse(first.startedAt) - Date.parse(d.createdAt), { clause: 'LOAD-WH-02' });
    if (reached && d.finishedAt) endToEndMs.add(Date.parse(d.finishedAt) - Date.parse(d.createdAt));
  }
  if (!rows.length) delivered.add(false, { clause: 'LOAD-WH-01' });
  http.del(`${target.platform_url}/webhooks/${data.subscription}`, null, { ...keyed(), tags: tags('platform-webhooks', 'setup') });
}

export const handleSummary = summary('webhook-fanout');
