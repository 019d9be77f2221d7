// Bot-runtime suite helpers: drive visitors through the simulation API, program and observe the fake connector, share the clock safely, draw sequences.
import { randomUUID } from 'node:crypto';
import { test as base, expect, needs } from '../fixtures.js';
import type { Api } from '../fixtures.js';
import { controlAuthHeader } from '../../lib/control-auth.js';
import { agentFor, http, type HttpAnswer } from '../../lib/http.js';
import type { Target } from '../../lib/target.js';
import { attachSequence, type SequenceCall } from '../evidence.js';
import { withClockLock } from '../clock-lock.js';

export { expect, needs };

export interface Reply { type: string; [k: string]: unknown }
export interface TranscriptEntry { role: 'visitor' | 'bot' | 'operator' | 'system'; payload: any; quickReplies?: any[]; at: string; operatorId?: number; messageId?: string }
export interface ConversationView {
  conversationId: string; state: 'started' | 'closed'; phase?: string; closeReason?: string | null; operatorId: number | null; botOperatorId?: number | null;
  variables?: Array<{ key: string; value: string }>; transcript: TranscriptEntry[]; failures: Array<{ endpoint: string; kind: string; reason: string; at: string }>;
}
export interface ConnectorRequest {
  seq: number; at: number; method: string; path: string; endpoint: string; query: Record<string, string>; rawQuery: string; body: any;
  signature: { ok: boolean; reason?: string }; violations: string[]; idOperator?: string; idConversation?: string; role?: string; text?: string;
  answer?: { status: number | 'reset'; ms: number; body?: any };
}
export interface SimBot {
  operatorId: number; clientId: number; websiteId: number; idBot: string; status: string; languages: string[]; available: boolean;
  routingRules: Array<{ id: string; websiteId: number; channels: string[] }>;
  distributionRules: Array<{ id: string; label: string; queueSlots: number; asynchronous: boolean; operatorIds: number[]; availableOperatorIds: number[] }>;
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
  readonly sim: string;
  readonly control: string;
  constructor(private api: Api, private target: Target) {
    this.sim = target.sim_url ?? `${target.base_url}/sim`;
    this.control = `${target.connector_url}/_control`;
  }

  /** Unrecorded call (polling, control plumbing): evidence comes from the recorded steps. */
  async raw(method: string, url: string, json?: unknown): Promise<HttpAnswer> {
    const headers = { ...controlAuthHeader(this.target, url), ...(json === undefined ? {} : { 'content-type': 'application/json' }) };
    return http({ method, url, headers, body: json === undefined ? undefined : JSON.stringify(json) }, agentFor(this.target.ca_file));
  }

  // ---- simulation API ----
  async start(firstText: string, opts: { channel?: string; websiteId?: number; visitorId?: string } = {}): Promise<string> {
    const res = await this.api.postJson(`${this.sim}/conversations`, { channel: opts.channel ?? 'chat', text: firstText, ...(opts.websiteId ? { websiteId: opts.websiteId } : {}), ...(opts.visitorId ? { visitorId: opts.visitorId } : {}) });
    expect(res.status, `POST /sim/conversations answered ${res.status}: ${res.text}`).toBe(201);
    return res.json.conversationId as string;
  }
  async say(id: string, t: string): Promise<HttpAnswer> { return this.api.postJson(`${this.sim}/conversations/${id}/visitor-messages`, { text: t }); }
  async operatorSays(id: string, operatorId: number, t: string): Promise<HttpAnswer> { return this.api.postJson(`${this.sim}/conversations/${id}/operator-messages`, { operatorId, text: t }); }
  async view(id: string): Promise<ConversationView> {
    const r = await this.raw('GET', `${this.sim}/conversations/${id}`);
    expect(r.status, `GET /sim/conversations/${id}: ${r.text}`).toBe(200);
    return r.json;
  }
  /** Recorded read, for the report. */
  async viewStep(id: string): Promise<ConversationView> { return (await this.api.request({ url: `${this.sim}/conversations/${id}` })).json; }

  /** Waits (deadline `timeoutMs`) until the conversation satisfies `pred`; fails with what was seen. */
  async until(id: string, what: string, pred: (v: ConversationView) => boolean, timeoutMs = 5_000): Promise<ConversationView> {
    let last: ConversationView | undefined;
    await expect.poll(async () => { last = await this.view(id); return pred(last); }, { message: `conversation ${id}: ${what} within ${timeoutMs} ms`, timeout: timeoutMs, intervals: [50, 100, 100, 200] }).toBe(true)
      .catch((e) => { throw new Error(`${(e as Error).message}\nlast transcript: ${JSON.stringify(last?.transcript.map(textOf))}\nfailures: ${JSON.stringify(last?.failures)}`); });
    return this.viewStep(id);
  }
  hasText = (v: ConversationView, t: string) => v.transcript.some((e) => e.role === 'bot' && e.payload?.value === t);

  async bots(): Promise<SimBot[]> {
    const r = await this.raw('GET', `${this.sim}/bots`);
    expect(r.status, `GET /sim/bots: ${r.text}`).toBe(200);
    return r.json.bots;
  }
  /**
   * The two seeded bots with a routing rule: the first serves conversation checks (parallel), the second is the lab bot
   * (serial timing/availability checks, which make it unavailable at times). Waits until the one(s) `ready` names are available.
   */
  async seededBots(ready: 'conv' | 'lab' | 'both' = 'conv'): Promise<{ conv: SimBot; lab: SimBot }> {
    let pair: { conv: SimBot; lab: SimBot } | undefined;
    await expect.poll(async () => {
      const bots = (await this.bots()).filter((b) => b.status === 'ready' && b.routingRules.length > 0).sort((a, b) => a.operatorId - b.operatorId);
      if (bots.length < 2) return false;
      pair = { conv: bots[0]!, lab: bots[1]! };
      return (ready === 'lab' || pair.conv.available) && (ready === 'conv' || pair.lab.available);
    }, { message: `two seeded bots ready (bot creation flow done), ${ready} available (polls answered)`, timeout: 15_000 }).toBe(true);
    return pair!;
  }
  /** Service-clock moves made by this check (so a move by another check can be told apart). */
  ownAdvanceMs = 0;
  async advance(ms: number) {
    const r = await this.api.postJson(`${this.sim}/clock/advance`, { ms });
    expect(r.status, `POST /sim/clock/advance: ${r.text}`).toBe(200);
    this.ownAdvanceMs += ms;
  }
  async clockOffset(): Promise<number | undefined> {
    const r = await this.raw('GET', `${this.sim}/clock`).catch(() => undefined);
    return typeof r?.json?.offsetMs === 'number' ? r.json.offsetMs : undefined;
  }

  // ---- fake connector control ----
  async script(t: string, replies: Reply[], extra: { then?: Record<string, Reply[]>; variables?: unknown[]; faults?: Record<string, unknown> } = {}) {
    const r = await this.api.postJson(`${this.control}/scenario`, { text: t, replies, ...extra });
    expect(r.status, `fake connector scenario: ${r.text}`).toBe(200);
  }
  async operatorBehaviour(idOperator: number, b: { firstMessages?: Reply[]; availability?: unknown[]; clear?: boolean }) {
    const r = await this.api.postJson(`${this.control}/scenario`, { idOperator: String(idOperator), ...b });
    expect(r.status, `fake connector scenario: ${r.text}`).toBe(200);
  }
  async fault(f: { endpoint: string; idOperator?: number; [k: string]: unknown }) {
    const r = await this.api.postJson(`${this.control}/faults`, { ...f, ...(f.idOperator !== undefined ? { idOperator: String(f.idOperator) } : {}) });
    expect(r.status, `fake connector faults: ${r.text}`).toBe(200);
  }
  async clearFaults(idOperator: number) { await this.raw('POST', `${this.control}/faults`, { clear: true, idOperator: String(idOperator) }); }
  async requests(filter: Record<string, string | number> = {}): Promise<{ lastSeq: number; requests: ConnectorRequest[] }> {
    const q = new URLSearchParams(Object.entries(filter).map(([k, v]) => [k, String(v)]));
    const r = await this.raw('GET', `${this.control}/requests?${q}`);
    expect(r.status).toBe(200);
    return r.json;
  }
  async lastSeq(): Promise<number> { return (await this.requests({ since: 1e12 })).lastSeq; }
  /** The first connector request after `since` matching the filter, or null when none arrives within `timeoutMs`. */
  async waitRequest(filter: Record<string, string | number>, timeoutMs: number): Promise<ConnectorRequest | null> {
    const q = new URLSearchParams(Object.entries({ ...filter, timeoutMs }).map(([k, v]) => [k, String(v)]));
    const r = await this.raw('GET', `${this.control}/wait?${q}`);
    if (r.status === 408) return null;
    expect(r.status, `fake connector wait: ${r.text}`).toBe(200);
    return r.json.request;
  }

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

/** Every check of the suite holds the suites' clock lock: shared normally, exclusive when it moves the service clock. */
export const test = base.extend<{ bot: BotDriver; clockMode: 'shared' | 'exclusive' }>({
  clockMode: ['shared', { option: true }],
  bot: async ({ api, target, clockMode }, use, info) => {
    // Not a capability: without the fake connector these checks cannot judge anything, so it is a set-up error, never a skip.
    if (!target.connector_url) throw new Error('target has no connector_url: point the target\'s bot at the fake connector (`ces serve` gives one) and name it in the target file');
    const d = new BotDriver(api, target);
    let offsetBefore: number | undefined;
    await withClockLock(target, clockMode, async () => {
      offsetBefore = await d.clockOffset();
      await use(d);
    }).finally(async () => {
      // Checks of other suites may move the service clock; say so next to a failure, since timers may then fire early.
      const offsetAfter = await d.clockOffset();
      if (info.status !== info.expectedStatus && offsetBefore !== undefined && offsetAfter !== undefined && offsetAfter - offsetBefore !== d.ownAdvanceMs) {
        info.annotations.push({ type: 'warning', description: `the service clock was moved by ${offsetAfter - offsetBefore - d.ownAdvanceMs} ms by another check during this one; timers may have fired early` });
      }
    });
  },
});
