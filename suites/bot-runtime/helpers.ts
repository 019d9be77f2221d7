// Bot-runtime suite helpers: drive visitors through the simulation API, program and observe the fake connector, share the clock safely, draw sequences.
import { randomUUID } from 'node:crypto';
import { mergeTests } from '@playwright/test';
import type { HttpAnswer } from '../../lib/http.js';
import { test as targetTest, expect, needs, expectSchema } from '../fixtures/target.js';
import { test as simTest, SimDriver } from '../fixtures/sim.js';
import { test as partnersTest, ConnectorControl, type ConnectorRequest, type Reply } from '../fixtures/partners.js';
import { test as clockTest } from '../fixtures/clock.js';
import { attachSequence, clauses, type SequenceCall } from '../fixtures/evidence.js';
import { notJudged } from '../verdicts.js';
import { withCopies } from '../fixtures/copies.js';

export { expect, needs, clauses, expectSchema, type ConnectorRequest, type Reply };

export interface TranscriptEntry { role: 'visitor' | 'bot' | 'operator' | 'system'; payload: any; quickReplies?: any[]; at: string; operatorId?: number; messageId?: string }
export interface ConversationView {
  conversationId: string; state: 'started' | 'closed'; phase?: string; closeReason?: string | null; operatorId: number | null; botOperatorId?: number | null;
  variables?: Array<{ key: string; value: string }>; transcript: TranscriptEntry[]; failures: Array<{ endpoint: string; kind: string; reason: string; at: string }>;
}
export interface SimBot {
  operatorId: number; clientId: number; websiteId: number; idBot: string; status: string; languages: string[]; available: boolean;
  routingRules: Array<{ id: string; websiteId: number; channels: string[] }>;
  distributionRules: Array<{ id: string; label: string; queueSlots: number; asynchronous: boolean; operatorIds: number[]; availableOperatorIds: number[] }>;
}

/** How long the seeded bots may take to be ready and available (a poll of endpoint 4 each second; a loaded CI machine). */
const SEEDED_BOTS_MS = 15_000;

/** The clause that judges what a connector log entry shows wrong (the check a NOT JUDGED names). */
const CLAUSE_OF_PROBLEM: Array<[RegExp, string]> = [[/^signature/, 'BOT-SIG-01'], [/^query/, 'BOT-QUERY-01'], [/^body/, 'BOT-SCHEMA-01 / BOT-SETUP-02']];

/** One line per call of the fake connector's log: what the service sent and what the connector answered. */
export const quoteCall = (r: ConnectorRequest) => `${r.method} ${r.path}${r.rawQuery ? `?${r.rawQuery}` : ''} → ${r.answer?.status ?? 'no answer'}${r.violations.length ? ` (${r.violations.join('; ')})` : ''}`;

/**
 * Why the service's calls failed at the fake connector, from its log: the calls it refused or found invalid, grouped by endpoint
 * and problem, with the clause that judges each (undefined: none in the log).
 */
export function partnerCause(requests: ConnectorRequest[]): string | undefined {
  // Refusals (401) and what the connector found wrong, not the faults checks script (their 500s and 503s).
  const bad = requests.filter((r) => r.violations.length > 0 || !r.signature.ok || r.answer?.status === 401);
  if (!bad.length) return undefined;
  const groups = new Map<string, { n: number; example: ConnectorRequest; clause: string }>();
  for (const r of bad) {
    const problem = r.violations[0] ?? `answered ${r.answer?.status}`;
    const key = `${r.endpoint} ${problem.split(':')[0]}`;
    const g = groups.get(key) ?? { n: 0, example: r, clause: CLAUSE_OF_PROBLEM.find(([re]) => re.test(problem))?.[1] ?? 'the connector\'s answer' };
    g.n++;
    groups.set(key, g);
  }
  const lines = [...groups.values()].slice(0, 4).map((g) => `${g.n} call(s) like ${quoteCall(g.example)} [judged by ${g.clause}]`);
  return `The fake connector refused or found invalid the service's calls (its log): ${lines.join('; ')}.`;
}

/** A visible text of a transcript entry. */
export const textOf = (e: TranscriptEntry) => (e.payload?.contentType === 'text' ? String(e.payload.value) : e.payload?.contentType === 'event' ? `[${e.payload.value}]` : `<${e.payload?.contentType}>`);
/** A unique visitor text, so parallel checks never share a connector script. */
export const uniq = (label: string) => `${label} ${randomUUID().slice(0, 8)}`;
export const text = (value: string, quickReplies?: string[]): Reply => ({
  type: 'message', payload: { contentType: 'text', value },
  ...(quickReplies ? { quickReplies: quickReplies.map((v) => ({ contentType: 'text/quick-reply', value: v, idQuickReply: randomUUID() })) } : {}),
});

export class BotDriver {
  /** Service-clock moves made by this check (so a move by another check can be told apart). */
  ownAdvanceMs = 0;
  constructor(readonly sim: SimDriver, readonly connector: ConnectorControl) {}

  // ---- simulation API ----
  async start(firstText: string, opts: { channel?: string; websiteId?: number; visitorId?: string } = {}): Promise<string> {
    const res = await this.sim.startConversation({ channel: opts.channel ?? 'chat', text: firstText, ...(opts.websiteId ? { websiteId: opts.websiteId } : {}), ...(opts.visitorId ? { visitorId: opts.visitorId } : {}) });
    // The simulation API drives the visitor side: its refusal is a set-up step the target failed, not a clause's answer.
    if (res.status !== 201 || typeof res.json?.conversationId !== 'string') notJudged(`the set-up step POST {sim_url}/conversations failed: HTTP ${res.status} ${res.text.slice(0, 200)}`);
    return res.json.conversationId as string;
  }
  say(id: string, t: string): Promise<HttpAnswer> { return this.sim.visitorSays(id, t); }
  operatorSays(id: string, operatorId: number, t: string): Promise<HttpAnswer> { return this.sim.operatorSays(id, operatorId, t); }
  async view(id: string): Promise<ConversationView> {
    const r = await this.sim.conversation(id, { quiet: true });
    if (r.status !== 200) notJudged(`the set-up step GET {sim_url}/conversations/${id} failed: HTTP ${r.status} ${r.text.slice(0, 200)}`);
    return r.json;
  }
  /** Recorded read, for the report. */
  async viewStep(id: string): Promise<ConversationView> { return (await this.sim.conversation(id)).json; }

  /** Waits (deadline `timeoutMs`) until the conversation satisfies `pred`; fails with what was seen. */
  async until(id: string, what: string, pred: (v: ConversationView) => boolean, timeoutMs = 5_000): Promise<ConversationView> {
    let last: ConversationView | undefined;
    await expect.poll(async () => { last = await this.view(id); return pred(last); }, { message: `conversation ${id}: ${what} within ${timeoutMs} ms`, timeout: timeoutMs, intervals: [50, 100, 100, 200] }).toBe(true)
      .catch((e) => { throw new Error(`${(e as Error).message}\nlast transcript: ${JSON.stringify(last?.transcript.map(textOf))}\nfailures: ${JSON.stringify(last?.failures)}`); });
    return this.viewStep(id);
  }
  hasText = (v: ConversationView, t: string) => v.transcript.some((e) => e.role === 'bot' && e.payload?.value === t);

  async bots(): Promise<SimBot[]> {
    const r = await this.sim.bots({ quiet: true });
    if (r.status !== 200 || !Array.isArray(r.json?.bots)) notJudged(`the set-up step GET {sim_url}/bots failed: HTTP ${r.status} ${r.text.slice(0, 200)}`);
    return r.json.bots;
  }
  /**
   * The two seeded bots with a routing rule: the first serves conversation checks (parallel), the second is the lab bot
   * (timing/availability checks, which make it unavailable at times). Waits until both have gone through the bot creation flow
   * and the one(s) `ready` names are available (`none`: only the creation flow). When they do not in time, the check cannot
   * judge what it is about: NOT JUDGED, with the cause the fake connector's log shows (the service's calls it refused, and the
   * check of the clause that judges them), never a failure of this check's own clauses.
   */
  async seededBots(ready: 'conv' | 'lab' | 'both' | 'none' = 'conv'): Promise<{ conv: SimBot; lab: SimBot }> {
    let pair: { conv: SimBot; lab: SimBot } | undefined;
    const since = await this.lastSeq();
    const what = `two seeded bots ready (bot creation flow done)${ready === 'none' ? '' : `, ${ready} available (polls answered)`}`;
    // A wait of the harness, not an assertion of a clause: a target whose bots never become ready is NOT JUDGED below.
    const isReady = async () => {
      const bots = (await this.bots()).filter((b) => b.status === 'ready' && b.routingRules.length > 0).sort((a, b) => a.operatorId - b.operatorId);
      if (bots.length < 2) return false;
      pair = { conv: bots[0]!, lab: bots[1]! };
      return ready === 'none' || ((ready === 'lab' || pair.conv.available) && (ready === 'conv' || pair.lab.available));
    };
    // The creation flow's calls the connector refused (endpoints 1-3): the bots will not become ready while it does, so the
    // check is NOT JUDGED naming the failed flow at once rather than after the whole wait.
    const refusedFlow = async () => partnerCause((await Promise.all(['external-bots', 'bot-put', 'bot-get'].map((endpoint) => this.requests({ endpoint })))).flatMap((x) => x.requests));
    const deadline = Date.now() + SEEDED_BOTS_MS;
    let ok = await isReady();
    for (let i = 1; !ok && Date.now() < deadline; i++) {
      if (i % 10 === 0 && !pair) {
        const cause = await refusedFlow();
        if (cause) notJudged(`the bot creation flow of the seeded bots failed: no bot became ready. ${cause}`);
      }
      await new Promise((r) => setTimeout(r, 200));
      ok = await isReady();
    }
    if (!ok) {
      const { requests } = await this.requests({ since });
      notJudged(`${what}: not within ${SEEDED_BOTS_MS / 1000} s. ${partnerCause(requests) ?? `The fake connector's log shows no refused call in that time (${requests.length} calls); the service's bots did not become ready.`}`);
    }
    return pair!;
  }
  async advance(ms: number) {
    await this.sim.advance(ms);
    this.ownAdvanceMs += ms;
  }
  clockOffset(): Promise<number | undefined> { return this.sim.clockOffset(); }

  // ---- fake connector control ----
  script(t: string, replies: Reply[], extra: { then?: Record<string, Reply[]>; variables?: unknown[]; faults?: Record<string, unknown> } = {}) { return this.connector.script(t, replies, extra); }
  operatorBehaviour(idOperator: number, b: { firstMessages?: Reply[]; availability?: unknown[]; clear?: boolean }) { return this.connector.operatorBehaviour(idOperator, b); }
  fault(f: { endpoint: string; idOperator?: number; [k: string]: unknown }) { return this.connector.fault(f); }
  clearFaults(idOperator: number) { return this.connector.clearFaults(idOperator); }
  requests(filter: Record<string, string | number> = {}) { return this.connector.requests(filter); }
  lastSeq(): Promise<number> { return this.connector.lastSeq(); }
  /** The first connector request after `since` matching the filter, or null when none arrives within `timeoutMs`. */
  waitRequest(filter: Record<string, string | number>, timeoutMs: number): Promise<ConnectorRequest | null> { return this.connector.waitRequest(filter, timeoutMs); }

  /** Attaches the visitor ↔ service ↔ connector sequence of one conversation to the report. */
  async attachConversation(title: string, id: string, extra: ConnectorRequest[] = []) {
    const v = await this.view(id);
    const { requests } = await this.requests({ idConversation: id });
    const all = [...extra, ...requests].sort((a, b) => a.seq - b.seq);
    const t0 = Math.min(...all.map((r) => r.at), Date.now());
    const calls: SequenceCall[] = [];
    for (const r of all) {
      const label = `${r.method} ${r.path}${r.role ? ` (${r.role}${r.text ? `: ${r.text.slice(0, 40)}` : ''})` : ''}`;
      calls.push({ from: 'service', to: 'connector', label, at: r.at - t0, failed: !r.signature.ok || r.violations.length > 0, note: r.violations.join('; ') || undefined });
      if (r.answer) calls.push({ from: 'connector', to: 'service', label: `${r.answer.status}${Array.isArray(r.answer.body?.replies) ? ` replies: ${r.answer.body.replies.map((x: Reply) => x.type).join(', ') || 'none'}` : ''}`, ms: r.answer.ms, at: r.at - t0 + r.answer.ms, failed: r.answer.status !== 200 });
    }
    const tStart = Date.parse(v.transcript[0]?.at ?? new Date().toISOString());
    for (const e of v.transcript) {
      const at = Date.parse(e.at) - tStart;
      if (e.role === 'visitor') calls.push({ from: 'visitor', to: 'service', label: textOf(e).slice(0, 60), at });
      else if (e.role === 'bot') calls.push({ from: 'service', to: 'visitor', label: `bot: ${textOf(e).slice(0, 60)}`, at });
      else calls.push({ from: 'service', to: 'visitor', label: `${e.role}: ${textOf(e).slice(0, 60)}`, at });
    }
    for (const f of v.failures) calls.push({ from: 'service', to: 'service', label: `failure: ${f.reason.slice(0, 80)}`, at: Date.parse(f.at) - tStart, failed: true });
    calls.sort((a, b) => a.at - b.at);
    await attachSequence(title, calls);
  }
}

/** Every check of the suite holds the suites' clock lock (fixture clockLock): shared normally, exclusive when it moves the service clock. */
export const test = withCopies(mergeTests(targetTest, simTest, partnersTest, clockTest).extend<{ bot: BotDriver }>({
  bot: async ({ sim, connector, clockLock }, use, info) => {
    void clockLock;
    const d = new BotDriver(sim, connector);
    const offsetBefore = await d.clockOffset();
    try {
      await use(d);
    } finally {
      // Checks of other suites may move the service clock; say so next to a failure, since timers may then fire early.
      const offsetAfter = await d.clockOffset();
      if (info.status !== info.expectedStatus && offsetBefore !== undefined && offsetAfter !== undefined && offsetAfter - offsetBefore !== d.ownAdvanceMs) {
        info.annotations.push({ type: 'warning', description: `the service clock was moved by ${offsetAfter - offsetBefore - d.ownAdvanceMs} ms by another check during this one; timers may have fired early` });
      }
    }
  },
}));
