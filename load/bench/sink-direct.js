// k6 benchmark script: baseline for webhook fan-out, the same signed deliveries POSTed straight to the webhook sink (no dispatcher in between).
import http from 'k6/http';
import crypto from 'k6/crypto';
import exec from 'k6/execution';
import { check } from 'k6';

const URL = __ENV.CES_BENCH_URL;
if (!URL) throw new Error('CES_BENCH_URL is not set (run through `ces bench`)');
const SECRET = __ENV.CES_BENCH_SECRET || 'bench-secret';

export const options = {
  scenarios: { direct: { executor: 'constant-vus', vus: Number(__ENV.CES_VUS || 16), duration: __ENV.CES_DURATION || '8s' } },
  thresholds: { 'checks{endpoint:sink-direct}': ['rate==1'] },
};

export default function () {
  const n = exec.scenario.iterationInTest;
  const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const body = JSON.stringify({ eventId: uuid, eventType: 'visitor.updated', platform: 'sd', clientId: 1, operatorId: 1, visitorId: `v-${n}`, createdAt: new Date().toISOString(), sentAt: new Date().toISOString() });
  const res = http.post(URL, body, {
    headers: { 'Content-Type': 'application/json', 'X-Service-Delivery': uuid, 'X-Service-CorrelationId': uuid, 'X-Service-Signature': `sha256=${crypto.hmac('sha256', SECRET, body, 'hex')}` },
    tags: { endpoint: 'sink-direct' },
  });
  check(res, { '20x': (r) => r.status >= 200 && r.status < 300 }, { endpoint: 'sink-direct' });
}

export function handleSummary(data) { return { [__ENV.CES_SUMMARY || 'bench-summary.json']: JSON.stringify(data) }; }
