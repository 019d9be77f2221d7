// Turns what a connector answered and what the service did into transcript values: per-run values (ids, dates, rule UUIDs, the connector's own address) never stay literal.
import type { Reply } from './format.js';

export interface NormaliseContext {
  /** The connector's base URL: where it appears inside payloads (image links to itself) it is written `{{connector_url}}`. */
  connectorUrl: string;
  /** The bot's distribution rules: a transfer names its rule by label (`@rule:<label>`), the UUID is new on every set-up. */
  rules: Array<{ id: string; label?: string }>;
}

/** Fields that change on every run wherever they appear in a payload. */
const VOLATILE = new Set(['idQuickReply', 'idConversation', 'idMessage', 'eventId', 'createdAt', 'updatedAt', 'updateAt']);

function scrub(v: unknown, ctx: NormaliseContext): unknown {
  if (typeof v === 'string') return ctx.connectorUrl ? v.split(ctx.connectorUrl.replace(/\/+$/, '')).join('{{connector_url}}') : v;
  if (Array.isArray(v)) return v.map((x) => scrub(x, ctx));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => !VOLATILE.has(k)).map(([k, x]) => [k, scrub(x, ctx)]));
  return v;
}

/** `@rule:<label>` for a rule of the bot, else the value as answered (a rule the bot was never given). */
export function ruleName(id: unknown, ctx: NormaliseContext): unknown {
  const rule = ctx.rules.find((r) => r.id === id);
  return rule?.label ? `@rule:${rule.label}` : id;
}

/** Two rule names are the same rule when one label starts with the other: the check names its rules `Support`, the service `Support (asynchronous)`. */
export function sameRule(a: string, b: string): boolean {
  return a === b || (a.startsWith('@rule:') && b.startsWith('@rule:') && (a.startsWith(b) || b.startsWith(a)));
}

/** One reply of a connector answer as the transcript keeps it. */
export function normaliseReply(r: unknown, ctx: NormaliseContext): Reply {
  if (!r || typeof r !== 'object' || typeof (r as Reply).type !== 'string') return { type: 'unknown', value: scrub(r, ctx) };
  const reply = r as Reply;
  switch (reply.type) {
    case 'message': {
      const out: Reply = { type: 'message', payload: scrub(reply.payload, ctx) };
      // Quick replies are compared by value: the value is what a click sends; idQuickReply is new on every answer.
      if (Array.isArray(reply.quickReplies) && reply.quickReplies.length) out.quickReplies = reply.quickReplies.map((q: any) => (typeof q?.value === 'string' ? q.value : scrub(q, ctx)));
      return out;
    }
    case 'await': return { type: 'await', duration: reply.duration };
    case 'transfer': return { type: 'transfer', distributionRule: ruleName(reply.distributionRule, ctx), ...(reply.transferOptions !== undefined ? { transferOptions: reply.transferOptions } : {}) };
    case 'close': return { type: 'close' };
    default: return scrub(reply, ctx) as Reply;
  }
}

export function normaliseReplies(raw: unknown, ctx: NormaliseContext): Reply[] {
  return Array.isArray(raw) ? raw.map((r) => normaliseReply(r, ctx)) : [];
}

/** Collected variables by name (`[{key, value}]` → `{key: value}`); undefined when the answer has none. */
export function normaliseVariables(raw: unknown): Record<string, string> | undefined {
  if (!Array.isArray(raw) || !raw.length) return undefined;
  const out: Record<string, string> = {};
  for (const v of raw) if (v && typeof v === 'object' && typeof (v as any).key === 'string') out[(v as any).key] = String((v as any).value ?? '');
  return Object.keys(out).length ? out : undefined;
}

/** A failed connector call in words that stay the same from run to run (no durations, no addresses). */
export function failureText(reason: string | null | undefined, status?: number | null): string | undefined {
  if (!reason) return undefined;
  if (/^no answer within/.test(reason) || /timeout/i.test(reason)) return 'no answer within the time limit';
  if (/^HTTP \d+/.test(reason)) return reason.match(/^HTTP \d+/)![0];
  if (/not JSON/i.test(reason)) return 'answer is not JSON';
  if (/does not match/.test(reason)) return 'answer does not match the schema';
  if (/network/i.test(reason)) return 'network error';
  if (/HTTPS/.test(reason)) return 'refused: the connector URL is not HTTPS';
  return status ? `HTTP ${status}` : reason.split(':')[0]!.slice(0, 80);
}

/** Service-side happenings (simulation API transcript system entries) in the words transcripts use. */
export const SYSTEM_EVENTS: Record<string, string> = {
  TRANSFER_REQUESTED: 'transfer requested',
  TRANSFERRED: 'transferred to an operator',
  TRANSFER_TIMEOUT: 'transfer timed out',
  BOT_CHAT_CLOSE: 'closed by the bot',
  OPERATOR_CHAT_CLOSE: 'closed by an operator',
  INACTIVITY_CLOSE: 'closed after inactivity',
};

/** Failures the service recorded that change what the visitor sees (the connector's own call failures are the turn's `failure`). */
export const FAILURE_EVENTS: Record<string, string> = {
  'text-too-long': 'message not shown: over 450 characters',
  'not-asynchronous': 'transfer not operated: the rule is not asynchronous',
  'unknown-rule': 'transfer not operated: not a rule of this bot',
  'timeout-out-of-range': 'transfer timeout outside 5-60 s: clamped',
  'reply-to-operator': 'replies to an operator message ignored',
  'replies-not-empty': 'endpoint 6 answered replies: ignored',
  'unknown-reply': 'unknown reply type ignored',
};

/** True for events about closing or transferring (their differences are classified "close/transfer changed"). */
export const isCloseOrTransfer = (e: string): boolean => /transfer|closed/.test(e);
