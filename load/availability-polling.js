// k6 scenario availability-polling: endpoint 4 at ~1/s per bot operator, from both sides (k6 as the service; the service observed on the fake connector).
import http from 'k6/http';
import crypto from 'k6/crypto';
import exec from 'k6/execution';
import { check, sleep } from 'k6';
import { Trend, Rate, Counter } from 'k6/metrics';
import { target, baseOptions, envInt, envDuration, tags, json, summary, simAuth, LIMITS } from './lib/ces.js';

/** Bot operators: polled by the service (service side) and impersonated by k6 (connector side), N of each. */
const BOTS = envInt('CES_VUS', 20);
const PERIOD = LIMITS.availabilityPollMs;
const TOLERANCE_MS = PERIOD * LIMITS.availabilityPollTolerance;
const duration = envDuration('30s');
/** The service side needs the simulation and platform APIs (create bots) and a fake connector whose request log k6 can read. */
// Split into execution segments (CES_SEGMENT=<from>:<to> given to each instance), only the first segment observes the service.
const FIRST_SEGMENT = !__ENV.CES_SEGMENT || __ENV.CES_SEGMENT.startsWith('0:');
const SERVICE_SIDE = FIRST_SEGMENT && __ENV.CES_SERVICE_SIDE !== '0' && (target.capabilities || []).includes('platform') && !!target.connector_url;
const CONNECTOR_SIDE = __ENV.CES_CONNECTOR_SIDE !== '0' && !!target.connector_url;
const SECRET = __ENV.CES_CONNECTOR_SECRET || target.connector_secret || '';
/** Set (a fault of the fake connector's control API, JSON) to make endpoint 4 misbehave: a run that must cross LOAD-POLL-02. */
const CONNECTOR_FAULT = __ENV.CES_CONNECTOR_FAULT ? JSON.parse(__ENV.CES_CONNECTOR_FAULT) : undefined;

const intervalMs = new Trend('poll_interval_ms', true);
const intervalErrorMs = new Trend('poll_interval_error_ms', true);
const botFresh = new Rate('poll_bot_fresh');
const servicePolls = new Counter('poll_service_requests');

const scenarios = {};
const thresholds = {};
if (CONNECTOR_SIDE) {
  // k6 acts as the service: one signed GET /availability-strategies per bot operator per second.
  scenarios['connector-side'] = {
    executor: 'constant-arrival-rate', exec: 'connectorSide', rate: envInt('CES_RATE', BOTS), timeUnit: `${PERIOD}ms`, duration,
    preAllocatedVUs: Math.max(2, Math.ceil(BOTS / 10)), maxVUs: Math.max(10, BOTS),
  };
  thresholds['http_req_duration{endpoint:availability-strategies,clause:LOAD-POLL-02}'] = [`max<${LIMITS.configEndpointTimeoutMs}`];
  thresholds['http_reqs{endpoint:availability-strategies,clause:LOAD-POLL-02}'] = ['count>0'];
  thresholds['checks{endpoint:availability-strategies,clause:LOAD-POLL-02}'] = ['rate==1'];
}
if (SERVICE_SIDE) {
  // One observer (segment-safe: a single VU lands in one segment only) reads the fake connector's request log every second.
  scenarios['service-side'] = { executor: 'constant-vus', exec: 'serviceSide', vus: 1, duration };
  thresholds['poll_interval_ms{clause:LOAD-POLL-01}'] = [`avg>${PERIOD - TOLERANCE_MS}`, `avg<${PERIOD + TOLERANCE_MS}`];
  thresholds['poll_interval_error_ms{clause:LOAD-POLL-01}'] = [`p(95)<${TOLERANCE_MS}`];
  thresholds['poll_bot_fresh{clause:LOAD-POLL-01}'] = ['rate>0.99'];
}
if (!CONNECTOR_SIDE && !SERVICE_SIDE) throw new Error('availability-polling needs connector_url in the target (and the platform capability for the service side)');

export const options = { ...baseOptions(), scenarios, thresholds };

const platform = (path, body) => {
  const params = { headers: { 'X-API-Key': target.api_key, 'Content-Type': 'application/json' }, tags: tags('platform', 'setup') };
  const res = body === undefined ? http.get(`${target.platform_url}${path}`, params) : http.post(`${target.platform_url}${path}`, JSON.stringify(body), params);
  if (res.status >= 300) throw new Error(`${body === undefined ? 'GET' : 'POST'} ${target.platform_url}${path}: ${res.status} ${String(res.body).slice(0, 300)}`);
  return json(res);
};
const control = (path) => {
  const res = http.get(`${target.connector_url}/_control${path}`, { headers: simAuth(), tags: tags('connector-control', 'observer') });
  if (res.status !== 200) throw new Error(`GET ${target.connector_url}/_control${path}: ${res.status} (the service side needs the fake connector's control API)`);
  return json(res);
};

const controlPost = (path, body) => {
  const res = http.post(`${target.connector_url}/_control${path}`, JSON.stringify(body), { headers: { ...simAuth(), 'Content-Type': 'application/json' }, tags: tags('connector-control', 'setup') });
  if (res.status !== 200) throw new Error(`POST ${target.connector_url}/_control${path}: ${res.status} ${String(res.body).slice(0, 300)} (the service side needs the fake connector's control API)`);
  return json(res);
};

/** Service side: makes sure BOTS load bot operators exist and are polled; connector side: the installation's query values. */
export function setup() {
  let idConnectorVersion = __ENV.CES_CONNECTOR_VERSION || '00000000-0000-4000-8000-00000000c0de';
  let idWebsite = __ENV.CES_WEBSITE_ID || '1';
  let botIds = [];
  let since = 0;
  const lastPoll = {};
  if ((target.capabilities || []).includes('platform')) {
    const inst = platform('/installations').data[0];
    if (inst) { idConnectorVersion = inst.idConnectorVersion; idWebsite = String(inst.websiteId); }
  }
  if (SERVICE_SIDE) {
    const inst = platform('/installations').data[0];
    if (!inst) throw new Error('no connector installation on the target: the service side needs one (the embedded reference implementation seeds it)');
    const idBot = (platform(`/installations/${inst.id}/external-bots`).data || [])[0]?.idBot;
    const mine = () => platform('/bots').data.filter((b) => /^Load bot \d+$/.test(b.name || ''));
    const existing = mine().length;
    // One scenario per bot agent (the spec: a scenario is bound to one bot agent only): the fake connector lists a copy of its first
    // scenario for each load bot, then each bot is created on its own.
    for (let k = existing + 1; k <= BOTS; k++) {
      controlPost('/scenario', { idBot: `load-${k}`, copyOf: idBot });
      platform('/bots', { installationId: inst.id, name: `Load bot ${k}`, pseudo: `Load ${k}`, language: 'en', idBot: `load-${k}` });
    }
    botIds = mine().slice(0, BOTS).map((b) => String(b.idOperator));
    since = control('/requests?endpoint=availability&path=/none').lastSeq;
    // Warm-up: every bot has been polled once, so each measured interval is a steady-state one.
    const deadline = Date.now() + 5 * PERIOD + BOTS * 50;
    const seen = new Set();
    while (seen.size < botIds.length && Date.now() < deadline) {
      sleep(PERIOD / 2000);
      for (const r of control(`/requests?endpoint=availability&since=${since}`).requests) if (botIds.includes(r.idOperator)) seen.add(r.idOperator);
    }
    if (seen.size < botIds.length) throw new Error(`only ${seen.size} of ${botIds.length} bot operators were polled within the warm-up`);
    // The observer starts from each bot's last warm-up poll, so its first interval is already measured.
    const log = control(`/requests?endpoint=availability&since=${since}`);
    for (const r of log.requests) if (botIds.includes(r.idOperator)) lastPoll[r.idOperator] = r.at;
    since = log.lastSeq;
  }
  if (CONNECTOR_FAULT) {
    const r = http.post(`${target.connector_url}/_control/faults`, JSON.stringify(CONNECTOR_FAULT), { headers: { 'Content-Type': 'application/json', ...simAuth() }, tags: tags('connector-control', 'setup') });
    if (r.status !== 200) throw new Error(`could not set the fake connector's fault (${r.status}): CES_CONNECTOR_FAULT needs the fake connector's control API`);
  }
  const k6Bots = (__ENV.CES_BOT_IDS ? __ENV.CES_BOT_IDS.split(',') : Array.from({ length: BOTS }, (_, k) => `k6-load-${k + 1}`));
  return { idConnectorVersion, idWebsite, botIds, k6Bots, since, lastPoll };
}

export function connectorSide(data) {
  const i = exec.scenario.iterationInTest;
  const idOperator = data.k6Bots[i % data.k6Bots.length];
  const raw = `idOperator=${encodeURIComponent(idOperator)}&idConnectorVersion=${encodeURIComponent(data.idConnectorVersion)}&idWebsite=${encodeURIComponent(data.idWebsite)}`;
  // G2: HMAC-SHA256 of the raw query string, keyed with the connector's secret.
  const signature = `sha256=${crypto.hmac('sha256', SECRET, raw, 'hex')}`;
  const res = http.get(`${target.connector_url}/availability-strategies?${raw}`, {
    headers: { 'X-Service-Signature': signature, Accept: 'application/json' }, timeout: `${LIMITS.configEndpointTimeoutMs}ms`,
    tags: tags('availability-strategies', 'LOAD-POLL-02'),
  });
  const body = json(res);
  check(res, {
    'status 200': (r) => r.status === 200,
    'a JSON array of availability strategies': () => Array.isArray(body) && body.every((s) => s && typeof s.strategy === 'string'),
    [`answered within ${LIMITS.configEndpointTimeoutMs} ms`]: (r) => r.timings.duration < LIMITS.configEndpointTimeoutMs,
  }, tags('availability-strategies', 'LOAD-POLL-02'));
}

// Observer state (one VU): the last log sequence read and each bot's last poll time, on the connector's clock.
let since = -1;
let lastAt = {};

export function serviceSide(data) {
  if (since < 0) { since = data.since; lastAt = { ...data.lastPoll }; }
  const started = Date.now();
  const log = control(`/requests?endpoint=availability&since=${since}`);
  since = log.lastSeq;
  const mine = new Set(data.botIds);
  for (const r of log.requests) {
    if (!mine.has(r.idOperator)) continue;
    servicePolls.add(1);
    const prev = lastAt[r.idOperator];
    if (prev !== undefined) {
      intervalMs.add(r.at - prev, { clause: 'LOAD-POLL-01' });
      intervalErrorMs.add(Math.abs(r.at - prev - PERIOD), { clause: 'LOAD-POLL-01' });
    }
    lastAt[r.idOperator] = r.at;
  }
  // A bot is fresh when its last poll is at most one period (+10 %) plus the observation step old.
  for (const id of data.botIds) botFresh.add(lastAt[id] !== undefined && log.now - lastAt[id] <= 2 * PERIOD + TOLERANCE_MS, { clause: 'LOAD-POLL-01' });
  sleep(Math.max(0, PERIOD - (Date.now() - started)) / 1000);
}

export const handleSummary = summary('availability-polling');
