// Turns domain events into the spec's webhook payloads ("Payload shapes"): which kinds, which fields, which timestamp form.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { list } from '../store/db.js';
import type { Policies } from '../policies.js';
import type { DomainEvent } from '../events.js';
import { isOffsite } from '../channels.js';

/** Event kinds a subscription may name (spec "Event kinds"; user.connected/disconnected per G22). */
export const CURRENT_KINDS = [
  'v2.conversation.pushed', 'v2.conversation.closed', 'conversation.started', 'visitor.updated',
  'user.created', 'user.updated', 'user.connected', 'user.disconnected',
] as const;
/** Deprecated kinds: "must not be used"; sent only to a subscription that opts in (includeDeprecated). */
export const DEPRECATED_KINDS = ['conversation.transferred', 'conversation.closed', 'satisfaction.filled'] as const;
export const ALL_KINDS: readonly string[] = [...CURRENT_KINDS, ...DEPRECATED_KINDS];
/** The platform the reference implementation serves events from (spec: observed values `sd` and `ha`). */
export const PLATFORM = 'sd';

/** One payload to deliver: its kind, whether it is deprecated (conversation.started on chat is), and the body fields. */
export interface Payload { kind: string; deprecated: boolean; body: Record<string, unknown> }

/** v2 events: UTC with milliseconds, `2026-11-22T01:02:03.456Z`. */
export function v2Time(ms: number): string {
  return new Date(ms).toISOString();
}
/** Old events: an offset form, `2026-11-22T01:02:03+00:00`. */
export function oldTime(ms: number): string {
  // toISOString() is always `YYYY-MM-DDTHH:MM:SS.sssZ` for the years the service sees: keep the seconds, add the offset.
  return `${new Date(ms).toISOString().slice(0, 19)}+00:00`;
}

interface ConversationRow {
  id: number; uuid: string; client_id: number; website_id: number; channel: string; visitor_uid: string; visitor_external_id: string | null;
  operator_id: number | null; operator_ids: string;
}

/**
 * The payloads a domain event produces (before subscription filtering); sentAt is the time the event is queued.
 * The payload seam: deviations at `webhooks.payload` edit each body, per event kind (fixtures/deviations/webhooks.json).
 */
/** One payload of `kind` with the common fields, the given ones and both timestamps in the kind's form; the payload seam applied. */
function payload(e: DomainEvent, sentAtMs: number, kind: string, deprecated: boolean, fields: Record<string, unknown>): Payload {
  const time = kind.startsWith('v2.') ? v2Time : oldTime;
  const body = { eventId: randomUUID(), eventType: kind, platform: PLATFORM, clientId: e.clientId, ...fields, createdAt: time(e.at), sentAt: time(sentAtMs) };
  return { kind, deprecated, body };
}

export function payloadsFor(db: Db, policy: Policies['webhooks'], e: DomainEvent, sentAtMs: number): Payload[] {
  switch (e.kind) {
    case 'user.created': case 'user.updated': case 'user.connected': case 'user.disconnected':
      return [payload(e, sentAtMs, e.kind, false, { userId: e.userId })];
    case 'visitor.updated':
      return [payload(e, sentAtMs, 'visitor.updated', false, { operatorId: e.operatorId, visitorId: e.visitorId })];
    case 'satisfaction.answered': {
      // G33: the deprecated satisfaction.filled, its score the answer's global note as an integer percentage.
      const s = db.prepare(`SELECT s.*, c.visitor_uid FROM satisfactions s JOIN conversations c ON c.id = s.conversation_id WHERE s.id = ? AND s.client_id = ?`)
        .get(e.satisfactionId, e.clientId) as { website_id: number; conversation_id: number; operator_id: number; visitor_uid: string; note_welcome: number; note_resolution: number; node_delay: number } | undefined;
      if (!s) return [];
      return [payload(e, sentAtMs, 'satisfaction.filled', true, {
        websiteId: s.website_id, conversationId: s.conversation_id, operatorId: s.operator_id, visitorId: s.visitor_uid,
        score: Math.round((s.note_welcome + s.note_resolution + s.node_delay) / 3),
      })];
    }
    default: break;
  }

  const one = (kind: string, deprecated: boolean, fields: Record<string, unknown>): Payload => payload(e, sentAtMs, kind, deprecated, fields);
  const c = db.prepare('SELECT * FROM conversations WHERE id = ? AND client_id = ?').get(e.conversationId, e.clientId) as ConversationRow | undefined;
  if (!c) return [];
  const channel = c.channel.toLowerCase();
  const onsite = !isOffsite(channel);
  // visitorExternalId is a String for onsite conversations; a visitor without an external id is named by its unique id (spec silent).
  const externalId = onsite ? (c.visitor_external_id ?? c.visitor_uid) : null;
  const old = (extra: Record<string, unknown> = {}) => ({
    websiteId: c.website_id, conversationId: c.id, operatorId: c.operator_id, channel, visitorId: c.visitor_uid, ...extra,
  });
  const out: Payload[] = [];

  if (e.kind === 'conversation.pushed') {
    if (channel === 'chat' || channel === 'video') {
      out.push(one('v2.conversation.pushed', false, {
        projectId: c.website_id, conversationId: c.uuid, operatorId: c.operator_id,
        visitorExternalId: externalId, channel: channel.toUpperCase(),
      }));
    }
    // The deprecated chat events that v2.conversation.pushed replaces: conversation.started (chat) and conversation.transferred.
    if (channel === 'chat') {
      out.push(e.viaTransfer
        ? one('conversation.transferred', true, old({ transferredConversationId: e.previousConversationId ?? c.id }))
        : one('conversation.started', true, old()));
    }
  } else if (e.kind === 'conversation.started') {
    // Current use of conversation.started: calls only (a chat start is the deprecated form, produced from conversation.pushed above).
    if (channel === 'call') out.push(one('conversation.started', false, old()));
  } else if (e.kind === 'conversation.closed') {
    const v2Channel = policy.closedChannels[channel];
    if (v2Channel) {
      out.push(one('v2.conversation.closed', false, {
        projectId: c.website_id, conversationId: c.uuid, operatorIds: list<number>(c.operator_ids), visitorExternalId: externalId, channel: v2Channel,
      }));
    }
    if (channel === 'call' || channel === 'chat') out.push(one('conversation.closed', true, old()));
  }
  return out;
}

export function isDeprecatedKind(kind: string): boolean { return (DEPRECATED_KINDS as readonly string[]).includes(kind); }
