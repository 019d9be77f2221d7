// The named values of every area (the spec's limits, timings, texts and tables, and the few flags where behaviour truly forks), built from each area's defaults and the `set` of each active deviation at `<area>.policy`.
// A leaf of the service's imports: area policies hold values only (no functions, no statements), so nothing here reaches back into the domain.
import type { DeviationEntry } from '../lib/deviation-registry.js';
import { AUTH_POLICY } from './auth/policy.js';
import { REST_POLICY } from './rest/policy.js';
import { GRAPHQL_POLICY } from './graphql/policy.js';
import { CONSOLE_POLICY } from './console/policy.js';
import { WEBHOOKS_POLICY } from './webhooks/policy.js';
import { PLATFORM_POLICY } from './platform/policy.js';
import { BOTS_POLICY } from './bots/policy.js';

const DEFAULTS = {
  auth: AUTH_POLICY,
  rest: REST_POLICY,
  graphql: GRAPHQL_POLICY,
  console: CONSOLE_POLICY,
  webhooks: WEBHOOKS_POLICY,
  platform: PLATFORM_POLICY,
  bots: BOTS_POLICY,
} as const;

export type Policies = { readonly [A in keyof typeof DEFAULTS]: Readonly<(typeof DEFAULTS)[A]> };

/** The kind of a value as a deviation's `set` must match it: a list, an object, or the JavaScript type. */
const kindOf = (v: unknown): string => (Array.isArray(v) ? 'list' : v === null || v === undefined ? 'nothing' : typeof v);

/** Why `field = value` cannot be set on `area`'s policy, or null. */
export function policyFieldError(area: string, field: string, value: unknown): string | null {
  const defaults = (DEFAULTS as Record<string, Record<string, unknown>>)[area];
  if (!defaults) return `no policy for area ${area}`;
  if (!(field in defaults)) return `${area} policy has no field ${field} (fields: ${Object.keys(defaults).join(', ')})`;
  const want = kindOf(defaults[field]);
  // A field whose default is nothing (null or undefined) takes a list or an object.
  if (want === 'nothing' ? !['list', 'object', 'nothing'].includes(kindOf(value)) : kindOf(value) !== want) return `${area}.${field} is a ${want}, got ${JSON.stringify(value)}`;
  return null;
}

/** Every area's policy: its defaults, with the fields each active deviation sets. */
export function buildPolicies(on: readonly DeviationEntry[]): Policies {
  const out: Record<string, object> = {};
  for (const [area, defaults] of Object.entries(DEFAULTS)) {
    const sets = on.filter((d) => d.seam === `${area}.policy`).map((d) => d.set ?? {});
    out[area] = Object.freeze(Object.assign({}, defaults, ...sets));
  }
  return out as Policies;
}
