// The fake connector's bot versions: "v2" is the next release of the demo bot with one answer, one quick reply and one timing changed, so transcript replay has a regression to find (issue 17).
import type { Reply } from './reply.js';

export const CONNECTOR_VERSIONS = ['v1', 'v2'] as const;
export type ConnectorVersion = (typeof CONNECTOR_VERSIONS)[number];

/** What v2 changes, by the visitor text of the demo scenario (fixtures/scenarios/demo.json). */
export const V2_CHANGES = {
  /** The answer to this text says something else. */
  answer: { text: 'Yes please', from: 'Great, here is your order status: shipped.', to: 'Great, here is your order status: delivered.' },
  /** The question answering this text offers another quick reply. */
  quickReply: { text: 'example quick replies', from: 'No thanks', to: 'Not now' },
  /** The answer to this text comes this much later (beyond a replay's slower-than-recorded tolerance, within the 10 s limit). */
  timing: { text: 'remember me', delayMs: 3_000 },
} as const;

/** The replies and extra delay of `version` for a visitor text (v1: unchanged). */
export function asVersion(version: ConnectorVersion, visitorText: string, replies: Reply[]): { replies: Reply[]; delayMs: number } {
  if (version === 'v1') return { replies, delayMs: 0 };
  const { answer, quickReply, timing } = V2_CHANGES;
  const changed = replies.map((r) => {
    const p = r.payload as { contentType?: string; value?: string } | undefined;
    if (visitorText === answer.text && p?.contentType === 'text' && p.value === answer.from) return { ...r, payload: { ...p, value: answer.to } };
    if (visitorText === quickReply.text && Array.isArray(r.quickReplies)) {
      return { ...r, quickReplies: (r.quickReplies as Array<{ value?: string }>).map((q) => (q.value === quickReply.from ? { ...q, value: quickReply.to } : q)) };
    }
    return r;
  });
  return { replies: changed, delayMs: visitorText === timing.text ? timing.delayMs : 0 };
}
