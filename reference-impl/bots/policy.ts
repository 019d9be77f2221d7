// Named values of the bot runtime (the spec's time limits, text limit, polling, scenario binding, which replies and messages go where) and its few flags, which deviations may set (fixtures/deviations/bots.json).
import { LIMITS } from '../../lib/limits.js';

export const BOTS_POLICY = {
  firstMessagesTimeoutMs: LIMITS.firstMessagesTimeoutMs,
  messageTimeoutMs: LIMITS.messageTimeoutMs,
  availabilityPollMs: LIMITS.availabilityPollMs,
  /** A bot whose last good endpoint 4 answer is older than this is unavailable. */
  availabilityStaleMs: LIMITS.botAvailabilityStaleMs,
  /** Failed polls in a row a bot may have and stay available (none: one failed poll makes it unavailable until a good answer). */
  failedPollsTolerated: 0,
  botInactivityMs: LIMITS.botInactivityMs,
  offsiteInactivityMs: LIMITS.offsiteInactivityMs,
  /** How many bot operators of one connector app may be bound to the same scenario (endpoint 1: one). */
  botsPerScenario: LIMITS.botsPerScenario,
  /** The longest bot text shown (G21: 450 characters). */
  botTextMax: LIMITS.botTextMax,
  /** Endpoint 5: only replies of type message are used, other types are ignored. */
  firstMessageReplyTypes: ['message'] as readonly string[],
  /** Endpoint 6 is followed immediately by endpoint 7. */
  firstMessageDelayMs: 0,
  /** Levels of replies to operator messages that are run (none: a connector must reply to visitor messages only). */
  operatorReplyLevels: 0,
  /** Authors whose messages go to endpoint 7: the visitor's, and the bot's own replies and scheduled messages (role operator). */
  postedRoles: ['visitor', 'operator'] as readonly string[],
  /** Phases of a conversation in which a visitor message goes to the bot (not after a transfer: a bot never shares a conversation). */
  visitorPostPhases: ['bot', 'transferring'] as readonly string[],
  /** The kinds of timers a visitor message drops (scheduled messages). */
  droppedByVisitor: ['replies'] as readonly string[],
  /** A transfer operates to an asynchronous rule only: queue slots above 0. */
  transferMinQueueSlots: 1,
  /** Connections to one connector at once: every conversation's calls run side by side. */
  connectorConnections: 64,
  /** A service greeting shown after endpoint 6 (none: a bot never writes unprompted). */
  unpromptedGreeting: '',
  // ---- the few true forks of the runtime ----
  /** Inactivity counts from the conversation's last activity (a message restarts the 5-minute and 7-day timers). */
  inactivityFromLastActivity: true as boolean,
  /** First messages (endpoint 5) are displayed before the visitor's first message. */
  firstMessagesBeforeVisitor: true as boolean,
  /** Chats are routed to a bot only while its polled availability says so. */
  routedByAvailability: true as boolean,
  /** After a transfer that operated, the following replies are not published. */
  repliesAfterTransferDropped: true as boolean,
  /** When a transfer times out, the scenario continues with the replies after it. */
  scenarioContinuesAfterTimeout: true as boolean,
};
