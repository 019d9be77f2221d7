// G28: holds scripts alone, then several at once, and compares: replies must not depend on what other conversations said, nor carry another idConversation.
import { randomUUID } from 'node:crypto';
import { visitorMessage, type ConnectorClient, type Exchange } from './connector-client.js';
import { QUICK_REPLY_STEP } from './settings.js';
import { abortAfter, LIMIT_OF } from './timing.js';
import { quickReplyValues } from './judge.js';
import { is2xx, repliesOf } from './evidence.js';
import { transportCause } from './preflight.js';

export interface Held {
  script: string[];
  /** The id the service gave, and the one the connector answered (it may be its own, G23). */
  idConversation: string;
  connectorConversationId: string;
  start: Exchange;
  steps: Array<{ text: string; exchange: Exchange }>;
  /** Held at once: a call of some conversation failed and the rest of the scripts was not held. */
  stopped?: boolean;
}


/** One conversation, advanced a step at a time (so several can be interleaved). */
class Conversation {
  held: Held;
  private next = 0;
  private last: any[] = [];
  constructor(private readonly client: ConnectorClient, private readonly idOperator: string, script: string[]) {
    const id = randomUUID();
    this.held = { script, idConversation: id, connectorConversationId: id, start: undefined as unknown as Exchange, steps: [] };
  }

  async open(): Promise<void> {
    const ex = await this.client.call(6, 'POST', '/conversations', { body: { idOperator: this.idOperator, idConversation: this.held.idConversation, history: [] }, timeoutMs: abortAfter(LIMIT_OF.config) });
    this.held.start = ex;
    const answered = (ex.json as any)?.idConversation;
    if (typeof answered === 'string' && answered) this.held.connectorConversationId = answered;
  }

  get done(): boolean { return this.next >= this.held.script.length || this.last.some((r) => r?.type === 'close'); }

  /** Sends the next visitor message of the script (a quick-reply step clicks the first one offered, else is passed over). */
  async step(): Promise<void> {
    const item = this.held.script[this.next++]!;
    let text = item;
    if (item === QUICK_REPLY_STEP) {
      const offered = quickReplyValues(this.last);
      if (!offered.length) return;
      text = offered[0]!;
    }
    const path = `/conversations/${encodeURIComponent(this.held.connectorConversationId)}/messages`;
    const ex = await this.client.call(7, 'POST', path, { body: { idOperator: this.idOperator, message: visitorMessage(text) }, timeoutMs: abortAfter(LIMIT_OF.message) });
    this.held.steps.push({ text, exchange: ex });
    this.last = repliesOf(ex);
  }
}

/** Holds one script alone, start to end. */
export async function holdAlone(client: ConnectorClient, idOperator: string, script: string[]): Promise<Held> {
  const c = new Conversation(client, idOperator, script);
  await c.open();
  while (!c.done) await c.step();
  return c.held;
}

/** A call that did not get the answer held alone gave: no answer, or not 2xx. */
const failed = (ex: Exchange | undefined): boolean => ex !== undefined && (ex.error !== undefined || !is2xx(ex));

/**
 * Holds the scripts at the same time: every conversation opened at once, then step k of each sent at once. A round in which a
 * call failed decides the verdict: the rest is not held (against a connector that hangs, each round would wait 10 s more).
 */
export async function holdTogether(client: ConnectorClient, idOperator: string, scripts: string[][]): Promise<Held[]> {
  const cs = scripts.map((s) => new Conversation(client, idOperator, s));
  await Promise.all(cs.map((c) => c.open()));
  const broken = () => cs.some((c) => failed(c.held.start) || failed(c.held.steps.at(-1)?.exchange));
  while (!broken() && cs.some((c) => !c.done)) await Promise.all(cs.filter((c) => !c.done).map((c) => c.step()));
  if (broken()) for (const c of cs) c.held.stopped = true;
  return cs.map((c) => c.held);
}

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const VOLATILE = new Set(['idQuickReply', 'idMessage', 'createdAt', 'updatedAt', 'updateAt']);
/** What an answer says, without what may differ between two runs of the same script (ids, dates). */
export function replyContent(ex: Exchange): string {
  const clean = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(UUID_RE, '<uuid>');
    if (Array.isArray(v)) return v.map(clean);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => !VOLATILE.has(k)).map(([k, x]) => [k, clean(x)]));
    return v;
  };
  return ex.error ? `no answer` : JSON.stringify(clean(repliesOf(ex)));
}

/** An answer in a few words for a reason: its replies' types with the start of their texts (never the whole JSON). */
export function replySummary(ex: Exchange, max = 100): string {
  if (ex.error) return `no answer (${transportCause(ex.error)})`;
  if (!is2xx(ex)) return `${ex.status}`;
  const parts = repliesOf(ex).map((r) => {
    const v = r?.payload?.value;
    if (r?.type === 'message') return typeof v === 'string' ? `message "${v.length > 30 ? `${v.slice(0, 29)}…` : v}"` : `message ${r?.payload?.contentType ?? ''}`.trim();
    return String(r?.type);
  });
  const text = `[${parts.join(', ')}]`;
  return text.length > max ? `${text.slice(0, max - 2)}…]` : text;
}

/** Why two solo runs of the same script differ (a bot that answers at random cannot be judged this way), or null. */
export function soloDifference(a: Held, b: Held): string | null {
  for (let k = 0; k < Math.min(a.steps.length, b.steps.length); k++) {
    if (replyContent(a.steps[k]!.exchange) !== replyContent(b.steps[k]!.exchange)) return `step ${k + 1} ("${a.steps[k]!.text}") was answered differently by two solo runs of the same script`;
  }
  return a.steps.length === b.steps.length ? null : 'two solo runs of the same script took a different number of steps';
}

/** What a call that failed at once got: no answer (and why), or its status. */
const got = (ex: Exchange): string => (ex.error ? `got no answer within ${Math.round(ex.ms)} ms: ${transportCause(ex.error)}` : `was answered ${ex.status} in ${Math.round(ex.ms)} ms`);

/** Where two texts first differ, as `…alone…` vs `…at once…` with a little context. */
export function firstDifference(a: string, b: string, context = 25): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const cut = (x: string) => `${i > context ? '…' : ''}${x.slice(Math.max(0, i - context), i + context)}${x.length > i + context ? '…' : ''}`;
  return `${cut(a)} alone, ${cut(b)} at once`;
}

/** G28 problems of conversations held at once, against the same scripts held alone (each held alone got every answer). */
export function concurrencyProblems(alone: Held[], together: Held[]): string[] {
  const out: string[] = [];
  const others = together.length - 1;
  together.forEach((t, i) => {
    const solo = alone[i]!;
    const name = `conversation ${i + 1}`;
    // Evidence of an answer belonging to its conversation is an answer: one missing at once, while given alone, is the failure.
    if (failed(t.start)) out.push(`${name}: POST /conversations held alone was answered ${solo.start.status} in ${Math.round(solo.start.ms)} ms; held with ${others} other conversation(s) at once it ${got(t.start)}`);
    for (const [k, s] of t.steps.entries()) {
      const step = `${name}, visitor message ${k + 1} ("${s.text}")`;
      const ref = solo.steps[k];
      if (failed(s.exchange)) {
        out.push(`${step}: held alone it was answered${ref ? ` ${ref.exchange.status} in ${Math.round(ref.exchange.ms)} ms` : ''}; held with ${others} other conversation(s) at once it ${got(s.exchange)}`);
        continue;
      }
      const answeredId = (s.exchange.json as any)?.idConversation;
      if (answeredId !== undefined && answeredId !== t.connectorConversationId && answeredId !== t.idConversation) {
        out.push(`${step}: the answer carries idConversation ${JSON.stringify(answeredId)}, another conversation's (this one is ${JSON.stringify(t.connectorConversationId)})`);
      }
      if (ref && replyContent(s.exchange) !== replyContent(ref.exchange)) {
        const [a, b] = [replySummary(ref.exchange), replySummary(s.exchange)];
        out.push(`${step}: held alone it was answered ${a}; held with ${others} other conversation(s) at once it was answered ${a === b ? `differently (${firstDifference(replyContent(ref.exchange), replyContent(s.exchange))})` : b}`);
      }
    }
    if (!t.stopped && t.steps.length !== solo.steps.length) out.push(`${name}: held alone it took ${solo.steps.length} visitor message(s), at once ${t.steps.length}`);
  });
  return out;
}
