// k6 benchmark script: closed-loop GET throughput of one URL (the reference implementation's /operator/live, or the bare baseline server).
import http from 'k6/http';
import { check } from 'k6';

const URL = __ENV.CES_BENCH_URL;
const KEY = __ENV.CES_BENCH_KEY || '';
if (!URL) throw new Error('CES_BENCH_URL is not set (run through `ces bench`)');

export const options = {
  scenarios: { throughput: { executor: 'constant-vus', vus: Number(__ENV.CES_VUS || 16), duration: __ENV.CES_DURATION || '8s' } },
  // A benchmark run is judged by its ratio, but it must be made of good answers only.
  thresholds: { 'checks{endpoint:bench}': ['rate==1'] },
  summaryTrendStats: ['avg', 'med', 'p(95)', 'p(99)', 'max'],
};

export default function () {
  const res = http.get(URL, { headers: { 'X-API-Key': KEY }, tags: { endpoint: 'bench' } });
  check(res, { 'status 200': (r) => r.status === 200 }, { endpoint: 'bench' });
}

export function handleSummary(data) { return { [__ENV.CES_SUMMARY || 'bench-summary.json']: JSON.stringify(data) }; }
