// Named values of the webhook dispatcher and payloads (G1-G4, G30), which deviations may set (fixtures/deviations/webhooks.json).
import { LIMITS } from '../../lib/limits.js';

/**
 * Channels of v2.conversation.closed and their names in the payload: the spec's list (onsite CHAT, CALL, VIDEO; offsite SOCIAL_A,
 * SOCIAL_C, SOCIAL_B, MOBILE_APP, SMS) and, as G30 decides, SOCIAL_D and SOCIAL_E; every channel of the service closes with the event.
 */
export const CLOSED_CHANNELS: Readonly<Record<string, string>> = Object.freeze({
  chat: 'CHAT', call: 'CALL', video: 'VIDEO', social_a: 'SOCIAL_A', social_b: 'SOCIAL_B', social_c: 'SOCIAL_C', social_d: 'SOCIAL_D', social_e: 'SOCIAL_E',
  sms: 'SMS', mobile_app: 'MOBILE_APP',
});

export const WEBHOOKS_POLICY = {
  /** G4: the delays of the retries after a failure (+10 s, +20 s: two retries). */
  retryDelaysMs: LIMITS.webhookRetryDelaysMs as readonly number[],
  /** G3: connect (TCP + TLS) and answer timeouts. */
  connectTimeoutMs: LIMITS.webhookConnectTimeoutMs,
  answerTimeoutMs: LIMITS.webhookAnswerTimeoutMs,
  /** G3/G4: the statuses that deliver, [lowest, highest] (20x); anything else fails. */
  deliveredStatuses: [200, 299] as readonly [number, number],
  /** Failures that end a delivery at once, without retries, by class (`30x`, `40x`, `50x`, `timeout`, `network`): none, G4 retries every one. */
  finalFailureClasses: [] as readonly string[],
  /** Attempts in flight at once over every subscriber (each subscriber origin also has its own pool): no shared limit. */
  deliveriesInFlightMax: Infinity,
  closedChannels: CLOSED_CHANNELS,
};
