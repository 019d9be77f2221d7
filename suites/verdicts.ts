// What a check calls to give a verdict other than PASS/FAIL (lib/verdicts.ts): NOT JUDGED, a pass with WARN or NOTE, a reproduction, a harness error.
import { test } from '@playwright/test';
import { ANNOTATION, HarnessError, NOT_JUDGED_PREFIX } from '../lib/verdicts.js';
import { mask } from '../lib/mask.js';

export { HarnessError };

/** Ends the check as NOT JUDGED: it ran but could not observe what it judges (never a pass, never a failure). */
export function notJudged(reason: string): never {
  test.info().annotations.push({ type: ANNOTATION.notJudged, description: mask(reason) });
  test.skip(true, NOT_JUDGED_PREFIX + mask(reason));
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
