// One explored session played against a connector as the service would: its steps (open, visitor texts, quick-reply clicks, echoes, operator messages, polls, several at once), every call judged by the oracle, and what the service knows after each.
import { randomUUID } from 'node:crypto';
import { operatorMessage, visitorMessage, type ConnectorClient, type Exchange } from '../check/connector-client.js';
import { abortAfter, LIMIT_OF } from '../check/timing.js';
import { is2xx, repliesOf } from '../check/evidence.js';
import { quickReplyValues } from '../check/judge.js';
import { judgeCall, type CallContext, type ExploreClause, type Finding } from './oracle.js';

/** A step of a session, with every value it sends (so a session is replayed as it was, whatever generated it). */
export type Step =
  | { kind: 'open'; conversation: string; token: string; text: string }
  | { kind: 'visitor'; conversation: string; text: string }
  | { kind: 'click'; conversation: string; text: string }
  | { kind: 'echo'; conversation: string; payload: unknown }
  | { kind: 'operator'; conversation: string; text: string }
  | { kind: 'poll' }
  | { kind: 'together'; steps: SingleStep[] };
/** A step of one conversation (or a poll): what a `together` step sends at once. */
export type SingleStep = Exclude<Step, { kind: 'together' }>;

export interface CallRecord { exchange: Exchange; context: CallContext; judged: ExploreClause[]; findings: Finding[] }
export interface StepRecord { step: Step; calls: CallRecord[] }

/** The bot the session talks to: created by PUT /bots/{idOperator} (or not: G36), with the distribution rules given. */
export interface SessionBot { idOperator: string; rules: string[]; created: boolean }

/** What the service knows of one conversation: the ids, the quick replies last offered, the bot messages not yet echoed. */
export interface KnownConversation {
  name: string; token: string; idConversation: string; connectorId: string;
  offered: string[]; pending: unknown[]; closed: boolean;
}

/** What the service knows of the session (the model of the model-based run). */
export interface Known {
  conversations: KnownConversation[];
  /** Phrases of the bot's own messages: a visitor often types what the bot proposed ("try one of: ..."). */
  phrases: string[];
}

const PHRASES_MAX = 60;

/** Phrases of the bot's text messages (split at punctuation), 3 to 60 characters. */
export function phrasesOf(replies: any[]): string[] {
  return replies.filter((r) => r?.type === 'message' && r.payload?.contentType === 'text' && typeof r.payload.value === 'string')
    .flatMap((r) => String(r.payload.value).split(/[,:;.!?\n]+/)).map((p) => p.trim()).filter((p) => p.length >= 3 && p.length <= 60);
}

/** Plays steps against the connector, keeping what the service knows and judging every call. */
export class SessionRunner {
  readonly known: Known = { conversations: [], phrases: [] };
  readonly records: StepRecord[] = [];
  /** Calls sent, and findings new to this session. */
  calls = 0;

  constructor(private readonly client: ConnectorClient, readonly bot: SessionBot, private readonly signal?: AbortSignal) {}

  get findings(): Finding[] { return this.records.flatMap((r) => r.calls.flatMap((c) => c.findings)); }
  /** Clauses with evidence in this session, with how many calls gave it. */
  judged(): Map<ExploreClause, number> {
    const m = new Map<ExploreClause, number>();
    for (const r of this.records) for (const c of r.calls) for (const k of c.judged) m.set(k, (m.get(k) ?? 0) + 1);
    return m;
  }

  conversation(name: string): KnownConversation | undefined { return this.known.conversations.find((c) => c.name === name); }

  /** Plays one step; its calls are judged and recorded. */
  async play(step: Step): Promise<StepRecord> {
    const record: StepRecord = { step, calls: [] };
    this.records.push(record);
    if (step.kind === 'together') {
      // One command awaiting several conversations' calls at once: their timings are those of calls sent together.
      const parts = await Promise.all(step.steps.map((s) => this.callsOf(s)));
      record.calls.push(...parts.flat());
    } else record.calls.push(...await this.callsOf(step));
    return record;
  }

  private context(kind: CallContext['kind'], conv?: KnownConversation): CallContext {
    return {
      kind, rules: this.bot.rules, botCreated: this.bot.created,
      ...(conv ? { conversation: conv.name, connectorId: conv.connectorId, others: this.known.conversations.filter((c) => c !== conv).map((c) => ({ name: c.name, token: c.token })) } : {}),
    };
  }

  private async send(kind: CallContext['kind'], conv: KnownConversation | undefined, call: () => Promise<Exchange>): Promise<CallRecord> {
    this.calls++;
    const context = this.context(kind, conv);
    const exchange = await call();
    // A call the explorer cancelled (a shrinking step past its budget) is no evidence of anything.
    const { judged, findings } = this.signal?.aborted ? { judged: [], findings: [] } : judgeCall(exchange, context);
    return { exchange, context, judged, findings };
  }

  private learn(conv: KnownConversation, ex: Exchange): void {
    const replies = repliesOf(ex);
    if (!is2xx(ex)) return;
    conv.offered = quickReplyValues(replies);
    conv.pending.push(...replies.filter((r) => r?.type === 'message' && r.payload).map((r) => r.payload));
    for (const p of phrasesOf(replies)) if (!this.known.phrases.includes(p) && this.known.phrases.length < PHRASES_MAX) this.known.phrases.push(p);
    // A close or a transfer ends the bot's part: the service sends it no more messages of this conversation.
    if (replies.some((r) => r?.type === 'close' || r?.type === 'transfer')) conv.closed = true;
  }

  private message(conv: KnownConversation, body: unknown) {
    return this.client.call(7, 'POST', `/conversations/${encodeURIComponent(conv.connectorId)}/messages`, { body: { idOperator: this.bot.idOperator, message: body }, timeoutMs: abortAfter(LIMIT_OF.message), signal: this.signal });
  }

  private async callsOf(step: SingleStep): Promise<CallRecord[]> {
    const { idOperator } = this.bot;
    const opts = (limit: number) => ({ timeoutMs: abortAfter(limit), signal: this.signal });
    if (step.kind === 'poll') return [await this.send('poll', undefined, () => this.client.call(4, 'GET', '/availability-strategies', { ...opts(LIMIT_OF.config), query: { idOperator } }))];
    if (step.kind === 'open') {
      const out: CallRecord[] = [];
      // Endpoint 5 opens the conversation; its messages are the history of endpoint 6, with role operator (G35).
      const first = await this.send('first-messages', undefined, () => this.client.call(5, 'GET', `/bots/${encodeURIComponent(idOperator)}/conversation-first-messages`, opts(LIMIT_OF.firstMessages)));
      out.push(first);
      const shown = repliesOf(first.exchange).filter((r) => r?.type === 'message' && r.payload);
      for (const p of phrasesOf(shown)) if (!this.known.phrases.includes(p) && this.known.phrases.length < PHRASES_MAX) this.known.phrases.push(p);
      const history = [...shown.map((r) => operatorMessage(r.payload, new Date().toISOString()))];
      const conv: KnownConversation = { name: step.conversation, token: step.token, idConversation: randomUUID(), connectorId: '', offered: [], pending: [], closed: false };
      conv.connectorId = conv.idConversation;
      this.known.conversations.push(conv);
      const start = await this.send('start', conv, () => this.client.call(6, 'POST', '/conversations', { ...opts(LIMIT_OF.config), body: { idOperator, idConversation: conv.idConversation, history } }));
      out.push(start);
      const answered = (start.exchange.json as any)?.idConversation;
      if (typeof answered === 'string' && answered) conv.connectorId = answered;
      // G20: a failed endpoint 6 leaves the bot out of the conversation: no endpoint 7 follows.
      if (!is2xx(start.exchange) || start.exchange.error) { conv.closed = true; return out; }
      start.context.connectorId = conv.connectorId;
      const ex = await this.send('visitor', conv, () => this.message(conv, visitorMessage(step.text)));
      this.learn(conv, ex.exchange);
      out.push(ex);
      return out;
    }
    const conv = this.conversation(step.conversation);
    // A closed conversation gets no more visitor or operator messages; the bot's messages it showed are still echoed.
    if (!conv || (conv.closed && step.kind !== 'echo')) return [];
    if (step.kind === 'visitor' || step.kind === 'click') {
      const rec = await this.send(step.kind, conv, () => this.message(conv, visitorMessage(step.text)));
      this.learn(conv, rec.exchange);
      return [rec];
    }
    if (step.kind === 'echo') {
      const i = conv.pending.findIndex((p) => JSON.stringify(p) === JSON.stringify(step.payload));
      if (i >= 0) conv.pending.splice(i, 1);
      return [await this.send('echo', conv, () => this.message(conv, operatorMessage(step.payload)))];
    }
    return [await this.send('operator', conv, () => this.message(conv, operatorMessage({ contentType: 'text', value: step.text })))];
  }
}
