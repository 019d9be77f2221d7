// Holds a conversation through a service's simulation API as a visitor would (start, type, click quick replies, stay silent), moving the service clock over awaits and timers, and reads it back as a transcript.
import { http, agentFor } from '../lib/http.js';
import { LIMITS } from '../lib/limits.js';
import type { Agent } from 'undici';
import { buildTranscript, type Mark, type ServiceExchange, type ServiceView, type TranscriptMeta } from './from-service.js';
import type { Transcript } from './format.js';
import { bearerHeader } from '../lib/control-auth.js';

/** A set-up problem (bad secret, unreachable service, bot never ready): `ces record|replay` exit 2 with this text. */
export class SetupError extends Error {}

export interface ServiceAccess {
  simUrl: string;
  /** Bearer token of the simulation API (`sim_token` of the ready info or target). */
  simToken?: string;
  platformUrl?: string;
  apiKey?: string;
  caFile?: string;
  /** The target can move its clock (`POST {sim_url}/clock/advance`). */
  clock: boolean;
}

/** How long the harness waits for the service to finish a turn beyond the spec's own limits (set-up calls, echoes). */
const SETTLE_GRACE_MS = 5_000;
/** How often the view is read while a turn settles. */
const POLL_MS = 50;
/** Without `exchanges`, a turn is settled when the view has not changed for this long. */
const QUIET_MS = 1_000;
/** Without the clock capability, timers this short are waited for in real time; longer ones are not judged. */
export const REAL_WAIT_MAX_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class SimClient {
  private readonly agent: Agent;
  /** False once the target answered that it has no exchanges route (then turns hold what was displayed). */
  exchangesAvailable = true;
  constructor(readonly access: ServiceAccess) { this.agent = agentFor(access.caFile); }

  private async call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
    try {
      const res = await http({
        method, url, timeoutMs: LIMITS.messageTimeoutMs + SETTLE_GRACE_MS,
        headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      }, this.agent);
      return { status: res.status, json: res.json };
    } catch (e) {
      throw new SetupError(`${method} ${url.replace(/\?.*$/, '')}: ${(e as Error).message}`);
    }
  }

  private sim(method: string, path: string, body?: unknown) {
    return this.call(method, `${this.access.simUrl.replace(/\/+$/, '')}${path}`, body, bearerHeader(this.access.simToken));
  }

  private static expect(res: { status: number; json: any }, ok: number[], what: string): any {
    if (!ok.includes(res.status)) {
      const hint = res.status === 401 || res.status === 403 ? ' (check sim_token / api_key of the target)' : '';
      throw new SetupError(`${what}: HTTP ${res.status} ${res.json?.message ?? res.json?.error ?? ''}${hint}`.trim());
    }
    return res.json;
  }

  async start(text: string, websiteId: string): Promise<string> {
    const site = /^\d+$/.test(websiteId) ? Number(websiteId) : websiteId;
    return SimClient.expect(await this.sim('POST', '/conversations', { channel: 'chat', text, websiteId: site }), [200, 201], 'starting a conversation (POST /conversations)').conversationId;
  }
  /** Sends a visitor text; false when the conversation is closed (409). */
  async visitor(id: string, text: string): Promise<boolean> {
    const res = await this.sim('POST', `/conversations/${encodeURIComponent(id)}/visitor-messages`, { text });
    if (res.status === 409) return false;
    SimClient.expect(res, [200, 201], 'sending a visitor message');
    return true;
  }
  async view(id: string): Promise<ServiceView> { return SimClient.expect(await this.sim('GET', `/conversations/${encodeURIComponent(id)}`), [200], 'reading the conversation'); }
  async exchanges(id: string): Promise<ServiceExchange[] | undefined> {
    if (!this.exchangesAvailable) return undefined;
    const res = await this.sim('GET', `/conversations/${encodeURIComponent(id)}/exchanges`);
    if (res.status === 404 || res.status === 405 || res.status === 501) { this.exchangesAvailable = false; return undefined; }
    return SimClient.expect(res, [200], 'reading the connector exchanges').exchanges;
  }
  async clockNow(): Promise<number> { return Date.parse(SimClient.expect(await this.sim('GET', '/clock'), [200], 'reading the service clock').now); }
  async advance(ms: number): Promise<void> { SimClient.expect(await this.sim('POST', '/clock/advance', { ms: Math.max(0, Math.ceil(ms)) }), [200], 'moving the service clock'); }
  async bots(): Promise<Array<{ operatorId: number; websiteId: number; idBot: string | null; status: string; setupError: string | null; available: boolean; lastError: string | null; pseudo?: string; languages?: string[]; distributionRules: Array<{ id: string; label: string }> }>> {
    return SimClient.expect(await this.sim('GET', '/bots'), [200], 'listing the bots (GET /bots)').bots;
  }
  /** Binds a bot operator to a scenario through the platform API (the service runs the bot creation flow again). */
  async bindScenario(operatorId: number, idBot: string): Promise<void> {
    if (!this.access.platformUrl || !this.access.apiKey) throw new SetupError('binding the bot to a scenario needs the platform API (platform_url and api_key)');
    const res = await this.call('PUT', `${this.access.platformUrl.replace(/\/+$/, '')}/bots/${operatorId}`, { idBot }, { 'x-api-key': this.access.apiKey });
    SimClient.expect(res, [200, 201], `binding bot ${operatorId} to scenario ${idBot} (PUT /platform/bots)`);
  }
}

/** One thing the visitor does. `clickFirst` (a recorded script's `@quick-reply`) resolves to the first quick reply last offered. */
export type Input = { visitor: string; quickReply?: boolean } | { clickFirst: true } | { wait: number };

export interface HeldConversation {
  transcript: Transcript; displayedOnly: boolean; notJudged: string[]; conversationId: string;
  /** Inputs (0-based, in order) that could not be played faithfully (a long wait without the clock capability). */
  unplayed: Set<number>;
}

const lastOffered = (v: ServiceView): string | undefined => {
  const withQr = [...v.transcript].reverse().find((e) => e.role === 'bot' && e.quickReplies?.length);
  const value = withQr?.quickReplies?.[0]?.value;
  return typeof value === 'string' ? value : undefined;
};

/**
 * Waits until the service finished the turn: the connector answered every visitor message sent, every scheduled
 * reply and transfer timeout fired (the clock is moved to each), every bot message was echoed through endpoint 7.
 */
async function settle(sim: SimClient, id: string, visitorsSent: number, notJudged: string[]): Promise<void> {
  const until = Date.now() + LIMITS.firstMessagesTimeoutMs + 2 * LIMITS.configEndpointTimeoutMs + LIMITS.messageTimeoutMs + SETTLE_GRACE_MS;
  let lastShape = '';
  let quietSince = Date.now();
  for (;;) {
    if (Date.now() > until) throw new SetupError(`conversation ${id}: the service did not finish the turn in time (answers, scheduled replies and echoes still pending)`);
    // Exchanges first: the view read after them already shows what the service did with those answers.
    const exchanges = await sim.exchanges(id);
    const view = await sim.view(id);
    const timers = (view.pendingTimers ?? []).filter((t) => t.kind === 'replies' || t.kind === 'transfer-timeout');
    if (exchanges) {
      const ep7 = exchanges.filter((x) => x.endpoint === 'messages');
      const answered = ep7.filter((x) => { try { return JSON.parse(x.requestBody ?? '{}')?.message?.author?.role === 'visitor'; } catch { return false; } }).length;
      // A visitor message reaches the connector while a bot holds the conversation (not after a transfer to a human).
      const opening = view.botOperatorId && view.phase !== 'human' && !exchanges.some((x) => x.endpoint === 'conversation-create' && x.failure) && answered < visitorsSent && view.state !== 'closed';
      if (opening) { await sleep(POLL_MS); continue; }
      // Every bot message shown after the first visitor message goes back through endpoint 7 with role operator.
      const firstVisitor = view.transcript.findIndex((e) => e.role === 'visitor');
      const echoesDue = view.transcript.slice(firstVisitor + 1).filter((e) => e.role === 'bot').length;
      const echoes = ep7.length - answered;
      if (echoes < echoesDue && view.botOperatorId) { await sleep(POLL_MS); continue; }
    } else {
      // No exchange log: the turn is over when the view stopped changing for a while.
      const shape = JSON.stringify([view.transcript.length, view.failures?.length, view.state, timers]);
      if (shape !== lastShape) { lastShape = shape; quietSince = Date.now(); }
      if (!timers.length && Date.now() - quietSince < QUIET_MS) { await sleep(POLL_MS); continue; }
    }
    if (!timers.length || view.state === 'closed') return;
    const due = Math.min(...timers.map((t) => Date.parse(t.due)));
    if (sim.access.clock) {
      await sim.advance(due - (await sim.clockNow()) + 1);
    } else {
      const wait = due - Date.now();
      if (wait > REAL_WAIT_MAX_MS) { notJudged.push(`a timer due in ${Math.round(wait / 1000)} s was not waited for: the target lacks the clock capability`); return; }
      await sleep(Math.max(POLL_MS, wait + POLL_MS));
    }
  }
}

/** Holds one conversation from its inputs and returns its transcript (the first input must be a visitor text). */
export async function holdConversation(sim: SimClient, inputs: Input[], meta: Omit<TranscriptMeta, 'by'> & { by: string }): Promise<HeldConversation> {
  const notJudged: string[] = [];
  const marks: Mark[] = [];
  const unplayed = new Set<number>();
  let id: string | undefined;
  let visitorsSent = 0;
  for (const input of inputs) {
    const before = id ? await sim.view(id) : undefined;
    const counts = { entries: before?.transcript.length ?? 0, failures: before?.failures?.length ?? 0 };
    if ('wait' in input) {
      if (!id) throw new SetupError('a conversation cannot start with a wait: the first input is a visitor text');
      if (before?.state === 'closed') break;
      if (sim.access.clock) await sim.advance(input.wait);
      else if (input.wait <= REAL_WAIT_MAX_MS) await sleep(input.wait);
      else {
        notJudged.push(`a wait of ${Math.round(input.wait / 1000)} s was not played: the target lacks the clock capability`);
        unplayed.add(marks.length);
      }
      marks.push({ kind: 'wait', ms: input.wait, ...counts });
      await settle(sim, id, visitorsSent, notJudged);
      continue;
    }
    let text: string;
    let quickReply = false;
    if ('clickFirst' in input) {
      const offered = before ? lastOffered(before) : undefined;
      if (!offered) { notJudged.push('a quick-reply click was skipped: the bot offered no quick reply'); continue; }
      text = offered;
      quickReply = true;
    } else { text = input.visitor; quickReply = input.quickReply === true; }
    if (!id) id = await sim.start(text, meta.websiteId);
    else {
      if (before?.state === 'closed') break;
      if (!(await sim.visitor(id, text))) break;
    }
    visitorsSent++;
    marks.push({ kind: 'visitor', text, quickReply, ...counts });
    await settle(sim, id, visitorsSent, notJudged);
  }
  if (!id) throw new SetupError('nothing to play: no visitor text among the inputs');
  const view = await sim.view(id);
  const exchanges = await sim.exchanges(id);
  const built = buildTranscript(view, exchanges, meta, marks);
  return { ...built, notJudged, conversationId: id, unplayed };
}

