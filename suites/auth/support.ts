// Helpers of the auth and graphql suites: token requests as report steps (tokens masked before evidence is written), own loopback addresses, sessions.
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import type { Dispatcher } from 'undici';
import { Agent } from '../../lib/undici.js';
import { agentFor, type HttpAnswer, type HttpRequest } from '../../lib/http.js';
import { mask } from '../../lib/mask.js';
import type { Target } from '../../lib/target.js';
import { preflightToken, recorded } from '../fixtures/target.js';
import { SimDriver, type Login } from '../fixtures/sim.js';

export { SimDriver, type Login };
export { withStableClock } from '../fixtures/clock.js';

/** One HTTP exchange as a report step with masked evidence; `quiet` skips the attachment (bulk login loops attach one summary). */
export function call(target: Target, req: HttpRequest, label: string, opts: { dispatcher?: Dispatcher; quiet?: boolean } = {}): Promise<HttpAnswer> {
  return recorded(target, req, label, opts);
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

let nextUser = 0;
/** Login to use for a check: a fresh one when the target can create it (sim), else one of the target's users: the one of
 * client `clientIndex` when given, otherwise the next in turn, so the 10-per-minute user throttle is spread over them. */
export async function loginForCheck(target: Target, clientIndex?: number): Promise<Login> {
  const users = target.users?.length ? target.users : [{ client_id: undefined, ...target.user }];
  const chosen = clientIndex === undefined ? users[nextUser++ % users.length]! : users[clientIndex] ?? users[0]!;
  if (target.capabilities.includes('sim')) return new SimDriver(target).newUser(clientIndex === undefined ? users[0]!.client_id : chosen.client_id);
  return chosen;
}

/**
 * A bearer token for a check that only needs a session (not one judging logins): the pre-flight's token of the client's user
 * when there is one (the login throttle is not spent again), else a fresh login.
 */
export async function sessionToken(target: Target, clientIndex?: number, dispatcher?: Dispatcher): Promise<string> {
  const users = target.users?.length ? target.users : [{ client_id: undefined, ...target.user }];
  const user = clientIndex === undefined ? target.user : users[clientIndex] ?? users[0]!;
  if (!target.capabilities.includes('sim')) {
    const kept = preflightToken(user.username);
    if (kept) return kept;
  }
  return tokenFor(target, await loginForCheck(target, clientIndex), dispatcher);
}
