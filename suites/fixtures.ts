// Fixtures every suite uses: the target, an HTTP client that records each request as a step with masked evidence, schema assertions, clause tags.
import { test as base, expect } from '@playwright/test';
import { loadTarget, type Capability, type Target } from '../lib/target.js';
import { agentFor, http, type HttpAnswer, type HttpRequest } from '../lib/http.js';
import { addSecret, mask } from '../lib/mask.js';
import { controlAuthHeader } from '../lib/control-auth.js';
import { clauseById } from '../lib/catalogue.js';
import { check } from '../lib/schemas.js';
import { httpBlocker } from '../check/settings.js';

export { expect };

let cachedTarget: Target | undefined;
/**
 * The target of this worker: CES_TARGET, or with CES_TARGETS (a JSON list of target files, one embedded stack per worker) the
 * file of this worker's parallel index, so no two workers share a service (nor its clock, nor its deviations).
 */
export function currentTarget(): Target {
  if (cachedTarget) return cachedTarget;
  const files = process.env.CES_TARGETS ? (JSON.parse(process.env.CES_TARGETS) as string[]) : undefined;
  const file = files?.length ? files[Number(process.env.TEST_PARALLEL_INDEX ?? 0) % files.length] : process.env.CES_TARGET;
  if (!file) throw new Error('CES_TARGET is not set: run the suites through `ces test` or set CES_TARGET to a target file');
  cachedTarget = loadTarget(file);
  for (const k of cachedTarget.api_keys) addSecret(k.key);
  addSecret(cachedTarget.api_key);
  addSecret(cachedTarget.user.password);
  for (const u of cachedTarget.users ?? []) addSecret(u.password);
  addSecret(cachedTarget.sim_token);
  return cachedTarget;
}

/** Test details naming the clauses a check verifies: `test('...', clauses('REST-PAGE-01'), async ...)`. */
export function clauses(...ids: string[]) {
  const known = clauseById();
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length) throw new Error(`check names clause(s) not in the catalogue: ${unknown.join(', ')}`);
  return { tag: ids.map((id) => '@' + id), annotation: [...ids.map((id) => ({ type: 'clause', description: id })), ...allureAnnotations(ids)] };
}

const ALLURE_SEVERITY = { MUST: 'critical', SHOULD: 'normal', MAY: 'minor', REF: 'trivial' } as const;
// Strongest first, in Allure's order (critical, normal, minor, trivial).
const SEVERITY_RANK = ['MUST', 'SHOULD', 'MAY', 'REF'] as const;

/**
 * Allure metadata of a check, as annotations allure-playwright reads (`@allure.label.<name>` → label, `tms` → link
 * through the `links.tms` template of playwright.config.ts): severity of the strongest clause, area as feature,
 * each clause as story (Allure's behaviours group checks by clause), and a link per clause to its landing-page row.
 */
export function allureAnnotations(ids: string[]): Array<{ type: string; description: string }> {
  const known = clauseById();
  const cs = ids.map((id) => known.get(id)).filter((c) => c !== undefined);
  const strongest = SEVERITY_RANK.find((s) => cs.some((c) => c.severity === s));
  return [
    ...(strongest ? [{ type: '@allure.label.severity', description: ALLURE_SEVERITY[strongest] }] : []),
    ...[...new Set(cs.map((c) => c.area))].map((area) => ({ type: '@allure.label.feature', description: area })),
    ...ids.map((id) => ({ type: '@allure.label.story', description: id })),
    ...ids.map((id) => ({ type: 'tms', description: id })),
  ];
}

/** Writes the severity of each clause of the running check next to its verdict (vendor checks: what a failure means). */
export function annotateSeverities(): void {
  const catalogue = clauseById();
  for (const tag of base.info().tags) {
    const c = catalogue.get(tag.replace(/^@/, ''));
    if (c) base.info().annotations.push({ type: 'severity', description: `${c.id}: ${c.severity}${c.severity === 'MUST' ? ' (a failure fails the run)' : c.severity === 'SHOULD' ? ' (a failure is a warning)' : ' (a failure is a note)'}` });
  }
}

/**
 * Set-up shared by the vendor checks (connector, receiver): skips, with the reason, when there is no partner URL, and when
 * the URL is plain http (the check of the HTTPS clause itself still runs and judges it); returns the partner's settings.
 */
export function checkedPartner<S extends { url: string; allowHttp: boolean }>(missing: string | undefined, settings: () => S, httpsClause: string): S {
  annotateSeverities();
  base.info().skip(missing !== undefined, missing);
  const s = settings();
  const blocker = base.info().tags.includes('@' + httpsClause) ? undefined : httpBlocker(s.url, s.allowHttp, httpsClause);
  base.info().skip(blocker !== undefined, blocker);
  return s;
}

/** Skips, with the reason in the report, when the target lacks a capability. Never a silent pass. */
export function needs(...caps: Capability[]): void {
  const t = currentTarget();
  // The simulation API (and the clock it moves) answers only with the sim token: a target without it lacks them.
  const missing = caps.filter((c) => !t.capabilities.includes(c) || ((c === 'sim' || c === 'clock') && !t.sim_token));
  base.skip(missing.length > 0, `target lacks ${missing.join(', ')}`);
}

export type AuthWay = 'header' | 'query' | 'basic' | 'none';
export interface RestCall {
  method?: string;
  /** Path under the REST base, e.g. `/operator?limit=5`. */
  path: string;
  auth?: AuthWay;
  key?: string;
  /** `ha` uses rest_ha_base_url. */
  base?: 'sd' | 'ha';
  json?: unknown;
  form?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  body?: string;
}

export class Api {
  constructor(public readonly target: Target) {}

  /** Any HTTP request, recorded as a report step with the masked request and answer attached. */
  async request(req: HttpRequest, label?: string): Promise<HttpAnswer> {
    // Calls of the simulation and control APIs carry the sim token unless the check sets its own Authorization.
    const auth = controlAuthHeader(this.target, req.url);
    if (auth.authorization && !Object.keys(req.headers ?? {}).some((h) => h.toLowerCase() === 'authorization')) req = { ...req, headers: { ...req.headers, ...auth } };
    const title = label ?? `${req.method ?? 'GET'} ${mask(req.url)}`;
    return base.step(title, async () => {
      let res: HttpAnswer | undefined;
      let error: unknown;
      try { res = await http(req, agentFor(this.target.ca_file)); } catch (e) { error = e; }
      const evidence = {
        request: { method: req.method ?? 'GET', url: req.url, headers: req.headers ?? {}, body: req.body?.toString() },
        response: res ? { status: res.status, headers: res.headers, body: res.json ?? res.text, ms: Math.round(res.ms) } : { error: String(error) },
      };
      await base.info().attach(title.slice(0, 80), { body: mask(JSON.stringify(evidence, null, 2)), contentType: 'application/json' });
      if (!res) throw error;
      return res;
    });
  }

  /** A REST API v2 call authenticated in one of the spec's three ways (header by default). */
  async rest(call: RestCall): Promise<HttpAnswer> {
    const baseUrl = call.base === 'ha' ? (this.target.rest_ha_base_url ?? this.target.rest_base_url) : this.target.rest_base_url;
    const key = call.key ?? this.target.api_key;
    const headers: Record<string, string> = { ...(call.headers ?? {}) };
    let url = baseUrl + call.path;
    switch (call.auth ?? 'header') {
      case 'header': headers['x-api-key'] = key; break;
      case 'query': url += (url.includes('?') ? '&' : '?') + 'key=' + encodeURIComponent(key); break;
      case 'basic': headers.authorization = 'Basic ' + Buffer.from(`${key}:x`).toString('base64'); break;
      case 'none': break;
    }
    let body = call.body;
    if (call.json !== undefined) { body = JSON.stringify(call.json); headers['content-type'] ??= 'application/json'; }
    if (call.form) {
      const p = new URLSearchParams();
      for (const [k, v] of Object.entries(call.form)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
      body = p.toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    }
    return this.request({ method: call.method ?? 'GET', url, headers, body }, `${call.method ?? 'GET'} ${mask(call.path)}${call.auth && call.auth !== 'header' ? ` (auth: ${call.auth})` : ''}`);
  }

  /** POST JSON to a URL (simulation and platform APIs). */
  async postJson(url: string, json: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    return this.request({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(json) });
  }
}

/** Asserts data against a schema of fixtures/schemas, with the schema errors as the failure message. */
export function expectSchema(schemaId: string, data: unknown): void {
  const errors = check(schemaId, data);
  expect(errors, `response does not match ${schemaId}: ${errors}`).toBeNull();
}

/**
 * `ces selftest` (cli/selftest-plan.ts): every check of a project belongs to one of its deviations, the one whose clauses it names;
 * before the check that deviation is switched on in this worker's own stack through the simulation API (none in the baseline).
 */
interface SelftestMeta { baseline: boolean; deviations: Array<{ id: string; clauses: string[] }> }
async function switchDeviation(target: Target, deviation: string): Promise<void> {
  const sim = target.sim_url ?? `${target.base_url}/sim`;
  const token = (target as { sim_token?: string }).sim_token;
  const res = await http({ method: 'POST', url: `${sim}/deviations`, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify({ ids: deviation ? [deviation] : [] }) }, agentFor(target.ca_file));
  if (res.status >= 300) throw new Error(`harness: switching the deviation to "${deviation}" failed: ${res.status} ${res.text.slice(0, 200)}`);
}

export const test = base.extend<{ target: Target; api: Api; deviation: void }>({
  target: async ({}, use) => { await use(currentTarget()); },
  api: async ({ target }, use) => { await use(new Api(target)); },
  deviation: [async ({ target }, use, testInfo) => {
    const meta = (testInfo.project.metadata as { selftest?: SelftestMeta } | undefined)?.selftest;
    if (!meta) { await use(); return; }
    const tags = new Set(testInfo.tags.map((t) => t.replace(/^@/, '')));
    const id = meta.baseline ? '' : meta.deviations.find((d) => d.clauses.some((c) => tags.has(c)))?.id ?? '';
    if (!meta.baseline) testInfo.annotations.push({ type: 'deviation', description: id });
    await switchDeviation(target, id);
    await use();
    // A check that fails under its deviation caught it: that is the expected outcome here, so Playwright keeps the worker (a
    // restart after each caught deviation cost a process start each). cli/selftest-plan.ts reads the actual status.
    if (!meta.baseline && testInfo.status === 'failed') testInfo.fail();
  }, { auto: true }],
});
