// What a check calls to give a verdict other than PASS/FAIL (lib/verdicts.ts): assertions under their own clause, NOT JUDGED, a pass with WARN or NOTE, a reproduction, a harness error; and what the harness records when a check ends.
import { AsyncLocalStorage } from 'node:async_hooks';
import { test, expect as playwrightExpect, type TestInfo } from '@playwright/test';
import { curlCommand } from '../lib/reproduce.js';
import { checkTolerant } from '../lib/schemas.js';
import { clauseById } from '../lib/catalogue.js';
import { ANNOTATION, HarnessError, NOT_JUDGED_PREFIX, failingSeverity, type HarnessCode } from '../lib/verdicts.js';
import { mask } from '../lib/mask.js';
import { currentTarget } from './fixtures/current-target.js';

export { HarnessError };

// Every HarnessError raised inside a check is recorded against it by its type (lib/verdicts.ts classifyOutcome reads the record):
// set once per worker process, when the suites load.
HarnessError.onRaise = (e) => {
  let info: TestInfo;
  try { info = test.info(); } catch { return; } // raised outside a check (worker set-up): Playwright reports it as a hook failure
  info.annotations.push({ type: ANNOTATION.harness, description: mask(`${e.code}: ${e.message}`) });
};

// ---- Every assertion under one clause ------------------------------------------------------------------------------------

/** The clause whose assertions are running (set by `under` for everything it calls, awaited or not). */
const judging = new AsyncLocalStorage<string>();

/** The clauses each running check names, read once per check (every assertion asks). */
const namedOf = new WeakMap<TestInfo, string[]>();

/** The clauses a check names (its tags that are clauses of the catalogue). */
export function namedClauses(info: TestInfo): string[] {
  let named = namedOf.get(info);
  if (!named) {
    const catalogue = clauseById();
    named = [...new Set(info.tags.map((t) => t.replace(/^@/, '')).filter((id) => catalogue.has(id)))];
    namedOf.set(info, named);
  }
  return named;
}

/** Where an assertion was made: the first frame of a check or helper of the suites (not this module, not Playwright). */
function assertionLocation(stack: string | undefined): string {
  const frames = (stack ?? '').split('\n').map((l) => l.trim()).filter((l) => l.startsWith('at '));
  const own = frames.find((f) => /suites[\\/]/.test(f) && !/suites[\\/]verdicts\.[jt]s/.test(f) && !/node_modules/.test(f));
  return (own ?? frames[0] ?? 'an unknown place').replace(/^at /, '').replace(/^.*\((.*)\)$/, '$1').replace(/^(?:file:\/\/)?.*?(suites[\\/])/, '$1');
}

/**
 * The clause an assertion made now belongs to (G34: one verdict from its own clause's assertions): the `under` around it,
 * else the check's only clause. An assertion outside any `under` in a check naming several clauses would be claimed by none:
 * refused, a harness error `check-bug` naming the check and the assertion's place (never a PASS, never another clause's FAIL).
 * `soft`: an `expect.soft` inside `under` would record a pass whatever it saw: refused too.
 */
function claimAssertion(soft: boolean): void {
  const clause = judging.getStore();
  let info: TestInfo;
  try { info = test.info(); } catch { return; } // outside a check (a unit test of a helper): nothing is judged
  const where = () => { const o: { stack?: string } = {}; Error.captureStackTrace(o, claimAssertion); return assertionLocation(o.stack); };
  if (clause !== undefined) {
    if (soft) throw new HarnessError('check-bug', `check "${info.title}": expect.soft inside under('${clause}') at ${where()} (a soft failure would let the clause pass): use expect`);
    return;
  }
  const named = namedClauses(info);
  if (named.length > 1) throw new HarnessError('check-bug', `check "${info.title}" names ${named.length} clauses (${named.join(', ')}) and asserts outside any under() at ${where()}: the failure would belong to no clause`);
}

type Matchers = Record<string | symbol, unknown>;

/**
 * The matchers whose pass this module can see at a glance, each the exact condition under which Playwright's matcher of that name
 * passes (its arguments as given; anything else, `.not` included, goes to Playwright's). Only passes are decided here: a
 * condition that does not hold calls Playwright's matcher, which fails with its own message, place and step.
 */
export const PLAIN_PASS: Record<string, (actual: unknown, args: unknown[]) => boolean> = {
  toBe: (a, x) => x.length === 1 && Object.is(a, x[0]),
  toEqual: (a, x) => x.length === 1 && Object.is(a, x[0]),
  toBeTruthy: (a, x) => x.length === 0 && !!a,
  toBeFalsy: (a, x) => x.length === 0 && !a,
  toBeDefined: (a, x) => x.length === 0 && a !== undefined,
  toBeUndefined: (a, x) => x.length === 0 && a === undefined,
  toBeNull: (a, x) => x.length === 0 && a === null,
  toBeGreaterThan: (a, x) => x.length === 1 && typeof a === 'number' && typeof x[0] === 'number' && a > x[0],
  toBeGreaterThanOrEqual: (a, x) => x.length === 1 && typeof a === 'number' && typeof x[0] === 'number' && a >= x[0],
  toBeLessThan: (a, x) => x.length === 1 && typeof a === 'number' && typeof x[0] === 'number' && a < x[0],
  toBeLessThanOrEqual: (a, x) => x.length === 1 && typeof a === 'number' && typeof x[0] === 'number' && a <= x[0],
  toContain: (a, x) => x.length === 1 && ((typeof a === 'string' && typeof x[0] === 'string' && a.includes(x[0])) || (Array.isArray(a) && a.indexOf(x[0]) !== -1)),
  toMatch: (a, x) => x.length === 1 && typeof a === 'string' && (typeof x[0] === 'string' ? a.includes(x[0]) : x[0] instanceof RegExp && new RegExp(x[0]).test(a)),
};

/**
 * `expect(actual)`'s matchers, Playwright's made only when needed: a plain matcher that passes (PLAIN_PASS) returns at once.
 * Why: Playwright makes every expect() a step of the report (about 300 matcher closures, a 50-frame stack formatted, two messages
 * to the runner): in the REST suite's loops over every entry of every history that was a third of a worker's CPU, for steps
 * that said "passed" thousands of times. A failing assertion is Playwright's, step and all.
 */
function settledFirst(real: () => Matchers, actual: unknown): Matchers {
  let made: Matchers | undefined;
  const matchers = () => (made ??= real());
  return new Proxy({} as Matchers, {
    get(_, prop) {
      const plain = typeof prop === 'string' ? PLAIN_PASS[prop] : undefined;
      if (!plain) return matchers()[prop];
      // Named UNSEEN (suites/lean-stacks.ts): Playwright's step and failure name the check's line, not this one.
      return function unseenInStacks(...args: unknown[]) { return plain(actual, args) ? undefined : (matchers()[prop] as (...a: unknown[]) => unknown)(...args); };
    },
  });
}

/**
 * The suites' `expect`: Playwright's, refusing an assertion no clause claims (claimAssertion). Asymmetric matchers and the rest
 * of Playwright's expect pass through.
 */
export const expect: typeof playwrightExpect = new Proxy(playwrightExpect, {
  apply(target, self, args) { claimAssertion(false); return settledFirst(() => Reflect.apply(target, self, args) as Matchers, args[0]); },
  get(target, prop, receiver) {
    const v = Reflect.get(target, prop, receiver);
    if (prop === 'soft' || prop === 'poll') return (...args: unknown[]) => { claimAssertion(prop === 'soft'); return (v as (...a: unknown[]) => unknown)(...args); };
    return v;
  },
});

/** One recorded result of an assertion under a clause (the `ces.clause` annotation). */
interface ClauseRecord { clause: string; failed?: string; hard?: boolean; failsRun?: boolean; notJudged?: string }

const record = (r: ClauseRecord) => test.info().annotations.push({ type: ANNOTATION.clause, description: JSON.stringify(r) });

/** The message of whatever an assertion threw, without ANSI colours, secrets masked. */
const messageOf = (e: unknown) => mask(String((e as Error)?.message ?? e).replace(/\u001b\[[0-9;]*m/g, ''));

/** Whether Playwright is ending the check as skipped (`notJudged`, `test.skip` inside an assertion block): never a result. */
const skipping = () => test.info().annotations.some((a) => a.type === 'skip');

/** Errors a (nested) `under` already recorded as its clause's failure: an outer `under` lets them through unrecorded. */
const claimedErrors = new WeakSet<object>();

function failedUnder(clause: string, e: unknown): void {
  if (e instanceof HarnessError || skipping() || (typeof e === 'object' && e !== null && claimedErrors.has(e))) throw e;
  const severity = clauseById().get(clause)?.severity;
  const reason = messageOf(e);
  // A MUST assertion (or one of a clause the catalogue does not know) ends the check, as any failed assertion does.
  if (severity === undefined || severity === 'MUST') {
    record({ clause, failed: reason, hard: true });
    if (typeof e === 'object' && e !== null) claimedErrors.add(e);
    throw e;
  }
  const failsRun = failingSeverity(severity, currentTarget().reference === true);
  record({ clause, failed: reason, failsRun });
  // A REF decision against the reference implementation: the check fails (Playwright's ✘ agrees with FAIL) and goes on, so the
  // other clauses of the check are still judged by their own assertions. SHOULD, MAY, and REF against any other target: recorded
  // only (WARN or NOTE); the check passes.
  if (failsRun) playwrightExpect.soft(false, `${clause} (${severity}): ${reason.split('\n')[0]}`).toBe(true);
}

/**
 * Runs assertions under one clause (G34): their failure is that clause's result only. A MUST failure ends the check as
 * usual; a SHOULD, MAY or REF failure is recorded and the check goes on, so a decision of docs/decisions.md taken otherwise never fails the
 * MUST and SHOULD clauses of the same check. Outside any `under`, an assertion belongs to the check's only clause; a check naming
 * several refuses it (claimAssertion).
 * `under('REST-AUTH-05', () => expect(res.status).toBe(403))`; async assertions return a promise to await.
 */
export function under(clause: string, fn: () => Promise<unknown>): Promise<void>;
export function under(clause: string, fn: () => unknown): void;
export function under(clause: string, fn: () => unknown): void | Promise<void> {
  if (!clauseById().has(clause)) throw new HarnessError('check-bug', `under('${clause}'): no such clause in the catalogue`);
  let out: unknown;
  try { out = judging.run(clause, fn); } catch (e) { failedUnder(clause, e); return; }
  if (out && typeof (out as Promise<unknown>).then === 'function') {
    // Open until it settles: a check's time-out that cuts it short is this clause's failure (endOfCheck).
    const info = test.info();
    const open = openUnders.get(info) ?? [];
    openUnders.set(info, open);
    open.push(clause);
    const close = () => { const i = open.indexOf(clause); if (i >= 0) open.splice(i, 1); };
    return (out as Promise<unknown>).then(() => { close(); record({ clause }); }, (e) => { close(); failedUnder(clause, e); });
  }
  record({ clause });
}

/**
 * A step whose result the rest of the check needs (a set-up call, the ground truth of a comparison), judged under the clause of
 * the call it makes (a G17 REF clause for the platform API, the spec's clause for a spec endpoint): its failure is that clause's
 * verdict, by its severity. A MUST failure ends the check (its other clauses NOT JUDGED, lib/verdicts.ts); any other failure
 * ends it NOT JUDGED naming the failed step, since nothing after it can be judged without its result (never a TypeError later).
 */
export async function step<T>(clause: string, what: string, fn: () => Promise<T>): Promise<T> {
  let done = false;
  let value: T | undefined;
  await under(clause, async () => { value = await fn(); done = true; });
  if (!done) {
    const failed = test.info().annotations.filter((a) => a.type === ANNOTATION.clause).map((a) => JSON.parse(a.description ?? '{}') as ClauseRecord).filter((r) => r.clause === clause && r.failed !== undefined).pop();
    notJudged(`the set-up step ${what} failed (${clause}): ${(failed?.failed ?? '').split('\n')[0]}`);
  }
  return value as T;
}

/** The clauses whose asynchronous `under` has not settled yet, per running check. */
const openUnders = new WeakMap<TestInfo, string[]>();

/** When each running check started (keyed by its TestInfo, so an ended check's entry goes with it). */
const startedAt = new WeakMap<TestInfo, number>();

/** Called by the first auto fixture as a check starts: the time its own waits must end by (checkDeadline). */
export function startOfCheck(info: TestInfo): void { startedAt.set(info, Date.now()); }

/** Margin left at the end of a check's time for its tear-down and reports. */
const END_MARGIN_MS = 5_000;

/**
 * The time (ms since the epoch) by which a wait of the harness's own must give up inside the running check, so that no wait of
 * the harness outlives its check's time-out (a time-out there would look like the target's); Infinity outside a check.
 */
export function checkDeadline(): number {
  let info: TestInfo;
  try { info = test.info(); } catch { return Infinity; }
  const start = startedAt.get(info);
  return start === undefined || !info.timeout ? Infinity : start + info.timeout - END_MARGIN_MS;
}

/**
 * What the harness records when a check ends (the auto fixture of suites/fixtures/target.ts, after everything else). A time-out
 * that cut an `under` short is that clause's failure (the innermost one open). Errors no clause claimed: in a check naming one clause they are its own
 * (`owner`); in a check naming several, an error outside any `under` (a TypeError of the check, say) is a harness error
 * `check-bug` naming it, unless the check met a request without answer or ran out of time (the target may be gone: the run
 * decides, lib/results.ts). Also whether a MUST assertion stopped the check. A check none of whose failing clauses fails the
 * run here (SHOULD, MAY, or REF against another implementation) did not fail: Playwright marks it as an expected failure, so its
 * ✓ agrees with the WARN or NOTE of the reports.
 */
export function endOfCheck(info: TestInfo, reference: boolean): void {
  // The innermost `under` still open when the time ran out is the one that was waiting.
  const waiting = openUnders.get(info)?.at(-1);
  if (info.status === 'timedOut' && waiting) record({ clause: waiting, failed: `the check's time-out (${info.timeout} ms) ran out while this clause was being judged`, hard: true });
  const records = info.annotations.filter((a) => a.type === ANNOTATION.clause).map((a) => JSON.parse(a.description ?? '{}') as ClauseRecord);
  const claimed = records.filter((r) => r.failed !== undefined && (r.hard || r.failsRun)).length;
  const unattributed = Math.max(0, info.errors.length - claimed);
  const stopped = records.some((r) => r.failed !== undefined && r.hard);
  const named = namedClauses(info);
  const owner = named.length === 1 ? named[0] : undefined;
  info.annotations.push({ type: ANNOTATION.ended, description: JSON.stringify({ unattributed, stopped, ...(owner ? { owner } : {}) }) });
  const harnessRaised = () => info.annotations.some((a) => a.type === ANNOTATION.harness);
  if (unattributed > 0 && named.length > 1 && info.status === 'failed' && !harnessRaised() && !info.annotations.some((a) => a.type === ANNOTATION.noAnswer)) {
    const e = info.errors.find((x) => !records.some((r) => r.failed !== undefined && x.message !== undefined && mask(x.message.replace(/\u001b\[[0-9;]*m/g, '')) === r.failed)) ?? info.errors[0];
    // Recorded against the check by its type as it is made (HarnessError.onRaise); not thrown: the check has ended.
    void new HarnessError('check-bug', `check "${info.title}" names ${named.length} clauses (${named.join(', ')}) and failed outside any under() at ${assertionLocation(e?.stack)}: ${String(e?.message ?? '').replace(/\u001b\[[0-9;]*m/g, '').split('\n')[0]}`);
  }
  if (info.status !== 'failed' || info.expectedStatus !== 'passed' || claimed > 0 || unattributed === 0) return;
  if (harnessRaised()) return;
  const recorded = new Set(records.map((r) => r.clause));
  const catalogue = clauseById();
  const primary = named.filter((id) => !recorded.has(id));
  if (primary.length && primary.every((id) => !failingSeverity(catalogue.get(id)!.severity, reference))) info.fail();
}

/**
 * One clause of the check could not be judged (nothing of the kind it judges happened, where the spec allows that: G33's
 * deprecated kinds that never arrive), while the check goes on judging its other clauses: that clause is NOT JUDGED unless an
 * assertion of its own ran elsewhere in the check.
 */
export function clauseNotJudged(clause: string, reason: string): void {
  if (!clauseById().has(clause)) throw new HarnessError('check-bug', `clauseNotJudged('${clause}'): no such clause in the catalogue`);
  record({ clause, notJudged: mask(reason) });
}

/** Ends the check as NOT JUDGED: it ran but could not observe what it judges (never a pass, never a failure). */
export function notJudged(reason: string): never {
  test.info().annotations.push({ type: ANNOTATION.notJudged, description: mask(reason) });
  test.info().skip(true, NOT_JUDGED_PREFIX + mask(reason));
  throw new HarnessError('check-bug', 'test.skip did not end the check'); // unreachable: test.skip throws
}

/** NOT JUDGED when `condition` holds; otherwise the check goes on. */
export function notJudgedIf(condition: boolean, reason: string): void {
  if (condition) notJudged(reason);
}

/** The check passes, with a WARN and its reason (an allowed variant worth fixing; `--strict` makes it fail the run). */
export function warn(reason: string): void {
  test.info().annotations.push({ type: ANNOTATION.warn, description: mask(reason) });
}

/** The check passes, with a NOTE and its reason (something the spec allows, worth knowing). */
export function note(reason: string): void {
  test.info().annotations.push({ type: ANNOTATION.note, description: mask(reason) });
}

/** Records a copy-paste reproduction of what the check judged (shown with a failure or a WARN; secrets masked). */
export function reproduction(text: string): void {
  test.info().annotations.push({ type: ANNOTATION.reproduction, description: mask(text) });
}

/** Runs harness work (set-up, a control call to its own partners): whatever it throws is a harness error, never a verdict. */
export async function harness<T>(what: string, fn: () => T | Promise<T>, code: HarnessCode = 'set-up'): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof HarnessError || skipping()) throw e;
    throw new HarnessError(code, `${what}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  }
}

/**
 * Asserts a payload or an answer as a tolerant reader (G25): a listed field missing or of the wrong type fails; fields beyond
 * those listed pass with a NOTE naming them.
 */
export function expectPayload(schemaId: string, data: unknown, what = 'payload'): void {
  const { errors, extras } = checkTolerant(schemaId, data);
  expect(errors, `${what} does not match ${schemaId}: ${errors}`).toBeNull();
  if (extras.length) note(`${what}: fields beyond those listed in ${schemaId} (tolerated, G25): ${extras.join(', ')}`);
}

/**
 * After a failed check against a service target: the curl of the last request it made (recorded by Api.request), keys and
 * tokens as $CES_API_KEY / $CES_TOKEN. A check that wrote its own reproduction keeps it.
 */
export function reproduceFailedRequest(info: TestInfo, caFile?: string): void {
  if (info.status === info.expectedStatus || info.status === 'skipped' || info.annotations.some((a) => a.type === ANNOTATION.reproduction)) return;
  for (let i = info.attachments.length - 1; i >= 0; i--) {
    const a = info.attachments[i]!;
    if (a.contentType !== 'application/json' || !a.body) continue;
    let e: any;
    try { e = JSON.parse(a.body.toString('utf8')); } catch { continue; }
    const r = e?.request;
    if (!r?.method || !r?.url || !r?.headers) continue;
    const answered = e.response?.status !== undefined ? `answered ${e.response.status}` : `got no answer (${String(e.response?.error ?? '').split('\n')[0]})`;
    reproduction(`# the last request of the check, which ${answered} during the run (set CES_API_KEY / CES_TOKEN to your credentials):\n${curlCommand({ method: r.method, url: r.url, headers: r.headers, body: typeof r.body === 'string' ? r.body : undefined, caFile })}`);
    return;
  }
}
