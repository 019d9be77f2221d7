// k6 scenario rest-read: REST v2 list/filter/paginate reads at a constant arrival rate, every client's key, the spec's three ways to give it.
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { target, baseOptions, envInt, envDuration, tags, restKey, withQuery, json, summary, BUDGETS, LIMITS } from './lib/ces.js';

/** One read per endpoint tag; `i` varies page, filters and key per iteration so the mix is deterministic. */
const READS = {
  'operator-list': (i) => `/operator?page=${1 + (i % 2)}&limit=${[20, 50, LIMITS.restPageMax][i % 3]}`,
  'operator-filter': (i) => `/operator?filters[name]=${encodeURIComponent(['*a*', '*e*', 'Bot*'][i % 3])}&full=1`,
  'operator-live': (i) => (i % 2 ? '/operator/live' : '/operator/live?connected=0'),
  'group-list': () => '/group',
  'skill-list': () => '/skill',
  'visitor-list': (i) => `/visitor?page=${1 + (i % 3)}&limit=${LIMITS.restPageDefault}`,
  'conversation-list': (i) => `/conversation.json-unicode?formatHistory=0&filters[channel]=chat&page=${1 + (i % 3)}`,
  'transaction-list': (i) => `/transaction?filters[conversation_id]=${i % 2 ? '!null' : 'null'}`,
};
const ENDPOINTS = Object.keys(READS);
const WAYS = ['header', 'query', 'basic'];

const rate = envInt('CES_RATE', 20);
const thresholds = {};
for (const e of ENDPOINTS) {
  // Every endpoint is exercised (count>0 guards against a vacuous pass) and held to the REST budget.
  thresholds[`http_req_duration{endpoint:${e},clause:LOAD-REST-02}`] = [`p(95)<${BUDGETS.restP95Ms}`];
  thresholds[`http_reqs{endpoint:${e},clause:LOAD-REST-02}`] = ['count>0'];
  thresholds[`checks{endpoint:${e},clause:LOAD-REST-01}`] = [`rate>${BUDGETS.readSuccessRate}`];
}

export const options = {
  ...baseOptions(),
  scenarios: {
    'rest-read': {
      executor: 'constant-arrival-rate', rate, timeUnit: '1s', duration: envDuration('30s'),
      preAllocatedVUs: Math.max(4, Math.ceil(rate / 2)), maxVUs: Math.max(10, rate * 2),
    },
  },
  thresholds,
};

export default function () {
  // The instance's own counter: each execution segment cycles through every endpoint (a global counter would give one segment only the even ones).
  const i = exec.scenario.iterationInInstance;
  const endpoint = ENDPOINTS[i % ENDPOINTS.length];
  const keys = target.api_keys?.length ? target.api_keys.map((k) => k.key) : [target.api_key];
  const k = restKey(keys[Math.floor(i / ENDPOINTS.length) % keys.length], WAYS[Math.floor(i / (ENDPOINTS.length * keys.length)) % WAYS.length]);
  const res = http.get(withQuery(target.rest_base_url + READS[endpoint](i), k.query), { headers: k.headers, tags: tags(endpoint, 'LOAD-REST-02') });
  const body = json(res);
  check(res, {
    'status 200': (r) => r.status === 200,
    'meta.status success': () => body?.meta?.status === 'success',
    'data is a list with pagination': () => Array.isArray(body?.data) && (endpoint === 'operator-live' || typeof body?.pagination?.count === 'number'),
  }, tags(endpoint, 'LOAD-REST-01'));
}

export const handleSummary = summary('rest-read');
