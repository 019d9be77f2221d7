// Sample deliveries of every webhook event kind (spec "Payload shapes"), checked against fixtures/schemas/webhooks before they are sent, and the delivery headers.
import { randomUUID } from 'node:crypto';
import { check } from '../lib/schemas.js';
import { sign, SIGNATURE_HEADER } from '../lib/signature.js';
import { HarnessError } from '../lib/verdicts.js';

export interface Sample { title: string; kind: string; deprecated: boolean; body: Record<string, unknown> }

/** v2 events: UTC with milliseconds. */
const v2Time = (d = new Date()) => d.toISOString();
/** Old events: an offset form. */
const oldTime = (d = new Date()) => d.toISOString().replace(/\.\d{3}Z$/, '+00:00');

/** One delivery body per event kind (and per channel family where the shape differs). */
export function samples(): Sample[] {
  const head = (kind: string) => ({ eventId: randomUUID(), eventType: kind, platform: 'sd', clientId: 1 });
  const v2 = { createdAt: v2Time(), sentAt: v2Time() };
  const old = { createdAt: oldTime(), sentAt: oldTime() };
  const onsite = { websiteId: 10, conversationId: 1001, operatorId: 7, visitorId: 'visitor-0001' };
  const list: Sample[] = [
    { title: 'v2.conversation.pushed (CHAT)', kind: 'v2.conversation.pushed', deprecated: false, body: { ...head('v2.conversation.pushed'), projectId: 10, conversationId: randomUUID(), operatorId: 7, visitorExternalId: 'ext-visitor-0001', channel: 'CHAT', ...v2 } },
    { title: 'v2.conversation.closed (CHAT)', kind: 'v2.conversation.closed', deprecated: false, body: { ...head('v2.conversation.closed'), projectId: 10, conversationId: randomUUID(), operatorIds: [7, 8], visitorExternalId: 'ext-visitor-0001', channel: 'CHAT', ...v2 } },
    { title: 'v2.conversation.closed (offsite SOCIAL_A)', kind: 'v2.conversation.closed', deprecated: false, body: { ...head('v2.conversation.closed'), projectId: 10, conversationId: randomUUID(), operatorIds: [7], visitorExternalId: null, channel: 'SOCIAL_A', ...v2 } },
    { title: 'conversation.started (call)', kind: 'conversation.started', deprecated: false, body: { ...head('conversation.started'), ...onsite, channel: 'call', ...old } },
    { title: 'visitor.updated', kind: 'visitor.updated', deprecated: false, body: { ...head('visitor.updated'), operatorId: 7, visitorId: 'visitor-0001', ...old } },
    { title: 'user.created', kind: 'user.created', deprecated: false, body: { ...head('user.created'), userId: 7, ...old } },
    { title: 'user.updated', kind: 'user.updated', deprecated: false, body: { ...head('user.updated'), userId: 7, ...old } },
    { title: 'user.connected (G22)', kind: 'user.connected', deprecated: false, body: { ...head('user.connected'), userId: 7, ...old } },
    { title: 'user.disconnected (G22)', kind: 'user.disconnected', deprecated: false, body: { ...head('user.disconnected'), userId: 7, ...old } },
    { title: 'conversation.started (chat, deprecated)', kind: 'conversation.started', deprecated: true, body: { ...head('conversation.started'), ...onsite, channel: 'chat', ...old } },
    { title: 'conversation.transferred (deprecated)', kind: 'conversation.transferred', deprecated: true, body: { ...head('conversation.transferred'), ...onsite, channel: 'chat', transferredConversationId: 1000, ...old } },
    { title: 'conversation.closed (deprecated)', kind: 'conversation.closed', deprecated: true, body: { ...head('conversation.closed'), ...onsite, channel: 'chat', ...old } },
    { title: 'satisfaction.filled (deprecated)', kind: 'satisfaction.filled', deprecated: true, body: { ...head('satisfaction.filled'), websiteId: 10, conversationId: 1001, operatorId: 7, visitorId: 'visitor-0001', score: 4, ...old } },
  ];
  return list;
}

/** A sample that breaks its own schema is a harness bug, never a receiver failure: it throws before anything is sent. */
export function assertSampleShape(s: Sample): void {
  const errors = check(`webhooks/${s.kind}.json`, s.body);
  if (errors) throw new HarnessError('check-bug', `sample ${s.title} does not match webhooks/${s.kind}.json: ${errors}`);
}

export type SignatureMode = 'valid' | 'wrong' | 'missing';

/** The real delivery headers; the signature is HMAC-SHA256 of the exact raw body (G1). */
export function deliveryHeaders(secret: string, raw: string, opts: { correlationId?: string; deliveryId?: string; signature?: SignatureMode } = {}): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-service-delivery': opts.deliveryId ?? randomUUID(),
    'x-service-correlationid': opts.correlationId ?? randomUUID(),
  };
  const mode = opts.signature ?? 'valid';
  if (mode === 'valid') headers[SIGNATURE_HEADER] = sign(secret, raw);
  // Signed with the right secret over other bytes: only a receiver that really checks the body notices.
  if (mode === 'wrong') headers[SIGNATURE_HEADER] = sign(secret, raw + ' ');
  return headers;
}
