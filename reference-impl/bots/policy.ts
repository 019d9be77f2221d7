// Policy of the bot runtime: the spec's time limits, text limit, polling and strategies by default; deviations (fixtures/deviations/bots.json) override fields.
// Flags are the few places where the runtime's behaviour truly forks; functions are computations a deviation gets wrong.
import { LIMITS } from '../../lib/limits.js';
import type { PolicyModule } from '../policies.js';
import { zonedDateTime } from './connector-calls.js';

const defaults = {
  firstMessagesTimeoutMs: LIMITS.firstMessagesTimeoutMs,
  messageTimeoutMs: LIMITS.messageTimeoutMs,
  availabilityPollMs: LIMITS.availabilityPollMs,
  /** A bot whose last good endpoint 4 answer is older than this is unavailable. */
  availabilityStaleMs: LIMITS.botAvailabilityStaleMs,
  /** A failed poll marks the bot failed (unavailable until a good answer), given whether it was. */
  failedAfterFailedPoll: (_wasFailed: boolean): boolean => true,
  botInactivityMs: LIMITS.botInactivityMs,
  offsiteInactivityMs: LIMITS.offsiteInactivityMs,
  /** How many bot operators of one connector app may be bound to the same scenario (endpoint 1: one). */
  botsPerScenario: LIMITS.botsPerScenario,
  /** The longest bot text shown (G21: 450 characters). */
  botTextMax: LIMITS.botTextMax,
  /** The four strategies of endpoint 4, over whether each rule to check has an available operator. */
  atLeastOne: (rules: string[], available: (rule: string) => boolean): boolean => rules.some(available),
  all: (rules: string[], available: (rule: string) => boolean): boolean => rules.length > 0 && rules.every(available),
  notAvailable: (): boolean => false,
  customAvailability: (availability: unknown): boolean => availability === true,
  /** A ready bot takes chats when its polled availability says so. */
  routable: (available: boolean): boolean => available,
  /** message.createdAt of endpoint 7: `<timestamp>[<zone_id>]`. */
  messageTime: (ms: number, zone: string): string => zonedDateTime(ms, zone),
  /** G2: the bytes signed, the raw query string (GET) or the raw body (POST/PUT). */
  signedBytes: (method: string, rawQuery: string, _path: string, body: string | undefined, _value: unknown): string => (method === 'GET' ? rawQuery : body ?? ''),
  /** Variables of an answer that are stored. */
  keptVariables: <T>(vars: T[]): T[] => vars,
  replyOrder: <T>(replies: T[]): T[] => replies,
  /** How long an await reply waits. */
  awaitMs: (durationMs: number): number => durationMs,
  quickReplies: (q: unknown): unknown => q,
  /** A transfer operates to an asynchronous rule (queue slots > 0) only. */
  transferAllowed: (queueSlots: number): boolean => queueSlots > 0,
  /** The operator a transfer goes to: the first available one of the rule. */
  transferTarget: (available: number[]): number | undefined => available[0],
  /** The replies run when a transfer times out: the rest of the scenario. */
  afterTransferTimeout: <T>(rest: T[]): T[] => rest,
  /** The kinds of timers a visitor message drops (scheduled messages). */
  droppedByVisitor: ['replies'] as string[],
  // ---- the few true forks of the runtime ----
  firstMessagesBeforeVisitor: true as boolean,
  firstMessagesRunAllReplies: false as boolean,
  conversationCreated: true as boolean,
  greetsUnprompted: false as boolean,
  firstMessageDelayMs: 0,
  failuresRecorded: true as boolean,
  repliesToOperatorRun: false as boolean,
  botMessagesPosted: true as boolean,
  restAfterTransferRun: false as boolean,
  closeHonoured: true as boolean,
  visitorMessagesPosted: true as boolean,
  postsAfterTransfer: false as boolean,
  messagesSerialized: false as boolean,
  setupReadsBack: true as boolean,
};

export const BOTS_POLICY: PolicyModule<typeof defaults> = {
  defaults,
  variants: {
    failedAfterFailedPoll: { kept: (was) => was },
    atLeastOne: { 'as-all': (rules, available) => rules.length > 0 && rules.every(available) },
    all: { 'as-at-least-one': (rules, available) => rules.some(available) },
    notAvailable: { available: () => true },
    customAvailability: { ignored: () => true },
    routable: { always: () => true },
    messageTime: { iso: (ms) => new Date(ms).toISOString() },
    signedBytes: { 'wrong-bytes': (method, _q, path, _b, value) => (method === 'GET' ? path : JSON.stringify(value, null, 1)) },
    keptVariables: { none: () => [] },
    replyOrder: { reversed: (replies) => [...replies].reverse() },
    awaitMs: { none: () => 0 },
    quickReplies: { dropped: () => undefined },
    transferAllowed: { any: () => true },
    transferTarget: { never: () => undefined },
    afterTransferTimeout: { stop: () => [] },
  },
};
