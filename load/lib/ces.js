// Shared library of the k6 load scenarios: the target file, options from the environment, per-endpoint tags, budgets and the JSON summary.
import { LIMITS } from '../../lib/limits.ts';
import encoding from 'k6/encoding';

export { LIMITS };

/**
 * Load budgets: decisions of this project (clause severity REF), not spec limits; each names the clause that uses it.
 * Spec limits (10 s message answer, 1 s polling ±10 %, 10 s configuration endpoints) come from lib/limits.ts.
 */
export const BUDGETS = {
  /** LOAD-REST-02: p95 of a REST read on the reference implementation. */
  restP95Ms: 500,
  /** LOAD-GQL-02: p95 of a GraphQL read on the reference implementation. */
  graphqlP95Ms: 800,
  /** LOAD-REST-01 / LOAD-GQL-01: share of reads that must succeed. */
  readSuccessRate: 0.99,
  /** LOAD-MSG-02: p95 of what the service adds to endpoint 7's own time on the message path (end to end minus the connector's time). */
  messageAddedP95Ms: 500,
  /** LOAD-WH-02: p95 delay from an event to the start of its first delivery attempt. */
  webhookFirstAttemptP95Ms: 1_000,
};

/** The target description (a `ces serve` ready file is one); `ces load` sets CES_TARGET. */
export const target = JSON.parse(open(requiredEnv('CES_TARGET')));

/** Headers of a simulation or fake-control call: `Authorization: Bearer <sim_token>` (targets without the token lack those APIs). */
export function simAuth() {
  return target.sim_token ? { Authorization: `Bearer ${target.sim_token}` } : {};
}

export function requiredEnv(name) {
  const v = __ENV[name];
  if (!v) throw new Error(`${name} is not set: run through \`ces load\`, or give -e ${name}=... to k6 run (see docs/load.md)`);
  return v;
}

/** An integer option from the environment (`ces load --vus/--rate` set CES_VUS/CES_RATE). */
export function envInt(name, dflt) {
  const v = __ENV[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got ${v}`);
  return n;
}

/** A k6 duration from CES_DURATION (`ces load --duration 5s`), or the scenario's default. */
export function envDuration(dflt) {
  const v = __ENV.CES_DURATION;
  if (!v) return dflt;
  if (!/^\d+(ms|s|m|h)$/.test(v)) throw new Error(`CES_DURATION must look like 5s, 2m or 500ms, got ${v}`);
  return v;
}

const LOOPBACK = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/;

/**
 * Options every scenario shares. TLS: `ces load` makes k6 trust the target's CA through SSL_CERT_FILE (Go's root store);
 * CES_INSECURE_LOOPBACK=1 skips verification instead, and only when every URL of the target is on loopback.
 */
export function baseOptions() {
  const urls = ['base_url', 'rest_base_url', 'graphql_url', 'sim_url', 'platform_url', 'connector_url', 'sink_url'].map((k) => target[k]).filter(Boolean);
  const insecure = __ENV.CES_INSECURE_LOOPBACK === '1';
  if (insecure && !urls.every((u) => LOOPBACK.test(u))) throw new Error('CES_INSECURE_LOOPBACK=1 is allowed for loopback targets only');
  return {
    insecureSkipTLSVerify: insecure,
    summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'],
  };
}

/** Request tags: the endpoint (per-endpoint thresholds) and the clause its thresholds verify. */
export function tags(endpoint, clause) { return { endpoint, clause }; }

/** REST request parameters with the key given one of the spec's three ways (header, query, Basic), chosen per request. */
export function restKey(key, way) {
  if (way === 'basic') return { headers: { Authorization: `Basic ${encoding.b64encode(`${key}:x`)}` }, query: '' };
  if (way === 'query') return { headers: {}, query: `key=${encodeURIComponent(key)}` };
  return { headers: { 'X-API-Key': key }, query: '' };
}

/** Joins a URL and query parts, skipping empty ones. */
export function withQuery(url, ...parts) {
  const q = parts.filter(Boolean).join('&');
  return q ? `${url}${url.includes('?') ? '&' : '?'}${q}` : url;
}

/** A JSON body, or null when the body is not JSON (a check then fails with the status shown). */
export function json(res) {
  try { return res.json(); } catch { return null; }
}

/** handleSummary for every scenario: k6's summary as JSON (CES_SUMMARY) and a short text verdict per threshold on stdout. */
export function summary(scenario) {
  return function handleSummary(data) {
    data.ces = { scenario, segment: __ENV.CES_SEGMENT || null };
    const out = { stdout: textSummary(scenario, data) };
    out[__ENV.CES_SUMMARY || `k6-summary-${scenario}.json`] = JSON.stringify(data, null, 1);
    return out;
  };
}

const BUILTIN = /^(http_|iteration|data_|vus|checks|dropped_iterations)/;

function fmt(v) { return typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : String(v); }

function textSummary(scenario, data) {
  const lines = [`\nscenario ${scenario}: thresholds (the pass/fail rule)`];
  let failed = 0;
  for (const [name, m] of Object.entries(data.metrics).sort(([a], [b]) => a.localeCompare(b))) {
    if (!m.thresholds) continue;
    for (const [expr, t] of Object.entries(m.thresholds)) {
      if (!t.ok) failed++;
      const stat = expr.split(/[<>=!]/)[0].trim();
      const value = m.values[stat] ?? m.values.rate ?? m.values.count;
      lines.push(`  ${t.ok ? 'ok  ' : 'FAIL'} ${name} ${expr}  (${stat}=${fmt(value)})`);
    }
  }
  // The scenario's own figures (achieved rates, interval errors, latencies), beside the verdicts.
  const custom = Object.entries(data.metrics).filter(([n]) => !n.includes('{') && !BUILTIN.test(n)).sort(([a], [b]) => a.localeCompare(b));
  if (custom.length) lines.push('  figures:');
  for (const [name, m] of custom) {
    const v = m.values;
    const shown = m.type === 'trend' ? `med=${fmt(v.med)} p95=${fmt(v['p(95)'])} p99=${fmt(v['p(99)'])} max=${fmt(v.max)} n=${v.count}`
      : m.type === 'counter' ? `count=${fmt(v.count)} rate=${fmt(v.rate)}/s` : m.type === 'rate' ? `rate=${fmt(v.rate)}` : JSON.stringify(v);
    lines.push(`    ${name}: ${shown}`);
  }
  const it = data.metrics.iterations?.values;
  const reqs = data.metrics.http_reqs?.values;
  lines.push(`  iterations ${it ? `${it.count} (${fmt(it.rate)}/s)` : 0}, http requests ${reqs ? `${reqs.count} (${fmt(reqs.rate)}/s)` : 0}`);
  lines.push(failed ? `  ${failed} threshold(s) crossed` : '  every threshold held');
  return lines.join('\n') + '\n';
}
