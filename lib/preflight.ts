// Pre-flight of a target (issue 18): each URL answers over trusted TLS, each key and user is accepted, each capability answers, in under 10 s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { STATUS_CODES } from 'node:http';
import { Agent } from './undici.js';
import { http, type HttpAnswer, type HttpRequest } from './http.js';
import type { Target } from './target.js';
import { bearerHeader } from './control-auth.js';
import { errorCode, isCertError, isNotTls } from './net-errors.js';

/** The whole pre-flight stops after this long (issue 18: "in under 10 s"). */
export const PREFLIGHT_DEADLINE_MS = 9_000;
/** Longest wait for one answer; a target slower than this is not usable for the run's deadlines either. */
const ANSWER_TIMEOUT_MS = 5_000;
/** A conversation id no service holds: the sim probe expects 404 for it. */
const NO_CONVERSATION = '00000000-0000-4000-8000-000000000000';

export interface SessionToken { client_id?: number; username: string; access_token: string; obtained_at: string }
export interface PreflightResult { problems: string[]; tokens: SessionToken[]; ms: number; checked: string[] }

/** What went wrong with a connection, in the words a user acts on. */
export function describeConnectionError(e: unknown, url: string, target: Pick<Target, 'ca_file'>): string {
  const code = errorCode(e) ?? '';
  const u = new URL(url);
  if (isCertError(e)) {
    return `the certificate is not trusted (${code}: ${(e as Error).message}): ${target.ca_file ? `"ca_file" ${target.ca_file} did not sign it; give the PEM file of the CA that did` : 'give the PEM file of its CA as "ca_file" in the target file'}, or add it to NODE_EXTRA_CA_CERTS`;
  }
  if (code === 'ECONNREFUSED') return 'connection refused: nothing listens there';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host ${u.hostname} not found (DNS)`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `host ${u.hostname} unreachable (${code})`;
  if (/TIMEOUT|ETIMEDOUT/.test(code)) return `${u.host} did not answer within ${ANSWER_TIMEOUT_MS / 1000} s (${code})`;
  if (isNotTls(e)) return `${u.host} does not speak TLS (is it an http:// URL?): ${(e as Error).message}`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `${u.host} reset the connection (${code})`;
  return `${u.host}: ${code ? `${code}: ` : ''}${(e as Error).message ?? String(e)}`;
}

const statusLine = (r: HttpAnswer) => `${r.status} ${STATUS_CODES[r.status] ?? ''}`.trim();
/** The service's own words of a refusal (REST meta.message, OAuth error), short. */
const said = (r: HttpAnswer) => {
  const j = r.json;
  const words = j?.meta?.message ?? (j?.error ? `${j.error}${j.error_description ? `: ${j.error_description}` : ''}` : undefined) ?? j?.message;
  return typeof words === 'string' && words && words !== STATUS_CODES[r.status] ? ` ("${words.slice(0, 120)}")` : '';
};

/**
 * Runs the pre-flight of a target. Problems are one line each, naming the target file's field and what to do; no clause
 * is judged here. Tokens obtained for the users are returned so the run reuses them (the login throttle is not spent).
 */
export async function preflight(target: Target, opts: { deadlineMs?: number } = {}): Promise<PreflightResult> {
  const started = performance.now();
  const deadline = started + (opts.deadlineMs ?? PREFLIGHT_DEADLINE_MS);
  const ca = target.ca_file ? fs.readFileSync(target.ca_file, 'utf8') : undefined;
  // A private agent: no connection pooled by an earlier run hides a failure, and nothing stays open afterwards.
  const agent = new Agent({ connect: { ...(ca ? { ca: [ca] } : {}), timeout: ANSWER_TIMEOUT_MS }, keepAliveTimeout: 1_000 });
  const checked: string[] = [];
  const send = async (req: HttpRequest): Promise<HttpAnswer> => {
    const left = Math.max(500, Math.min(ANSWER_TIMEOUT_MS, deadline - performance.now()));
    return http({ ...req, timeoutMs: left }, agent);
  };
  try {
    // 1. Each origin once: TLS trust and reachability. Everything after depends on it.
    const urls: Array<[string, string]> = (['base_url', 'rest_base_url', 'rest_ha_base_url', 'graphql_url', 'sim_url', 'platform_url', 'connector_url', 'connector_control_url', 'sink_url'] as const)
      .filter((f) => typeof target[f] === 'string').map((f) => [f, target[f] as string]);
    const byOrigin = new Map<string, Array<[string, string]>>();
    for (const [f, u] of urls) byOrigin.set(new URL(u).origin, [...(byOrigin.get(new URL(u).origin) ?? []), [f, u]]);
    const failed = (await Promise.all([...byOrigin].map(async ([origin, fields]) => {
      try { await send({ url: origin + '/' }); checked.push(`${origin} answers over ${origin.startsWith('https') ? 'trusted TLS' : 'plain HTTP'}`); return undefined; } catch (e) {
        return { where: `${fields.map(([f]) => `"${f}"`).join(', ')} ${origin}`, cause: describeConnectionError(e, origin, target) };
      }
    }))).filter((p) => p !== undefined);
    // One message per cause: an untrusted CA or a stopped host is said once, naming every field it concerns.
    const causes = new Map<string, string[]>();
    for (const f of failed) causes.set(f.cause, [...(causes.get(f.cause) ?? []), f.where]);
    if (causes.size) return { problems: [...causes].map(([cause, where]) => `${where.join('; ')}: ${cause}`), tokens: [], ms: performance.now() - started, checked };

    const problems: string[] = [];
    const tokens: SessionToken[] = [];
    const guard = (what: string, url: string) => (e: unknown) => { problems.push(`${what}: ${describeConnectionError(e, url, target)}`); };
    const jobs: Array<Promise<unknown>> = [];

    // 2. Each API key: one cheap authenticated REST call.
    const keys = new Map<string, string>();
    keys.set(target.api_key, '"api_key"');
    target.api_keys.forEach((k, i) => { if (!keys.has(k.key)) keys.set(k.key, `"api_keys[${i}]" (client ${k.client_id})`); });
    for (const [key, where] of keys) {
      const url = `${target.rest_base_url}/operator?limit=1`;
      jobs.push(send({ url, headers: { 'x-api-key': key, accept: 'application/json' } }).then((r) => {
        if (r.status === 200 && r.json?.meta?.status === 'success') { checked.push(`${where} accepted`); return; }
        const refused = r.status === 401 || r.status === 403 || r.json?.meta?.message === 'Forbidden';
        problems.push(refused
          ? `the key of ${where} is refused with ${statusLine(r)}${said(r)} by GET {rest_base_url}/operator: check the key; \`--no-preflight\` judges REST-AUTH anyway`
          : `GET {rest_base_url}/operator?limit=1 with the key of ${where} answered ${statusLine(r)}${said(r)}, not a success envelope: is "rest_base_url" ${target.rest_base_url} the REST API v2 base (ending in /api/2)?`);
      }, guard(`GET {rest_base_url}/operator with the key of ${where}`, url)));
    }

    // 3. Each user: one token request, whose token the run reuses.
    const users = new Map<string, { client_id?: number; username: string; password: string; where: string }>();
    users.set(target.user.username, { ...target.user, where: '"user"' });
    (target.users ?? []).forEach((u, i) => { if (!users.has(u.username)) users.set(u.username, { ...u, where: `"users[${i}]"` }); });
    for (const u of users.values()) {
      const url = `${target.base_url}/oauth2/token`;
      jobs.push(send({
        method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ username: u.username, password: u.password, grant_type: 'password' }).toString(),
      }).then((r) => {
        if (r.status === 200 && typeof r.json?.access_token === 'string') {
          tokens.push({ client_id: u.client_id ?? target.users?.find((x) => x.username === u.username)?.client_id, username: u.username, access_token: r.json.access_token, obtained_at: new Date().toISOString() });
          checked.push(`${u.where} ${u.username} got a token`);
          return;
        }
        problems.push(r.status === 429
          ? `the login of ${u.where} ${u.username} is throttled (${statusLine(r)}, Retry-After ${r.headers['retry-after'] ?? '?'} s): wait and run again`
          : `the login of ${u.where} ${u.username} is refused with ${statusLine(r)}${said(r)} by POST {base_url}/oauth2/token: check the username and password; \`--no-preflight\` judges AUTH anyway`);
      }, guard(`POST {base_url}/oauth2/token for ${u.where}`, url)));
    }

    // 4. Each declared capability, and the fakes' control APIs the suites drive (after the key is known good: they use it).
    await Promise.all(jobs.splice(0));
    if (problems.length) return { problems, tokens, ms: performance.now() - started, checked };
    const simAuth = bearerHeader(target.sim_token);
    // A refused token is one problem however many control surfaces refuse it: the surfaces are gathered per answer.
    const refusals = new Map<string, string[]>();
    const refusedSim = (r: HttpAnswer, what: string) => {
      if (r.status !== 401 && r.status !== 403) return undefined;
      const why = `refused ${target.sim_token ? '"sim_token"' : 'a call without "sim_token"'} with ${statusLine(r)}: ${target.sim_token ? 'check the token' : 'give the token of the simulation API as "sim_token"'}`;
      refusals.set(why, [...(refusals.get(why) ?? []), what]);
      return why;
    };
    if (target.capabilities.includes('sim')) {
      const url = `${target.sim_url}/conversations/${NO_CONVERSATION}`;
      const clockUrl = `${target.sim_url}/clock/advance`;
      jobs.push(send({ url, headers: simAuth }).then(async (r) => {
        if (refusedSim(r, 'the simulation API (capability sim)')) return;
        if (r.status !== 404 && r.status !== 200) return void problems.push(`capability sim: GET {sim_url}/conversations/<unknown id> answered ${statusLine(r)}${said(r)} (expected 404): is "sim_url" ${target.sim_url} the simulation API of DESIGN.md?`);
        checked.push('capability sim answers');
        // The clock lives under the simulation API: asked only once that one answers, so a wrong sim_url is one message.
        if (!target.capabilities.includes('clock')) return;
        const c = await send({ method: 'POST', url: clockUrl, headers: { ...simAuth, 'content-type': 'application/json' }, body: JSON.stringify({ ms: 0 }) });
        if (c.status < 200 || c.status > 299) problems.push(`capability clock: POST {sim_url}/clock/advance {"ms": 0} answered ${statusLine(c)}${said(c)} (expected 200)`);
        else checked.push('capability clock answers');
      }).catch(guard('capability sim', url)));
    }
    if (target.capabilities.includes('platform')) {
      const url = `${target.platform_url}/webhooks`;
      jobs.push(send({ url, headers: { 'x-api-key': target.api_key } }).then((r) => {
        if (r.status < 200 || r.status > 299) problems.push(`capability platform: GET {platform_url}/webhooks answered ${statusLine(r)}${said(r)} (expected 200): is "platform_url" ${target.platform_url} the platform API of gap G17?`);
        else checked.push('capability platform answers');
      }, guard('capability platform', url)));
    }
    if (target.connector_url) {
      const url = `${target.connector_control_url ?? `${target.connector_url}/_control`}/requests?since=${Number.MAX_SAFE_INTEGER}`;
      jobs.push(send({ url, headers: simAuth }).then((r) => {
        if (refusedSim(r, 'the fake connector\'s control API')) return;
        if (r.status !== 200) problems.push(`"connector_url" ${target.connector_url}: its control API (GET /_control/requests) answered ${statusLine(r)}: connector_url must be a fake connector (\`ces serve\` runs one) the harness can program`);
        else checked.push('connector_url: the fake connector\'s control API answers');
      }, guard('"connector_url"', url)));
    }
    if (target.sink_url) {
      const url = `${target.sink_url}/_control/health`;
      jobs.push(send({ url, headers: simAuth }).then((r) => {
        if (refusedSim(r, 'the webhook sink\'s control API')) return;
        if (r.status !== 200) problems.push(`"sink_url" ${target.sink_url}: its control API (GET /_control/health) answered ${statusLine(r)}: sink_url must be a webhook sink (\`ces sink\`) the harness can program`);
        else checked.push('sink_url: the webhook sink\'s control API answers');
      }, guard('"sink_url"', url)));
    }
    await Promise.all(jobs);
    for (const [why, whats] of refusals) problems.unshift(`${whats.length > 1 ? `${whats.slice(0, -1).join(', ')} and ${whats[whats.length - 1]}` : whats[0]} ${why}`);
    return { problems, tokens, ms: performance.now() - started, checked };
  } finally {
    await agent.close().catch(() => undefined);
  }
}

/** Writes the pre-flight's tokens to a private file (0600, in its own temporary folder, never under reports/); returns its path and a remover. */
export function writeTokens(tokens: SessionToken[]): { file: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-tokens-'));
  const file = path.join(dir, 'tokens.json');
  fs.writeFileSync(file, JSON.stringify({ tokens }), { mode: 0o600 });
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Probes whether a target still answers at all (one connection to base_url): undefined when it does, else what went wrong. */
export async function stillAnswers(target: Pick<Target, 'base_url' | 'ca_file'>, timeoutMs = 3_000): Promise<string | undefined> {
  const ca = target.ca_file ? fs.readFileSync(target.ca_file, 'utf8') : undefined;
  const agent = new Agent({ connect: { ...(ca ? { ca: [ca] } : {}), timeout: timeoutMs } });
  const url = new URL(target.base_url).origin + '/';
  try { await http({ url, timeoutMs }, agent); return undefined; } catch (e) { return describeConnectionError(e, url, target); } finally { await agent.close().catch(() => undefined); }
}

/** What a run records when its target stopped answering (CES_RUN_DIR/target-lost.json): since when, and how the probe failed. */
export interface TargetLost { since: string; cause: string; check: string }
export const TARGET_LOST_FILE = 'target-lost.json';
export const lostSentence = (l: TargetLost) => `the target stopped answering at ${l.since} (${l.cause}); checks from then on are not judged`;
