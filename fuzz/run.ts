// The fuzz run: builds the REST and GraphQL case generators of a target, runs every operation to its floor and then round-robin
// until the budget is spent, shrinks each failure to a minimal request, and measures the slowest answer and the event loop's longest block.
import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import { createHash } from 'node:crypto';
import { localLoopProbe, type LoopDelay, type LoopProbe } from '../lib/event-loop.js';
import type { Target } from '../lib/target.js';
import { LIMITS } from '../lib/limits.js';
import { OpenApiDocument } from '../lib/openapi.js';
import { keyOf, Ownership, type Finding } from './oracles.js';
import { curl, send, type Answer, type Credentials, type FuzzRequest } from './exchange.js';
import { harvestRest, restSurface, type Surface } from './rest.js';
import { graphqlSurface, graphqlToken, harvestGraphql, introspect } from './graphql.js';

/** Cases every operation gets before the budget is shared out (even when that takes longer than the budget). */
export const FLOOR_PER_OPERATION = 40;

/** What the fuzzer needs from the user or the target is missing (an OpenAPI document, introspection, a matching operation): `ces fuzz` exits 2 with it. */
export class FuzzSetupError extends Error {}
/** Cases per operation and turn once every floor is reached. */
const ROUND_CASES = 25;
const REQUEST_TIMEOUT_MS = 30_000;
/** Requests spent shrinking one failure; past them the smallest failing request found so far is reported. */
const SHRINK_REQUESTS_MAX = 300;

export interface FuzzOptions {
  target: Target;
  budgetMs: number;
  seed: number;
  floor?: number;
  /** An OpenAPI document given as a file instead of `{rest_base_url}/openapi.json`. */
  openapiFile?: string;
  /** Operations whose id matches (`REST GET /operator`, `GraphQL query project`); default all. */
  only?: RegExp;
  /** Skip REST POST/PUT/PATCH/DELETE and GraphQL mutations. */
  readOnly?: boolean;
  /** Credentials made beforehand (tests reuse tokens across runs: logins are throttled). */
  credentials?: Credentials;
  /** The service's own event loop (the embedded stack's worker thread); without it only the fuzzer's loop is measured. */
  serviceLoop?: LoopProbe;
  log?: (line: string) => void;
}

export interface FailureReport {
  operation: string; oracle: string; key: string; message: string; request: FuzzRequest; auth: string; curl: string;
  answer: { status: number; ms: number; body: string }; shrinks: number; casesBefore: number; reproduced: boolean;
}
export interface OperationReport { id: string; cases: number; requests: number; failures: number; slowestMs: number }
export interface FuzzReport {
  seed: number; budgetMs: number; durationMs: number; floor: number; operations: OperationReport[]; failures: FailureReport[];
  totals: { operations: number; cases: number; requests: number; serverErrors: number; leaks: number; failures: number };
  slowest: { ms: number; operation: string; curl: string } | null;
  /**
   * Longest blocks: the service's loop (null when it runs elsewhere) and this process's (the fuzzer's own work), with the machine's
   * 1-minute load average and cores at the end: a thread waiting for a CPU looks blocked, so a loaded machine lengthens both.
   */
  eventLoop: { service: LoopDelay | null; fuzzer: LoopDelay; limitMs: number; loadAverage: number; cores: number };
  isolation: { checked: boolean; clients: number; ownedIds: number[] };
  notes: string[];
}

const describeAuth = (r: FuzzRequest) => { const a = r.auth; return a.kind === 'key' ? `API key of client ${a.client + 1} (${a.scheme})` : a.kind === 'bearer' ? `token of client ${a.client + 1}` : a.kind === 'none' ? 'none' : `wrong ${a.scheme} credentials`; };
const seedOf = (seed: number, ...parts: Array<string | number>) => createHash('sha256').update([seed, ...parts].join('|')).digest().readInt32LE(0);

/** Credentials of the target's clients: its API keys and a token per client with a login (GraphQL). */
export async function credentialsOf(target: Target): Promise<Credentials> {
  const keys = [target.api_key, ...target.api_keys.filter((k) => k.key !== target.api_key).map((k) => k.key)];
  const second = target.api_keys.find((k) => k.key !== target.api_key);
  const users = [target.user, ...(second ? (target.users ?? []).filter((u) => u.client_id === second.client_id).slice(0, 1) : [])];
  const tokens: string[] = [];
  for (const u of users) tokens.push(await graphqlToken(target, u, REQUEST_TIMEOUT_MS));
  return { keys, tokens };
}

export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const log = o.log ?? (() => {});
  const floor = o.floor ?? FLOOR_PER_OPERATION;
  const notes: string[] = [];
  const { target } = o;
  const creds = o.credentials ?? await credentialsOf(target);
  if (creds.keys.length < 2) notes.push('the target file names one API key: no cross-client (tenant isolation) check was possible on REST');
  if (creds.tokens.length < 2) notes.push('the target file names no login of a second client: no cross-client check was possible on GraphQL');

  let docJson: unknown;
  if (o.openapiFile) {
    try { docJson = JSON.parse(fs.readFileSync(o.openapiFile, 'utf8')); } catch (e) { throw new FuzzSetupError(`--openapi ${o.openapiFile}: ${(e as Error).message} (give an OpenAPI 3 document in JSON)`); }
  } else {
    const url = `${target.rest_base_url.replace(/\/$/, '')}/openapi.json`;
    const a = await send({ method: 'GET', baseVar: 'CES_REST_BASE_URL', baseUrl: target.rest_base_url.replace(/\/$/, ''), path: '/openapi.json', query: [], headers: {}, auth: { kind: 'key', client: 0, scheme: 'header' } }, creds, target.ca_file, REQUEST_TIMEOUT_MS);
    if (a.status !== 200 || !a.json) throw new FuzzSetupError(`GET ${url} answered ${a.status}: give the document with --openapi FILE`);
    docJson = a.json;
  }
  let doc: OpenApiDocument;
  try { doc = new OpenApiDocument(docJson); } catch (e) { throw new FuzzSetupError(`${o.openapiFile ?? 'the OpenAPI document'}: ${(e as Error).message}`); }
  const schema = await introspect(target, creds, REQUEST_TIMEOUT_MS).catch((e: Error) => { throw new FuzzSetupError(e.message); });

  const own = new Ownership();
  await harvestRest(doc, target, creds, own, REQUEST_TIMEOUT_MS);
  await harvestGraphql(schema, target, creds, own, REQUEST_TIMEOUT_MS);
  const ownedIds = creds.keys.map((_, c) => own.count(c));
  log(`harvest: ${ownedIds.map((n, c) => `client ${c + 1} sees ${n} ids`).join(', ')} (${own.kinds().length} kinds)`);

  const surfaces: Array<Surface<any>> = [restSurface(doc, target, creds, own), graphqlSurface(schema, target, creds, own)];
  const mutating = /^(REST (POST|PUT|PATCH|DELETE) |GraphQL mutation )/;
  const ops = surfaces.flatMap((s) => s.operations.map((op) => ({ ...op, surface: s })))
    .filter((op) => !o.only || o.only.test(op.id)).filter((op) => !o.readOnly || !mutating.test(op.id));
  if (!ops.length) throw new FuzzSetupError(`no operation matches ${o.only}`);

  const reports = new Map<string, OperationReport>(ops.map((op) => [op.id, { id: op.id, cases: 0, requests: 0, failures: 0, slowestMs: 0 }]));
  const failures: FailureReport[] = [];
  const known = new Set<string>();
  let slowest: FuzzReport['slowest'] = null;
  let serverErrors = 0;
  let leaks = 0;
  let requests = 0;

  // Validators compiled before the measured window: compiling on first use blocked the fuzzer's loop ~180 ms (CPU profile).
  doc.compileAll();
  const fuzzerLoop = localLoopProbe();
  await fuzzerLoop.start();
  await o.serviceLoop?.start();
  const started = performance.now();
  const deadline = started + o.budgetMs;

  const chunk = async (op: typeof ops[number], numRuns: number, round: number) => {
    const rep = reports.get(op.id)!;
    let pinned: string | null = null;
    let last: { c: unknown; a: Answer; f: Finding } | null = null;
    let shrinkRequests = 0;
    const property = fc.asyncProperty(op.arbitrary, async (c) => {
      // Once a failure is pinned every run is a shrinking attempt: past the cap, candidates pass unsent and shrinking ends.
      if (pinned && ++shrinkRequests > SHRINK_REQUESTS_MAX) return true;
      const req = op.surface.request(c);
      const a = await send(req, creds, target.ca_file, REQUEST_TIMEOUT_MS);
      requests++; rep.requests++;
      if (a.ms > rep.slowestMs) rep.slowestMs = a.ms;
      if (!slowest || a.ms > slowest.ms) slowest = { ms: a.ms, operation: op.id, curl: curl(req, target.ca_file) };
      const found = op.surface.judge(op.id, c, a);
      if (a.status >= 500) serverErrors++;
      if (found.some((f) => f.oracle === 'tenant-leak' || f.oracle === 'internals-leak')) leaks++;
      const fresh = found.filter((f) => !known.has(`${op.id}|${keyOf(f)}`));
      if (!fresh.length) return true;
      pinned ??= keyOf(fresh[0]!);
      const hit = fresh.find((f) => keyOf(f) === pinned);
      if (!hit) return true;
      last = { c, a, f: hit };
      return false;
    });
    // The document's examples run first, once (round 0): fast-check sends them before generated cases and shrinks nothing of them.
    const examples = round === 0 ? (op.examples ?? []).map((c) => [c] as [unknown]) : [];
    const r = await fc.check(property, { numRuns, seed: seedOf(o.seed, op.id, round), examples });
    rep.cases += r.numRuns;
    if (!r.failed || !last || !pinned) return;
    const hit = last as { c: unknown; a: Answer; f: Finding };
    known.add(`${op.id}|${pinned}`);
    rep.failures++;
    // The shrunk case once more: its own answer is the reproduction's evidence (a flaky failure says so).
    const minimal = r.counterexample ? (r.counterexample[0] as unknown) : hit.c;
    const req: FuzzRequest = op.surface.request(minimal);
    const again = await send(req, creds, target.ca_file, REQUEST_TIMEOUT_MS);
    const still = op.surface.judge(op.id, minimal, again).find((f) => keyOf(f) === pinned);
    const shown = still ? { a: again, f: still } : { a: hit.a, f: hit.f };
    failures.push({
      operation: op.id, oracle: shown.f.oracle, key: pinned, message: shown.f.message, curl: curl(req, target.ca_file),
      request: req, auth: describeAuth(req), answer: { status: shown.a.status, ms: Math.round(shown.a.ms), body: shown.a.text.slice(0, 2000) },
      shrinks: r.numShrinks, casesBefore: rep.cases, reproduced: !!still,
    });
    log(`  FOUND ${op.id}: ${shown.f.oracle}: ${shown.f.message.split('\n')[0]!.slice(0, 200)}`);
  };

  let eventLoop: FuzzReport['eventLoop'] | undefined;
  try {
    // A failure ends fast-check's run early: the operation goes on until it has its floor of cases.
    for (const op of ops) for (let turn = 0; reports.get(op.id)!.cases < floor && turn < 50; turn++) await chunk(op, floor - reports.get(op.id)!.cases, -turn);
    log(`floor reached: ${floor} cases for each of ${ops.length} operations in ${Math.round((performance.now() - started) / 1000)} s`);
    let lastLog = performance.now();
    for (let round = 1; performance.now() < deadline; round++) {
      for (const op of ops) {
        if (performance.now() >= deadline) break;
        await chunk(op, ROUND_CASES, round);
      }
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        log(`  ${Math.round((performance.now() - started) / 1000)} s: ${[...reports.values()].reduce((n, r) => n + r.cases, 0)} cases, ${failures.length} failures`);
      }
    }
  } finally {
    eventLoop = { service: o.serviceLoop ? await o.serviceLoop.read() : null, fuzzer: await fuzzerLoop.read(), limitMs: LIMITS.eventLoopBlockMaxMs, loadAverage: Math.round(os.loadavg()[0]! * 100) / 100, cores: os.cpus().length };
  }
  const operations = [...reports.values()].map((r) => ({ ...r, slowestMs: Math.round(r.slowestMs * 10) / 10 }));
  const fin = slowest as FuzzReport['slowest'];
  return {
    seed: o.seed, budgetMs: o.budgetMs, durationMs: Math.round(performance.now() - started), floor, operations, failures,
    totals: { operations: operations.length, cases: operations.reduce((n, r) => n + r.cases, 0), requests, serverErrors, leaks, failures: failures.length },
    slowest: fin ? { ...fin, ms: Math.round(fin.ms * 10) / 10 } : null,
    eventLoop: eventLoop!,
    isolation: { checked: creds.keys.length > 1, clients: creds.keys.length, ownedIds },
    notes,
  };
}
