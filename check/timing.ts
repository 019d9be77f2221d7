// Timing rules of the checks: the spec limits come from lib/limits.ts; this file only holds the harness's own tolerances and thresholds.
import { LIMITS } from '../lib/limits.js';

/**
 * Measured times include the harness's own client work (TLS on a new connection, JSON parsing); this much is
 * granted in the partner's favour before a limit counts as missed. Every timing assertion message states it.
 */
export const TIMING_TOLERANCE_MS = 100;
/** After a limit, the checker waits this much longer so a late answer is measured (and reported late), not cut. */
export const LATE_GRACE_MS = 1_000;
/** RECV-FAST-01 (harness decision, not a spec limit): a receiver should answer a delivery within this time. */
export const RECEIVER_QUICK_ANSWER_MS = 2_000;

/** Abort time of a call judged against `limitMs`. */
export const abortAfter = (limitMs: number): number => limitMs + TIMING_TOLERANCE_MS + LATE_GRACE_MS;

/** True when a measured time is within a limit, tolerance included. */
export const withinLimit = (ms: number, limitMs: number): boolean => ms <= limitMs + TIMING_TOLERANCE_MS;

/** The text of a timing verdict, stating the limit and the tolerance. */
export const timingText = (what: string, ms: number, limitMs: number, error?: string): string =>
  `${what} ${error ? `gave no answer within ${Math.round(ms)} ms (${error.split('\n')[0]})` : `answered in ${Math.round(ms)} ms`}; limit ${limitMs} ms (+${TIMING_TOLERANCE_MS} ms harness tolerance)`;

export const LIMIT_OF = {
  config: LIMITS.configEndpointTimeoutMs,
  firstMessages: LIMITS.firstMessagesTimeoutMs,
  message: LIMITS.messageTimeoutMs,
  webhookAnswer: LIMITS.webhookAnswerTimeoutMs,
} as const;
