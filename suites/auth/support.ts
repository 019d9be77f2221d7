// Helpers of the auth and graphql suites: token requests as report steps (tokens masked before evidence is written), own loopback addresses, sim clock/users/throttle.
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import { Agent, type Dispatcher } from 'undici';
import { test } from '../fixtures.js';
import { agentFor, http, type HttpAnswer, type HttpRequest } from '../../lib/http.js';
import { addSecret, mask } from '../../lib/mask.js';
import type { Target } from '../../lib/target.js';
import { controlAuthHeader } from '../../lib/control-auth.js';
import { withClockLock } from '../clock-lock.js';

export interface Login { username: string; password: string; client_id?: number }

/** Registers the secrets an answer carries (access tokens, passwords of fresh sim users) before anything is attached. */
function registerSecrets(json: unknown): void {
  if (!json || typeof json !== 'object') return;
  const o = json as Record<string, unknown>;
  for (const k of ['access_token', 'password', 'refresh_token']) if (typeof o[k] === 'string' && o[k] !== 'none') addSecret(o[k] as string);
}

/** One HTTP exchange as a report step with masked evidence; `quiet` skips the attachment (bulk login loops attach one summary). */
export async function call(target: Target, req: HttpRequest, label: string, opts: { dispatcher?: Dispatcher; quiet?: boolean } = {}): Promise<HttpAnswer> {
  const run = async () => {
    let res: HttpAnswer | undefined;
    let error: unknown;
    // Calls of the simulation API carry the sim token unless the check sets its own Authorization.
    const sent = req.headers?.authorization === undefined ? { ...req, headers: { ...req.headers, ...controlAuthHeader(target, req.url) } } : req;
    try { res = await http(sent, opts.dispatcher ?? agentFor(target.ca_file)); } catch (e) { error = e; }
    registerSecrets(res?.json);
    if (!opts.quiet) {
      const evidence = {
        request: { method: req.method ?? 'GET', url: req.url, headers: req.headers ?? {}, body: req.body?.toString() },
        response: res ? { status: res.status, headers: res.headers, body: res.json ?? res.text, ms: Math.round(res.ms) } : { error: String(error) },
      };
      await test.info().attach(mask(label).slice(0, 80), { body: mask(JSON.stringify(evidence, null, 2)), contentType: 'application/json' });
    }
    if (!res) throw error;
    return res;
  };
  return opts.quiet ? run() : test.step(mask(label), run);
}

/** A client bound to its own loopback source address when the target is on loopback, so per-IP login counting of one
 * worker or check never adds up with another's; elsewhere the shared client (one IP for everything). */
export function ownAddress(target: Target): { dispatcher: Dispatcher; address: string | null } {
  const host = new URL(target.base_url).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost') return { dispatcher: agentFor(target.ca_file), address: null };
  const address = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  const ca = target.ca_file ? fs.readFileSync(target.ca_file, 'utf8') : undefined;
  return { dispatcher: new Agent({ connect: ca ? { ca: [ca] } : {}, localAddress: address, keepAliveTimeout: 4_000 }), address };
}

let workerAddress: ReturnType<typeof ownAddress> | undefined;
/** The address this worker logs in from (one per worker process). */
export function workerDispatcher(target: Target): Dispatcher { return (workerAddress ??= ownAddress(target)).dispatcher; }

export interface TokenRequest {
  grantType?: string;
  /** Fields left out of the body. */
  omit?: Array<'username' | 'password' | 'grant_type'>;
  contentType?: string;
  dispatcher?: Dispatcher;
  quiet?: boolean;
  label?: string;
}

/** POST {base_url}/oauth2/token with a form body (spec: application/x-www-form-urlencoded). */
export function requestToken(target: Target, login: Login, opts: TokenRequest = {}): Promise<HttpAnswer> {
  const fields: Record<string, string> = { username: login.username, password: login.password, grant_type: opts.grantType ?? 'password' };
  for (const k of opts.omit ?? []) delete fields[k];
  return call(target, {
    method: 'POST', url: `${target.base_url}/oauth2/token`,
    headers: { 'content-type': opts.contentType ?? 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(fields).toString(),
  }, opts.label ?? `POST /oauth2/token (${login.username}${opts.omit?.length ? `, without ${opts.omit.join(', ')}` : ''}${opts.grantType ? `, grant_type=${opts.grantType}` : ''})`,
  { dispatcher: opts.dispatcher ?? workerDispatcher(target), quiet: opts.quiet });
}

/** A token for `login`, asserting it was issued. */
export async function tokenFor(target: Target, login: Login, dispatcher?: Dispatcher): Promise<string> {
  const res = await requestToken(target, login, { dispatcher });
  if (res.status !== 200 || typeof res.json?.access_token !== 'string') throw new Error(`login of ${login.username} failed: HTTP ${res.status} ${mask(res.text).slice(0, 200)}`);
  return res.json.access_token as string;
}

/** GET {base_url}/_authenticated, with the bearer token when given. */
export function authenticatedCheck(target: Target, token: string | null, label?: string): Promise<HttpAnswer> {
  return call(target, {
    method: 'GET', url: `${target.base_url}/_authenticated`,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  }, label ?? `GET /_authenticated (${token === null ? 'no token' : 'bearer token'})`);
}

/** The simulation API of targets with the `sim` capability. */
export class Sim {
  constructor(private readonly target: Target) {}
  private get url(): string {
    if (!this.target.sim_url) throw new Error('target has no sim_url although it declares the sim capability');
    return this.target.sim_url;
  }
  private async json(method: string, path: string, body?: unknown, dispatcher?: Dispatcher): Promise<any> {
    const res = await call(this.target, {
      method, url: this.url + path, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    }, `${method} {sim_url}${path}`, { dispatcher });
    if (res.status >= 300) throw new Error(`sim ${method} ${path} failed: HTTP ${res.status} ${res.text.slice(0, 200)}`);
    return res.json;
  }
  /** The service clock, ms since the epoch, and its offset from real time. */
  async clock(): Promise<{ nowMs: number; offsetMs: number }> {
    const j = await this.json('GET', '/clock');
    return { nowMs: Date.parse(j.now), offsetMs: j.offsetMs };
  }
  /** Moves the service clock holding the suites' clock lock alone, so real-time checks of other suites are never disturbed. */
  async advance(ms: number): Promise<void> {
    await withClockLock(this.target, 'exclusive', async () => { await this.json('POST', '/clock/advance', { ms: Math.max(0, Math.round(ms)) }); });
  }
  /** A fresh login of `clientId` (default: the first client) used by one check only. */
  async newUser(clientId?: number): Promise<Login> { return this.json('POST', '/users', clientId === undefined ? {} : { client_id: clientId }); }
  /** Forgets the login attempts made from the caller's address (so the next checks are not throttled). */
  async resetCallerThrottle(dispatcher?: Dispatcher): Promise<void> { await this.json('POST', '/throttle/reset', { callerIp: true }, dispatcher); }
}

/** Service-clock drift from real time tolerated within one scenario before it counts as "moved" (network and scheduling noise). */
const CLOCK_NOISE_MS = 1_000;

/** Runs a time-sensitive scenario and runs it again (at most `tries` times) when the service clock was moved by someone else
 * meanwhile (checks of other suites advance it in parallel, and a host clock may jump); a scenario that keeps being disturbed fails. */
export async function withStableClock<T>(sim: Sim, scenario: (attempt: number) => Promise<{ result: T; ownAdvanceMs: number }>, tries = 5): Promise<T> {
  for (let attempt = 1; attempt <= tries; attempt++) {
    const before = await sim.clock();
    const started = performance.now();
    const { result, ownAdvanceMs } = await scenario(attempt);
    const after = await sim.clock();
    const foreign = after.offsetMs - before.offsetMs - ownAdvanceMs;
    // The service clock may only have moved by real time plus our own advances (monotonic real time measured here).
    const drift = after.nowMs - before.nowMs - ownAdvanceMs - (performance.now() - started);
    if (foreign === 0 && Math.abs(drift) <= CLOCK_NOISE_MS) return result;
    test.info().annotations.push({ type: 'note', description: `attempt ${attempt}: the service clock was moved by someone else (offset +${foreign} ms, drift ${Math.round(drift)} ms); scenario repeated` });
  }
  throw new Error(`the service clock kept being moved by other checks during ${tries} attempts; the scenario could not be judged`);
}

let nextUser = 0;
/** Login to use for a check: a fresh one when the target can create it (sim), else one of the target's users: the one of
 * client `clientIndex` when given, otherwise the next in turn, so the 10-per-minute user throttle is spread over them. */
export async function loginForCheck(target: Target, clientIndex?: number): Promise<Login> {
  const users = target.users?.length ? target.users : [{ client_id: undefined, ...target.user }];
  const chosen = clientIndex === undefined ? users[nextUser++ % users.length]! : users[clientIndex] ?? users[0]!;
  if (target.capabilities.includes('sim')) return new Sim(target).newUser(clientIndex === undefined ? users[0]!.client_id : chosen.client_id);
  return chosen;
}
