// k6 scenario message-path: many concurrent visitor conversations through the simulation API; each message goes service → connector → bot answer in the transcript.
import http from 'k6/http';
import { check, sleep } from 'k6';
import exec from 'k6/execution';
import { Trend, Rate } from 'k6/metrics';
import { target, baseOptions, envInt, envDuration, tags, json, summary, simAuth, BUDGETS, LIMITS } from './lib/ces.js';

/** Concurrent conversations (one per VU at any time). */
const VUS = envInt('CES_VUS', 10);
/** Visitor messages after the opening one, per conversation. */
const MESSAGES = envInt('CES_MESSAGES', 3);
/** Transcript polling step: finer with few conversations, coarser with many so polling does not become the load. */
const STEP_MS = Math.max(100, VUS * 5);
/** Set (ms) to delay the fake connector's endpoint 7 through its control API: a deviant run that must cross LOAD-MSG-01. */
const DELAY_MS = Number(__ENV.CES_CONNECTOR_DELAY_MS || 0);

const e2eMs = new Trend('message_e2e_ms', true);
const observedMs = new Trend('message_observed_ms', true);
const addedMs = new Trend('message_added_ms', true);
const connectorMs = new Trend('message_connector_ms', true);
const answered = new Rate('message_answered');

const SIM_ENDPOINTS = ['sim-conversation-create', 'sim-visitor-message', 'sim-conversation-read'];
const thresholds = {
  // The spec's 10 s limit on endpoint 7, measured on the service's transcript (visitor message → bot answer).
  'message_e2e_ms{clause:LOAD-MSG-01}': [`max<${LIMITS.messageTimeoutMs}`],
  'message_answered{clause:LOAD-MSG-01}': ['rate==1'],
  // What the reference implementation adds to the connector's own time (end to end minus endpoint 7's duration).
  'message_added_ms{clause:LOAD-MSG-02}': [`p(95)<${BUDGETS.messageAddedP95Ms}`],
};
for (const e of SIM_ENDPOINTS) thresholds[`http_req_failed{endpoint:${e},clause:LOAD-MSG-01}`] = ['rate<0.01'];

export const options = {
  ...baseOptions(),
  scenarios: { 'message-path': { executor: 'constant-vus', vus: VUS, duration: envDuration('30s'), gracefulStop: `${2 * LIMITS.messageTimeoutMs}ms` } },
  thresholds,
};

const sim = (method, path, body, endpoint) => http.request(method, `${target.sim_url}${path}`, body === undefined ? null : JSON.stringify(body), {
  headers: { 'Content-Type': 'application/json', 'X-API-Key': target.api_key, ...simAuth() }, tags: tags(endpoint, 'LOAD-MSG-01'),
});
const fakeControl = (path, body) => http.post(`${target.connector_url}/_control${path}`, JSON.stringify(body), { headers: { 'Content-Type': 'application/json', ...simAuth() }, tags: tags('connector-control', 'setup') });

/** Waits until a bot is ready and available (conversations would go to humans otherwise); applies the optional connector delay. */
export function setup() {
  if (!(target.capabilities || []).includes('sim') || !target.sim_url) throw new Error('message-path drives visitors through the simulation API: the target needs the "sim" capability and sim_url');
  const deadline = Date.now() + 5 * LIMITS.availabilityPollMs + LIMITS.botSetupRetryMs;
  for (;;) {
    const bots = json(sim('GET', '/bots', undefined, 'sim-bots'))?.bots ?? [];
    if (bots.some((b) => b.status === 'ready' && b.available)) break;
    if (Date.now() > deadline) throw new Error(`no bot is ready and available on ${target.sim_url}/bots: ${JSON.stringify(bots.map((b) => ({ id: b.operatorId, status: b.status, available: b.available, lastError: b.lastError })))}`);
    sleep(0.25);
  }
  if (DELAY_MS > 0) {
    const r = fakeControl('/faults', { endpoint: 'messages', delayMs: DELAY_MS });
    if (r.status !== 200) throw new Error(`could not delay the fake connector (${r.status}): CES_CONNECTOR_DELAY_MS needs the fake connector's control API`);
  }
  return {};
}

export function teardown() {
  if (DELAY_MS > 0) fakeControl('/faults', { clear: true, endpoint: 'messages' });
}

/** Index of the first bot entry after `from` in the transcript, or -1. */
const botAfter = (transcript, from) => transcript.findIndex((t, k) => k > from && t.role === 'bot');

/** Sends nothing; waits for the bot's answer to the visitor entry with `text`; records the timings. Returns the conversation view. */
function awaitAnswer(id, text, sentAt) {
  // Waiting only bounds the observation (a busy load generator may see the answer late): the verdict is the transcript's own time.
  const deadline = sentAt + LIMITS.messageTimeoutMs + 2 * STEP_MS + 5000;
  for (;;) {
    sleep(STEP_MS / 1000);
    const view = json(sim('GET', `/conversations/${id}`, undefined, 'sim-conversation-read'));
    const tr = view?.transcript ?? [];
    let v = -1;
    for (let k = tr.length - 1; k >= 0; k--) if (tr[k].role === 'visitor' && tr[k].payload?.value === text) { v = k; break; }
    const b = v >= 0 ? botAfter(tr, v) : -1;
    if (b >= 0) {
      e2eMs.add(Date.parse(tr[b].at) - Date.parse(tr[v].at), { clause: 'LOAD-MSG-01' });
      observedMs.add(Date.now() - sentAt);
      answered.add(true, { clause: 'LOAD-MSG-01' });
      return { view, at: Date.parse(tr[b].at) - Date.parse(tr[v].at) };
    }
    if (Date.now() > deadline || view?.state === 'closed') {
      answered.add(false, { clause: 'LOAD-MSG-01' });
      return { view, at: null };
    }
  }
}

export default function () {
  const n = exec.scenario.iterationInTest;
  const visitorId = `k6-visitor-${n}`;
  const texts = [`load hello ${n}`, ...Array.from({ length: MESSAGES }, (_, k) => `load message ${n}.${k + 1}`)];
  let sentAt = Date.now();
  const created = sim('POST', '/conversations', { channel: 'chat', text: texts[0], visitorId }, 'sim-conversation-create');
  const id = json(created)?.conversationId;
  if (!check(created, { 'conversation created': (r) => r.status === 201 && !!id }, tags('sim-conversation-create', 'LOAD-MSG-01'))) { answered.add(false, { clause: 'LOAD-MSG-01' }); return; }
  const first = awaitAnswer(id, texts[0], sentAt);
  if (first.view?.botOperatorId == null) { answered.add(false, { clause: 'LOAD-MSG-01' }); return; }
  // An opening left unanswered already crossed LOAD-MSG-01: the conversation is not driven further.
  if (first.at === null) return;
  const e2e = {};
  for (const text of texts.slice(1)) {
    sentAt = Date.now();
    const r = sim('POST', `/conversations/${id}/visitor-messages`, { text }, 'sim-visitor-message');
    if (!check(r, { 'visitor message accepted': (x) => x.status === 201 }, tags('sim-visitor-message', 'LOAD-MSG-01'))) { answered.add(false, { clause: 'LOAD-MSG-01' }); continue; }
    const a = awaitAnswer(id, text, sentAt);
    if (a.at !== null) e2e[text] = a.at;
  }
  // Endpoint 7's own duration per visitor message, from the service's exchange log: the rest is what the service adds.
  const ex = json(sim('GET', `/conversations/${id}/exchanges`, undefined, 'sim-exchanges'))?.exchanges ?? [];
  for (const x of ex) {
    if (x.endpoint !== 'messages' || !x.requestBody) continue;
    let body;
    try { body = JSON.parse(x.requestBody); } catch { continue; }
    const text = body?.message?.author?.role === 'visitor' ? body.message.payload?.value : undefined;
    if (text === undefined || e2e[text] === undefined || x.ms == null) continue;
    connectorMs.add(x.ms);
    addedMs.add(Math.max(0, e2e[text] - x.ms), { clause: 'LOAD-MSG-02' });
  }
  sim('POST', `/conversations/${id}/close`, {}, 'sim-close');
}

export const handleSummary = summary('message-path');
