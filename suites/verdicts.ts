// What a check calls to give a verdict other than PASS/FAIL (lib/verdicts.ts): assertions under their own clause, NOT JUDGED, a pass with WARN or NOTE, a reproduction, a harness error; and what the harness records when a check ends.
import { test, expect, type TestInfo } from '@playwright/test';
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

/** One recorded result of an assertion under a clause (the `ces.clause` annotation). */
interface ClauseRecord { clause: string; failed?: string; hard?: boolean; failsRun?: boolean }

const record = (r: ClauseRecord) => test.info().annotations.push({ type: ANNOTATION.clause, description: JSON.stringify(r) });

/** The message of whatever an assertion threw, without ANSI colours, secrets masked. */
const messageOf = (e: unknown) => mask(String((e as Error)?.message ?? e).replace(/\u001b\[[0-9;]*m/g, ''));

/** Whether Playwright is ending the check as skipped (`notJudged`, `test.skip` inside an assertion block): never a result. */
const skipping = () => test.info().annotations.some((a) => a.type === 'skip');

function failedUnder(clause: string, e: unknown): void {
  if (e instanceof HarnessError || skipping()) throw e;
  const severity = clauseById().get(clause)?.severity;
  const reason = messageOf(e);
  // A MUST assertion (or one of a clause the catalogue does not know) ends the check, as any failed assertion does.
  if (severity === undefined || severity === 'MUST') { record({ clause, failed: reason, hard: true }); throw e; }
  const failsRun = failingSeverity(severity, currentTarget().reference === true);
  record({ clause, failed: reason, failsRun });
  // A REF decision against the reference implementation: the check fails (Playwright's ✘ agrees with FAIL) and goes on, so the
  // other clauses of the check are still judged by their own assertions. SHOULD, MAY, and REF against any other target: recorded
  // only (WARN or NOTE); the check passes.
  if (failsRun) expect.soft(false, `${clause} (${severity}): ${reason.split('\n')[0]}`).toBe(true);
}

/**
 * Runs assertions under one clause (G34): their failure is that clause's result only. A MUST failure ends the check as
 * usual; a SHOULD, MAY or REF failure is recorded and the check goes on, so a decision of docs/decisions.md taken otherwise never fails the
 * MUST and SHOULD clauses of the same check. Assertions outside any `under` belong to the check's other (primary) clauses.
 * `under('REST-AUTH-05', () => expect(res.status).toBe(403))`; async assertions return a promise to await.
 */
export function under(clause: string, fn: () => Promise<unknown>): Promise<void>;
export function under(clause: string, fn: () => unknown): void;
export function under(clause: string, fn: () => unknown): void | Promise<void> {
  if (!clauseById().has(clause)) throw new HarnessError('check-bug', `under('${clause}'): no such clause in the catalogue`);
  let out: unknown;
  try { out = fn(); } catch (e) { failedUnder(clause, e); return; }
  if (out && typeof (out as Promise<unknown>).then === 'function') {
    return (out as Promise<unknown>).then(() => { record({ clause }); }, (e) => { failedUnder(clause, e); });
  }
  record({ clause });
}

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
 * What the harness records when a check ends (the auto fixture of suites/fixtures/target.ts, after everything else): how many
 * of its errors no clause claimed (they fail its primary clauses) and whether a MUST assertion stopped it. A check none of whose
 * failing clauses fails the run here (SHOULD, MAY, or REF against another implementation) did not fail: Playwright marks it
 * as an expected failure, so its ✓ agrees with the WARN or NOTE of the reports.
 */
export function endOfCheck(info: TestInfo, reference: boolean): void {
  const records = info.annotations.filter((a) => a.type === ANNOTATION.clause).map((a) => JSON.parse(a.description ?? '{}') as ClauseRecord);
  const claimed = records.filter((r) => r.failed !== undefined && (r.hard || r.failsRun)).length;
  const unattributed = Math.max(0, info.errors.length - claimed);
  const stopped = records.some((r) => r.failed !== undefined && r.hard);
  info.annotations.push({ type: ANNOTATION.ended, description: JSON.stringify({ unattributed, stopped }) });
  if (info.status !== 'failed' || info.expectedStatus !== 'passed' || claimed > 0 || unattributed === 0) return;
  if (info.annotations.some((a) => a.type === ANNOTATION.harness)) return;
  const recorded = new Set(records.map((r) => r.clause));
  const catalogue = clauseById();
  const primary = info.tags.map((t) => t.replace(/^@/, '')).filter((id) => catalogue.has(id) && !recorded.has(id));
  if (primary.length && primary.every((id) => !failingSeverity(catalogue.get(id)!.severity, reference))) info.fail();
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
