// Webhook subscriptions: how one is validated, shown (never its secret) and how `*` expands to event kinds.
import { ALL_KINDS, CURRENT_KINDS, isDeprecatedKind } from './payloads.js';
import type { SubscriptionRow } from './dispatcher.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A subscription as the platform API shows it: never its secret. */
export function subscriptionView(s: SubscriptionRow) {
  return { id: s.id, url: s.url, events: JSON.parse(s.events) as string[], includeDeprecated: s.include_deprecated === 1, createdAt: iso(s.created_at) };
}

/** Validates a subscription request; returns an error message, or null when acceptable. */
export function subscriptionError(body: Record<string, unknown>, schemes: readonly string[]): string | null {
  const { url, secret, events, includeDeprecated } = body;
  if (typeof url !== 'string' || !url) return '"url" is required: the HTTPS callback URL';
  let parsed: URL;
  try { parsed = new URL(url); } catch { return `"url" is not a valid URL: ${url}`; }
  if (!schemes.includes(parsed.protocol)) {
    return `"url" must use HTTPS (callback URLs are HTTPS only), got ${parsed.protocol.replace(':', '')}`;
  }
  if (typeof secret !== 'string' || secret.length < 8) return '"secret" is required: a string of at least 8 characters that signs every delivery';
  if (!Array.isArray(events) || events.length === 0 || events.some((k) => typeof k !== 'string')) return `"events" is required: a non-empty array of event kinds (${ALL_KINDS.join(', ')}) or ["*"]`;
  const unknown = (events as string[]).filter((k) => k !== '*' && !ALL_KINDS.includes(k));
  if (unknown.length) return `unknown event kind(s) ${unknown.join(', ')}; accepted: ${ALL_KINDS.join(', ')}`;
  if (includeDeprecated !== undefined && typeof includeDeprecated !== 'boolean') return '"includeDeprecated" must be a boolean';
  const deprecated = (events as string[]).filter(isDeprecatedKind);
  if (deprecated.length && includeDeprecated !== true) return `deprecated kind(s) ${deprecated.join(', ')} must not be used unless "includeDeprecated": true`;
  return null;
}

/** Expands `*` (every current kind, plus the deprecated ones when opted in). */
export function expandKinds(events: string[], includeDeprecated: boolean): string[] {
  if (!events.includes('*')) return [...new Set(events)];
  return [...new Set([...CURRENT_KINDS, ...(includeDeprecated ? ALL_KINDS : []), ...events.filter((k) => k !== '*')])];
}
