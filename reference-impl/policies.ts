// The policy object of every area, built from its defaults (the correct behaviour) and the `set` of each active deviation at `<area>.policy`.
import type { DeviationEntry } from '../lib/deviation-registry.js';
import { AUTH_POLICY } from './auth/policy.js';
import { REST_POLICY } from './rest/policy.js';
import { GRAPHQL_POLICY } from './graphql/policy.js';
import { CONSOLE_POLICY } from './console/policy.js';
import { WEBHOOKS_POLICY } from './webhooks/policy.js';
import { PLATFORM_POLICY } from './platform/policy.js';
import { BOTS_POLICY } from './bots/policy.js';

/** An area's policy: its defaults, and for fields that are functions, the named variants a deviation may pick. */
export interface PolicyModule<T extends object> { defaults: T; variants: { [K in keyof T]?: Record<string, T[K]> } }

const MODULES = {
  auth: AUTH_POLICY,
  rest: REST_POLICY,
  graphql: GRAPHQL_POLICY,
  console: CONSOLE_POLICY,
  webhooks: WEBHOOKS_POLICY,
  platform: PLATFORM_POLICY,
  bots: BOTS_POLICY,
} as const;

export type Policies = { readonly [A in keyof typeof MODULES]: Readonly<(typeof MODULES)[A]['defaults']> };

/** Why `field = value` cannot be set on `area`'s policy, or null. */
export function policyFieldError(area: string, field: string, value: unknown): string | null {
  const mod = (MODULES as Record<string, PolicyModule<Record<string, unknown>>>)[area];
  if (!mod) return `no policy for area ${area}`;
  if (!(field in mod.defaults)) return `${area} policy has no field ${field} (fields: ${Object.keys(mod.defaults).join(', ')})`;
  const def = mod.defaults[field];
  if (typeof def === 'function') {
    const names = Object.keys(mod.variants[field] ?? {});
    return typeof value === 'string' && names.includes(value) ? null : `${area}.${field} is a function: name one of its variants ${names.join(', ')}`;
  }
  if (def !== null && def !== undefined && typeof def !== typeof value) return `${area}.${field} is a ${typeof def}, got ${JSON.stringify(value)}`;
  return null;
}

export function buildPolicies(on: readonly DeviationEntry[]): Policies {
  const out: Record<string, object> = {};
  for (const [area, mod] of Object.entries(MODULES) as Array<[string, PolicyModule<Record<string, unknown>>]>) {
    const p: Record<string, unknown> = { ...mod.defaults };
    for (const d of on) {
      if (d.seam !== `${area}.policy`) continue;
      for (const [k, v] of Object.entries(d.set ?? {})) p[k] = typeof mod.defaults[k] === 'function' ? mod.variants[k]![v as string] : v;
    }
    out[area] = Object.freeze(p);
  }
  return out as Policies;
}
