// GraphQL calls of the graphql suite: one bearer session per client per worker, renewed only when the service clock jumped past the token lifetime.
import { test, expect, expectSchema, keyOfClient, requirePart, useIfPresent } from '../fixtures/target.js';
import { notJudgedIf, step, under } from '../verdicts.js';
import { LIMITS } from '../../lib/limits.js';
import type { HttpAnswer } from '../../lib/http.js';
import type { Target } from '../../lib/target.js';
import { call, sessionToken, SimDriver, workerDispatcher } from '../auth/support.js';

export interface GqlCall {
  variables?: Record<string, unknown>;
  /** Accept header (default `application/json`). */
  accept?: string;
  /** Appended to graphql_url, e.g. `?platform=sd`. */
  suffix?: string;
  label?: string;
  /** Authorization header value; `null` sends none. Default: the session's bearer token. */
  authorization?: string | null;
}

/** POST {graphql_url} with a JSON body, recorded as a report step. */
export function postGraphql(target: Target, query: string, opts: GqlCall & { authorization: string | null }): Promise<HttpAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: opts.accept ?? 'application/json' };
  if (opts.authorization !== null) headers.authorization = opts.authorization;
  const short = query.replace(/\s+/g, ' ').trim().slice(0, 70);
  return call(target, {
    method: 'POST', url: target.graphql_url + (opts.suffix ?? ''), headers,
    body: JSON.stringify(opts.variables ? { query, variables: opts.variables } : { query }),
  }, opts.label ?? `POST /graphql${opts.suffix ?? ''}: ${short}`);
}

/** Time the service clock may have been moved by others before a session's token is considered expired by them. */
const RENEW_AFTER_MS = LIMITS.tokenLifetimeMs - 5 * 60_000;

export class GqlSession {
  private static cache = new Map<string, GqlSession>();
  private token?: string;
  private offsetAtLogin = 0;

  private constructor(private readonly target: Target, readonly clientIndex: number) {}

  /** The session of client `clientIndex` (0: the target's user's client, 1: the second client) for this worker. */
  static of(target: Target, clientIndex = 0): GqlSession {
    if (clientIndex > 0) requirePart('a session of another client', 'second_client_user');
    const key = `${target.graphql_url}#${clientIndex}`;
    let s = GqlSession.cache.get(key);
    if (!s) GqlSession.cache.set(key, (s = new GqlSession(target, clientIndex)));
    return s;
  }

  /** The client id this session's user belongs to, when the target tells it. */
  get clientId(): number | undefined { return this.target.users?.[this.clientIndex]?.client_id; }

  private get clock(): SimDriver | undefined { return this.target.capabilities.includes('clock') && this.target.capabilities.includes('sim') ? new SimDriver(this.target) : undefined; }

  async bearer(): Promise<string> {
    if (!this.token) {
      this.offsetAtLogin = (await this.clock?.clock({ quiet: true }))?.offsetMs ?? 0;
      this.token = await sessionToken(this.target, this.clientIndex, workerDispatcher(this.target));
    }
    return this.token;
  }

  /** A GraphQL call with this session's token. A 401 after another check moved the service clock by about a day is not
   * this check's concern: the session logs in again once and repeats the call (noted in the report). */
  async post(query: string, opts: GqlCall = {}): Promise<HttpAnswer> {
    const res = await postGraphql(this.target, query, { ...opts, authorization: `Bearer ${await this.bearer()}` });
    const clock = this.clock;
    if (res.status === 401 && clock) {
      const moved = (await clock.clock({ quiet: true })).offsetMs - this.offsetAtLogin;
      if (moved >= RENEW_AFTER_MS) {
        test.info().annotations.push({ type: 'note', description: `the service clock was moved by ${moved} ms by other checks since login; logged in again` });
        this.token = undefined;
        return postGraphql(this.target, query, { ...opts, authorization: `Bearer ${await this.bearer()}` });
      }
    }
    return res;
  }
}

/** GraphQL `data` of a successful answer (status 200, no errors), with the answer's problems as the failure message. */
export function dataOf(res: HttpAnswer): any {
  expect(res.status, `a successful GraphQL answer is HTTP 200 (got: ${res.text.slice(0, 300)})`).toBe(200);
  expectSchema('graphql/response.json#/$defs/success', res.json);
  return res.json.data;
}

/** The errors of a refused or partly failed GraphQL answer, asserted against the G15 shape (every error has extensions.code). */
export function errorsOf(res: HttpAnswer): Array<{ message: string; path?: Array<string | number>; extensions: { code: string } }> {
  expectSchema('graphql/response.json#/$defs/errors', res.json);
  return res.json.errors;
}

/**
 * Ids of the account's items through a listing root field the spec does not name (the reference's `conversationTags`,
 * `routingRules`): a schema without it leaves the check NOT JUDGED (it has no ids to judge), never a failure of a spec clause.
 */
export async function listedIds(session: GqlSession, field: string, what: string, first = 100): Promise<string[]> {
  const res = await session.post(`{ ${field}(first: ${first}) { edges { node { id } } } }`, { label: `${field} (ids of ${what} to judge)` });
  const edges = res.json?.data?.[field]?.edges;
  notJudgedIf(res.status !== 200 || res.json?.errors !== undefined || !Array.isArray(edges), `no ids of ${what}: the schema offers no ${field} listing as the reference's does (the spec names none): ${res.status} ${res.text.slice(0, 200)}`);
  return edges.map((e: any) => String(e?.node?.id));
}

/** A routing rule id of the session's account: the first one listed, else one created through the platform API (G17), which
 * needs the `platform` capability; it routes every channel of the first project to the first operator of the REST API. */
export async function routingRuleOf(target: Target, session: GqlSession): Promise<string> {
  const listed = await listedIds(session, 'routingRules', 'routing rules', 1);
  if (listed.length) return listed[0]!;
  useIfPresent('platform');
  return createRoutingRule(target, session);
}

/**
 * A routing rule of the session's account created through the platform API (G17): a set-up step judged under GQL-SETUP-01 (REF),
 * its exact status the reference's decision; without a rule (no 2xx with an id) the check's own clauses are NOT JUDGED naming it.
 */
export async function createRoutingRule(target: Target, session: GqlSession): Promise<string> {
  const key = keyOfClient(target, session.clientId) ?? target.api_key;
  const project = dataOf(await session.post('{ projects(first: 1) { edges { node { id } } } }')).projects.edges[0]?.node.id;
  const operators = await call(target, { method: 'GET', url: `${target.rest_base_url}/operator?limit=1`, headers: { 'x-api-key': key } }, 'GET /operator?limit=1 (an operator for the routing rule)');
  const operatorId = operators.json?.data?.[0]?.id;
  notJudgedIf(!project || !operatorId, 'the account has no project or no operator to route to: no routing rule can be made');
  const created = await call(target, {
    method: 'POST', url: `${target.platform_url}/routing-rules`, headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ websiteId: Number(project), channels: ['chat', 'call', 'video'], operatorIds: [operatorId], label: 'graphql suite rule' }),
  }, 'POST {platform_url}/routing-rules');
  under('GQL-SETUP-01', () => expect(created.status, `G17: the platform API creates a routing rule with 201: ${created.text.slice(0, 200)}`).toBe(201));
  return step('GQL-SETUP-01', 'POST {platform_url}/routing-rules (a routing rule of the account)', async () => {
    expect(created.status >= 200 && created.status < 300, `the platform API created a routing rule: ${created.status} ${created.text.slice(0, 200)}`).toBe(true);
    expect(created.json?.id, 'the created rule has an id').toBeDefined();
    return String(created.json.id);
  });
}
