// The typed registry of deviations over fixtures/deviations/*.json (the data stays the single source): each deviation's clauses, its
// description, the seam it acts at, and what it changes there (policy values, or JSON edits of a response/request hook).
import { loadDeviations, type DeviationKind } from './catalogue.js';
import { editError, type JsonEdit } from './json-edit.js';

/**
 * The seams, the only places deviations act:
 * - `<area>.policy`: `set` overrides fields of the area's policy object (reference-impl/<area>/policy.ts): limits, timings,
 *   texts, retry schedule, and the functions where the deviation is a wrong computation (named variants);
 * - response/request hooks: `edits` (lib/json-edit.ts) applied to what leaves the service, optionally only `where` (a route
 *   `METHOD /path`, a connector endpoint or a webhook event kind).
 */
export const SEAMS = {
  'auth.policy': 'the token route and the login throttle (reference-impl/auth/policy.ts)',
  'rest.policy': 'REST lists, lookups, writes and statistics (reference-impl/rest/policy.ts)',
  'rest.response': 'every REST answer body, per route (reference-impl/rest/index.ts onSend hook)',
  'graphql.policy': 'the GraphQL endpoint and resolvers (reference-impl/graphql/policy.ts)',
  'platform.policy': 'the platform API (reference-impl/platform/policy.ts)',
  'bots.policy': 'the bot runtime and availability (reference-impl/bots/policy.ts)',
  'bots.connector-request': 'every service→connector request body and query, per endpoint (reference-impl/bots/connector-client.ts)',
  'webhooks.policy': 'the webhook dispatcher and payloads (reference-impl/webhooks/policy.ts)',
  'webhooks.payload': 'every webhook payload, per event kind (reference-impl/webhooks/payloads.ts)',
  'webhooks.headers': 'the headers of every delivery (reference-impl/webhooks/dispatcher.ts)',
  'console.policy': 'the console pages and their JSON views (reference-impl/console/policy.ts)',
} as const;
export type Seam = keyof typeof SEAMS;

export interface DeviationEntry {
  id: string;
  clauses: string[];
  description: string;
  /** File of fixtures/deviations/ it is listed in. */
  area: string;
  /** `alternative`: another decision a conforming service may take (lib/catalogue.ts); absent: a fault. */
  kind?: DeviationKind;
  seam: Seam;
  /** Policy fields it overrides (`<area>.policy` seams): a value, or the name of a variant where the field is a function. */
  set?: Record<string, unknown>;
  /** JSON edits (response/request seams). */
  edits?: JsonEdit[];
  /** Scope of the edits: a REST resource (`tag`, `DELETE operator`), a connector endpoint or webhook event kinds. */
  where?: string | string[];
}

/** Problems of one entry (unknown seam, malformed edits, nothing to do); empty when well-formed. */
export function entryProblems(d: Partial<DeviationEntry>): string[] {
  const out: string[] = [];
  if (d.kind !== undefined && d.kind !== 'alternative') out.push(`kind ${JSON.stringify(d.kind)} is not "alternative" (omit it for a fault)`);
  if (!d.seam || !(d.seam in SEAMS)) out.push(`seam ${JSON.stringify(d.seam)} is not one of ${Object.keys(SEAMS).join(', ')}`);
  const isPolicy = typeof d.seam === 'string' && d.seam.endsWith('.policy');
  if (isPolicy && (!d.set || typeof d.set !== 'object' || !Object.keys(d.set).length)) out.push('a policy seam needs "set" with at least one field');
  if (!isPolicy && !(Array.isArray(d.edits) && d.edits.length)) out.push('a hook seam needs "edits"');
  for (const e of d.edits ?? []) { const err = editError(e); if (err) out.push(`edit ${JSON.stringify(e)}: ${err}`); }
  return out;
}

/** Every deviation by id; the registry is read from the data on each call of a new process (it never changes while running). */
export function deviationRegistry(): ReadonlyMap<string, DeviationEntry> {
  return new Map(loadDeviations().map((d) => [d.id, d as unknown as DeviationEntry]));
}
