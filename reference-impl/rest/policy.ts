// Named values of the REST API: the spec's limits, texts, windows and tables (G10-G14, G18, G26), which deviations may set (fixtures/deviations/rest*.json).
import { LIMITS } from '../../lib/limits.js';
import { PERIOD_WINDOWS, TO_COVERS } from './activity/period.js';

/** A plausible e-mail address (REST-OPW: 'email' must be valid); a pattern without nested repetition. */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+$';

/** The spec's channel groups of the statistic indicators (Statistic indicators: G1-G4). */
export const CHANNEL_GROUPS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  G1: ['chat', 'call', 'video', 'social_a', 'social_b', 'social_c', 'sms', 'social_e'],
  G2: ['chat'],
  G3: ['chat', 'video'],
  G4: ['chat', 'call', 'video'],
});

/** G18: the states a call meeting may move to from each state; done and failed are final. */
export const CALL_MEETING_MOVES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  pending: ['working', 'failed'],
  working: ['progress', 'failed'],
  progress: ['done', 'failed'],
});

export const REST_POLICY = {
  /** REST-PAGE-01/02: items per page without `limit`, and the most a `limit` gives (clamped above, G11). */
  pageDefault: LIMITS.restPageDefault,
  pageMax: LIMITS.restPageMax,
  /** G11: the largest `limit` accepted, above it refused (400 naming limit); up to it clamped to pageMax (every integer: REST-PAGE-03). */
  limitAcceptedMax: Number.MAX_SAFE_INTEGER,
  /** The high-availability base answers (it serves every route of the standard one). */
  haBaseServed: true as boolean,
  /** Media types other than JSON an answer is labelled with when a request's Accept names them (none: "JSON only; XML is not supported"). */
  labelledAs: [] as readonly string[],
  /** A request header that must also name the API version (none: the version is the base path's /api/2 alone). */
  versionHeader: '' as string,
  /** Plain HTTP on the HTTPS port is answered (REST over HTTPS only: never; reference-impl/plain-http.ts). */
  plainHttpServed: false as boolean,
  /** PUT /operator/{id}/live accepts connected=1 alone (connects the operator, channels unchanged); never: only connected=0 (REST-LIVE-07). */
  liveConnectAccepted: false as boolean,
  /** List items show every field without full=1 too (never: the list view is the documented subset, REST-LIST-02). */
  listItemsAlwaysFull: false as boolean,
  /** A page past the end answers the last page again instead of an empty one (never, by default). */
  lastPageRepeated: false as boolean,
  /** How many items a page after the first repeats of the page before (none: pages never overlap, REST-PAGE-05). */
  pageOverlap: 0,
  /** Different keys given in two ways at once are refused (REST-AUTH-07: the key is given in exactly one way); else the header's wins. */
  differentKeysRefused: true as boolean,
  /** GET requests without a key are served as the first client's (never: every route needs the key, REST-AUTH-06). */
  keylessReadsServed: false as boolean,
  /** Operator: chat/call/video_priority is 0 or 10 (REST-OP-13). */
  operatorPriorities: [0, 10] as readonly number[],
  /** G12: POST/PUT /operator bodies are accepted as forms too (the official client sends them), not only as JSON (REST-OP-11). */
  operatorFormBodiesAccepted: true as boolean,
  /**
   * G10: the status of a created operator, of a path id that is not a number, of a failed authentication (Forbidden), of an unknown
   * id, and of a period longer than 3 months (REST-AUTH-05, REST-ID-02, REST-ID-03, REST-PERIOD-05).
   */
  createdStatus: 201,
  badIdStatus: 400,
  forbiddenStatus: 403,
  unknownIdStatus: 404,
  periodTooLongStatus: 400,
  emailPattern: EMAIL_PATTERN,
  /** The paths whose `formatHistory=0` answers well-formed history entries: json-unicode only (REST-HIST-04). */
  entriesPaths: ['unicode'] as readonly string[],
  /** The channels the conversation filter `channel=social` stands for: every social_* channel. */
  socialChannels: ['social_a', 'social_b', 'social_c', 'social_d', 'social_e'] as readonly string[],
  /**
   * The conversation listing's periods, in months from their anchor (spec: 3 months): no from and no to, the months before now;
   * only from, the months after it; only to, the months before it.
   */
  periodWindows: PERIOD_WINDOWS,
  /** Days the listing without from and to covers before periodWindows.none's months (0: the spec's 3 calendar months alone). */
  defaultWindowExtraDays: 0,
  /** The most months one listing request covers (REST-PERIOD-04/05, G13). */
  periodMaxMonths: LIMITS.conversationPeriodMonths,
  /** What a `to` bound covers after the moment it writes: a date-only one its whole day (REST-PERIOD-07), a date-time one its whole second. */
  dateOnlyToCoversMs: TO_COVERS.dateOnlyToCoversMs,
  dateTimeToCoversMs: TO_COVERS.dateTimeToCoversMs,
  /** Removed satisfaction indicators answered with a value of 0 instead of refused (never: REST-STAT-10, they are not served). */
  removedIndicatorsServedAsZero: false as boolean,
  /** An unknown indicator name is refused (REST-STAT-12). */
  unknownIndicatorsRefused: true as boolean,
  channelGroups: CHANNEL_GROUPS,
  /** With granularity, how many buckets at the end of the period are left out (none: one row per bucket up to the one holding `to`). */
  bucketsLeftOut: 0,
  /** G14: granularity only with this many indicators at most (exactly one). */
  granularityIndicatorsMax: 1,
  /** Presence states the non-production rate is over: connection time, every state (Statistic indicators: non_production_rate). */
  nonProductionBase: ['available', 'partial', 'full', 'unavailable'] as readonly string[],
  callMeetingMoves: CALL_MEETING_MOVES,
};
