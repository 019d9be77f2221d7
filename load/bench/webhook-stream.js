// k6 benchmark script: a steady stream of visitor.updated events (one sim visitor update each) at a constant rate; `ces bench` judges delivery.
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';

const target = JSON.parse(open(__ENV.CES_TARGET));
const RATE = Number(__ENV.CES_RATE || 100);
const VISITORS = (__ENV.CES_BENCH_VISITORS || '').split(',').filter(Boolean);
if (!VISITORS.length) throw new Error('CES_BENCH_VISITORS is not set (run through `ces bench`)');
const raised = new Counter('bench_events_raised');
const simToken = target.sim_token;

export const options = {
  scenarios: {
    stream: {
      executor: 'constant-arrival-rate', rate: RATE, timeUnit: '1s', duration: __ENV.CES_DURATION || '10s',
      // Enough VUs that a slow answer never lowers the arrival rate (k6 reports dropped_iterations when it would). They are allocated
      // before the run, for a pause of 200 ms of the service at this rate: VUs k6 has to start during the run come too late, and it
      // drops iterations meanwhile (at 2,000/s, RATE / 20 dropped 1.8 % of them, RATE / 5 0.25 %).
      preAllocatedVUs: Math.max(8, Math.ceil(RATE / 5)), maxVUs: Math.max(50, RATE),
    },
  },
  summaryTrendStats: ['avg', 'med', 'p(95)', 'p(99)', 'max'],
  // Only the status is judged: not keeping the bodies spares the event source CPU that the service shares on a 2-core machine.
  discardResponseBodies: true,
};

const headers = { 'X-API-Key': target.api_key, 'Content-Type': 'application/json', ...(simToken ? { Authorization: `Bearer ${simToken}` } : {}) };

export default function () {
  const i = exec.scenario.iterationInTest;
  const visitor = VISITORS[i % VISITORS.length];
  const res = http.post(`${target.sim_url}/visitors/${encodeURIComponent(visitor)}`, JSON.stringify({ city: `bench ${i}` }), { headers, tags: { endpoint: 'sim-visitor-update' } });
  if (check(res, { 'event raised': (r) => r.status === 200 })) raised.add(1);
}

export function handleSummary(data) { return { [__ENV.CES_SUMMARY || 'bench-summary.json']: JSON.stringify(data) }; }
