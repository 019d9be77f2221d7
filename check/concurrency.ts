// G28: holds scripts alone, then several at once, and compares: replies must not depend on what other conversations said, nor carry another idConversation.
import { randomUUID } from 'node:crypto';
import { visitorMessage, type ConnectorClient, type Exchange } from './connector-client.js';
import { QUICK_REPLY_STEP } from './settings.js';
import { abortAfter, LIMIT_OF } from './timing.js';
import { quickReplyValues } from './judge.js';

export interface Held {
  script: string[];
  /** The id the service gave, and the one the connector answered (it may be its own, G23). */
  idConversation: string;
  connectorConversationId: string;
  start: Exchange;
  steps: Array<{ text: string; exchange: Exchange }>;
}

const repliesOf = (ex: Exchange): any[] => (Array.isArray((ex.json as any)?.replies) ? (ex.json as any).replies : []);

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

/** Holds the scripts at the same time: every conversation opened at once, then step k of each sent at once. */
export async function holdTogether(client: ConnectorClient, idOperator: string, scripts: string[][]): Promise<Held[]> {
  const cs = scripts.map((s) => new Conversation(client, idOperator, s));
  await Promise.all(cs.map((c) => c.open()));
  while (cs.some((c) => !c.done)) await Promise.all(cs.filter((c) => !c.done).map((c) => c.step()));
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

/** Why two solo runs of the same script differ (a bot that answers at random cannot be judged this way), or null. */
export function soloDifference(a: Held, b: Held): string | null {
  for (let k = 0; k < Math.min(a.steps.length, b.steps.length); k++) {
    if (replyContent(a.steps[k]!.exchange) !== replyContent(b.steps[k]!.exchange)) return `step ${k + 1} ("${a.steps[k]!.text}") was answered differently by two solo runs of the same script`;
  }
  return a.steps.length === b.steps.length ? null : 'two solo runs of the same script took a different number of steps';
}

/** G28 problems of conversations held at once, against the same scripts held alone. */
export function concurrencyProblems(alone: Held[], together: Held[]): string[] {
  const out: string[] = [];
  together.forEach((t, i) => {
    const solo = alone[i]!;
    const name = `conversation ${i + 1} (${t.connectorConversationId})`;
    for (const [k, s] of t.steps.entries()) {
      const got = (s.exchange.json as any)?.idConversation;
      if (s.exchange.error === undefined && got !== undefined && got !== t.connectorConversationId && got !== t.idConversation) {
        out.push(`${name}, step ${k + 1} ("${s.text}"): the answer carries idConversation ${JSON.stringify(got)}, another conversation's`);
      }
      const ref = solo.steps[k];
      if (ref && s.exchange.error === undefined && ref.exchange.error === undefined && replyContent(s.exchange) !== replyContent(ref.exchange)) {
        out.push(`${name}, step ${k + 1} ("${s.text}"): held alone it was answered ${replyContent(ref.exchange)}; held with ${together.length - 1} other conversation(s) at once it was answered ${replyContent(s.exchange)}`);
      }
    }
    if (t.steps.length !== solo.steps.length) out.push(`${name}: held alone it took ${solo.steps.length} step(s), at once ${t.steps.length}`);
  });
  return out;
}

