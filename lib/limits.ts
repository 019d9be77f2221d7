// The spec's limits, one place each, named after the clause that states them.
export const LIMITS = {
  /** REST-BAD-01 (decision): request bodies over 1 MiB are refused with 413. */
  restBodyMaxBytes: 1024 * 1024,
  /** REST-PAGE-02: page size is capped at 100. */
  restPageMax: 100,
  /** REST-PAGE-01 / G11: default page size when `limit` is omitted. */
  restPageDefault: 20,
  /** REST-CONV-PERIOD-*: one conversation listing covers at most 3 months. */
  conversationPeriodMonths: 3,
  /** AUTH-LIFE-01/02: an access token lives 24 hours. */
  tokenLifetimeMs: 24 * 60 * 60 * 1000,
  /** AUTH-THROTTLE-01: 10 logins per minute per user. */
  loginsPerUserPerMinute: 10,
  /** AUTH-THROTTLE-02: 100 logins per minute per IP address. */
  loginsPerIpPerMinute: 100,
  /** AUTH-THROTTLE-06 / G7: the throttle window is a sliding 60 s. */
  loginWindowMs: 60_000,
  /** BOT-EP5: first messages must arrive within 2 s. */
  firstMessagesTimeoutMs: 2_000,
  /** BOT-EP7: message answers must arrive within 10 s. */
  messageTimeoutMs: 10_000,
  /** G8: configuration endpoints 1-4 and 6 answer within 10 s. */
  configEndpointTimeoutMs: 10_000,
  /** G9: endpoint 4 is polled about once per second per bot operator. */
  availabilityPollMs: 1_000,
  /** G9 / BOT-EP4-01: the polling period may deviate by ±10 %. */
  availabilityPollTolerance: 0.1,
  /** BOT-AVAIL-05 (decision): a bot whose last good endpoint-4 answer is older than this is unavailable. */
  botAvailabilityStaleMs: 3_000,
  /** Decision: the bot creation flow is retried in the background at this period while the connector is unreachable. */
  botSetupRetryMs: 2_000,
  /** BOT-SETUP-03: a scenario can be bound to only one bot agent (endpoint 1). */
  botsPerScenario: 1,
  /** BOT-MSG-LEN: a bot text is never over 450 characters. */
  botTextMax: 450,
  /** advised at most 250 characters. */
  botTextAdvised: 250,
  /** Bot conversations close after 5 minutes of inactivity. */
  botInactivityMs: 5 * 60_000,
  /** Transfer timeout between 5 and 60 s, advised >= 15 s, default 60 s. */
  transferTimeoutMinMs: 5_000,
  transferTimeoutMaxMs: 60_000,
  transferTimeoutAdvisedMinMs: 15_000,
  transferTimeoutDefaultMs: 60_000,
  /** Images are 240x120 pixels. */
  imageWidth: 240,
  imageHeight: 120,
  /** Advised at most 3 quick replies per question. */
  quickRepliesAdvised: 3,
  /** Offsite conversations close after 7 days of inactivity. */
  offsiteInactivityMs: 7 * 24 * 60 * 60_000,
  /** G4: exactly 2 retries, +10 s then +20 s. */
  webhookRetryDelaysMs: [10_000, 20_000] as readonly number[],
  /** G3: connect timeout 1 s, answer timeout 30 s. */
  webhookConnectTimeoutMs: 1_000,
  webhookAnswerTimeoutMs: 30_000,
  /** GQL-LIMIT-01: deepest field nesting a GraphQL operation may have (introspection excluded). */
  graphqlMaxDepth: 10,
  /** GQL-LIMIT-02: highest estimated cost (fields x page sizes) of a GraphQL operation. */
  graphqlMaxCost: 5_000,
  /** GQL-PAGE-01: default and highest `first` of a GraphQL connection. */
  graphqlPageDefault: 20,
  graphqlPageMax: 100,
  /** GQL-RULE-02 / G16: routingRule availability fields resolved per query. */
  graphqlAvailabilityPerQuery: 1,
  /** Issue 14 item 7: a GraphQL document is refused (before parsing) past this many tokens, nesting levels, aliases, field selections, fragments or spreads. */
  graphqlMaxTokens: 10_000,
  graphqlMaxNesting: 40,
  graphqlMaxAliases: 100,
  graphqlMaxSelections: 500,
  graphqlMaxFragments: 100,
  graphqlMaxFragmentSpreads: 200,
  /** Issue 14 item 1: a REST filter value longer than this is a 400 (a 1,000-character wildcard pattern is still matched, and the list of every statistic indicator, 1,436 characters, fits). */
  restFilterValueMaxChars: 4_096,
  /** Issue 14 item 8: a REST request whose path and query are longer than this is answered 414 (Node refuses 16 KiB of headers itself: 431). */
  restUriMaxChars: 8_192,
  /** Issue 14 (Done when): no request blocks the service's event loop longer than this; `ces fuzz` reports the longest block. */
  eventLoopBlockMaxMs: 100,
  /** `ces fuzz`: an answer slower than this is a finding (a backtracking matcher or an unbounded loop, not network noise). */
  fuzzAnswerMaxMs: 2_000,
  /** Simulation API (DESIGN.md, not the spec): the most one POST /sim/clock/advance may move the clock, 400 days (longer than any spec duration: 7 days, 3 months). */
  simClockAdvanceMaxMs: 400 * 86_400_000,
} as const;
