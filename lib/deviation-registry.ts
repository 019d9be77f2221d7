// The typed registry of deviations over fixtures/deviations/*.json (the data stays the single source): each deviation's clauses, its
// description, the seam it acts at, and what it changes there (policy values, or JSON edits of a response/request hook).
import { loadDeviations, type DeviationKind } from './catalogue.js';
import { editError, type JsonEdit } from './json-edit.js';

/**
 * The seams, the only places deviations act:
 * - `<area>.policy`: `set` overrides named values of the area's policy (reference-impl/<area>/policy.ts): limits, timings, texts,
 *   tables of the spec (channels, windows, moves), and the few flags where behaviour truly forks; never a function;
 * - the surfaces' requests and answers, a connector's requests and answers, webhook payloads and headers, and the store's named
 *   reads: `edits` (lib/json-edit.ts) of what crosses the seam, optionally only `where` (a route, an endpoint, an event kind, a read).
 */
export const SEAMS = {
  'auth.policy': 'the token route and the login throttle (reference-impl/auth/policy.ts)',
  'auth.request': 'the body of a token request, per route (token): `{body}` (reference-impl/auth/index.ts)',
  'auth.response': 'every answer of the token surface, per route (token, authenticated): `{status, headers, body}` (reference-impl/auth/index.ts)',
  'rest.policy': 'REST lists, lookups, writes, periods and statistics (reference-impl/rest/policy.ts)',
  'rest.request': 'every REST request, per route: `{query, headers}` before authentication, `{body}` once parsed (reference-impl/rest/index.ts)',
  'rest.response': 'every REST answer body, per route (reference-impl/rest/index.ts onSend hook)',
  'graphql.policy': 'the GraphQL endpoint and resolvers (reference-impl/graphql/policy.ts)',
  'graphql.request': 'every GraphQL request: `{query, body}` (the operation text, variables) (reference-impl/graphql/index.ts)',
  'graphql.response': 'every GraphQL answer: `{status, headers, body}` (reference-impl/graphql/index.ts)',
  'graphql.schema': 'the SDL text of the schema served, edited at `$` (reference-impl/graphql/schema-shape.ts)',
  'platform.policy': 'the platform API (reference-impl/platform/policy.ts)',
  'bots.policy': 'the bot runtime and availability (reference-impl/bots/policy.ts)',
  'bots.connector-request': 'every service→connector request, per endpoint (and `messages visitor|operator`): `{path, query, body}` before signing (`$` set to null withholds it), `{headers}` after (reference-impl/bots/connector-client.ts)',
  'bots.connector-answer': 'a connector\'s good answer as the service reads it, per endpoint: `{body}` (reference-impl/bots/connector-client.ts)',
  'webhooks.policy': 'the webhook dispatcher and payloads (reference-impl/webhooks/policy.ts)',
  'webhooks.payload': 'every webhook payload, per event kind (reference-impl/webhooks/dispatcher.ts, as payloads.ts builds them)',
  'webhooks.headers': 'the headers of every delivery attempt, or of retries only (`retry`) (reference-impl/webhooks/dispatcher.ts)',
  'webhooks.body': 'the JSON body every delivery attempt sends, or retries only (`retry`), before it is signed (reference-impl/webhooks/dispatcher.ts)',
  'console.policy': 'the console pages and their JSON views (reference-impl/console/policy.ts)',
  'store.read': 'a named read of the store, per read: `{where, order}` (reference-impl/store/read.ts)',
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
  /** Policy fields it overrides (`<area>.policy` seams): named values and flags. */
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
