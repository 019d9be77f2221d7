// What a check calls to give a verdict other than PASS/FAIL (lib/verdicts.ts): NOT JUDGED, a pass with WARN or NOTE, a reproduction, a harness error.
import { test, expect, type TestInfo } from '@playwright/test';
import { curlCommand } from '../lib/reproduce.js';
import { checkTolerant } from '../lib/schemas.js';
import { ANNOTATION, HarnessError, NOT_JUDGED_PREFIX } from '../lib/verdicts.js';
import { mask } from '../lib/mask.js';

export { HarnessError };

/** Ends the check as NOT JUDGED: it ran but could not observe what it judges (never a pass, never a failure). */
export function notJudged(reason: string): never {
  test.info().annotations.push({ type: ANNOTATION.notJudged, description: mask(reason) });
  test.info().skip(true, NOT_JUDGED_PREFIX + mask(reason));
  throw new HarnessError('test.skip did not end the check'); // unreachable: test.skip throws
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

/** Runs harness set-up: whatever it throws is a harness error, never a verdict on the target. */
export async function harness<T>(what: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof HarnessError) throw e;
    throw new HarnessError(`${what}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
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
