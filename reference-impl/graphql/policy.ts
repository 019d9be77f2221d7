// Named values of the GraphQL endpoint: the spec's limits and rules (G15, G16), which deviations may set (fixtures/deviations/graphql.json).
import { LIMITS } from '../../lib/limits.js';

export const GRAPHQL_POLICY = {
  /** The platforms `?platform=` may name (spec: `sd`; G15); another one is refused. */
  platforms: ['sd', 'ha'] as readonly string[],
  /** GQL-LIMIT-01/02: the deepest nesting and the highest estimated cost of one operation. */
  maxDepth: LIMITS.graphqlMaxDepth,
  maxCost: LIMITS.graphqlMaxCost,
  /** Offset of the page after a cursor, counted from the cursor's item. */
  cursorStep: 1,
  /** A call without a valid token is refused (never run as somebody). */
  anonymousRefused: true as boolean,
  /** G16: `availability` fields resolved per query. */
  availabilityPerQuery: LIMITS.graphqlAvailabilityPerQuery,
};
