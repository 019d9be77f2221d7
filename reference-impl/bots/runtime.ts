// The conversation state machine: routing to bots or humans, the opening (endpoints 5/6/7), replies in order (await, message, transfer, close), transfers and closes.
import { randomUUID } from 'node:crypto';
import { LIMITS } from '../../lib/limits.js';
import { list } from '../store/db.js';
import type { Core } from '../core.js';
import type { ConnectorClient } from './connector-client.js';
import type { AvailabilityPoller } from './availability.js';
import { botOperator, distributionRule, availableOperatorsOfRule, installation } from './setup.js';
import { ConversationStore, type ConvRow, type Shown } from './conversation-store.js';
import { setTimeout as delay } from 'node:timers/promises';
import { ConversationTimers, type DueTimer, type TimerKind } from './timers.js';
import { ConversationCalls } from './connector-calls.js';
import { isOffsite } from '../channels.js';


export interface Reply { type: string; [k: string]: any }

export class RuntimeError extends Error { constructor(public status: number, public code: string, message: string) { super(message); } }

const unitMs = { millis: 1, seconds: 1_000, minutes: 60_000 } as Record<string, number>;
const durationMs = (d: { unit: string; value: number } | undefined) => (d ? d.value * (unitMs[d.unit] ?? 1) : 0);

/** Text values the 450-character limit applies to. */
function textValues(payload: any): string[] {
  if (!payload || typeof payload !== 'object') return [];
  const out: string[] = [];
  if (payload.contentType === 'text' && typeof payload.value === 'string') out.push(payload.value);
  if (typeof payload.text === 'string') out.push(payload.text);
  for (const c of payload.cards ?? []) out.push(...textValues(c));
  return out;
}

export class ConversationRuntime {
  readonly store: ConversationStore;
  private timers: ConversationTimers;
  private calls: ConversationCalls;
  private opening = new Map<number, Promise<void>>();
  private loopDepth = new Map<number, number>();
  private closed = false;

  constructor(private ces: Core, client: ConnectorClient, private poller: AvailabilityPoller) {
    this.store = new ConversationStore(ces);
    this.timers = new ConversationTimers(ces, (t) => this.onTimer(t));
    this.calls = new ConversationCalls(ces, client);
  }

  /** 'changed' (conversation id) events: the inspector and waiters listen. */
  get events() { return this.store.events; }
  conv(id: number): ConvRow | undefined { return this.store.conv(id); }
  convByUuid(uuid: string): ConvRow | undefined { return this.store.convByUuid(uuid); }
  view(id: number) { return this.store.view(id, this.timers.pending(id)); }

  /** After a restart: every pending timer is armed again; conversations caught opening continue as bot conversations. */
  rearm() {
    this.timers.rearm();
    this.ces.db.prepare(`UPDATE conversation_state SET phase = 'bot' WHERE phase = 'opening'`).run();
  }

  stop() {
    this.closed = true;
    this.timers.stop();
  }

  private async onTimer(t: DueTimer) {
    if (this.closed) return;
    const id = t.conversationId;
    const data = t.data;
    const conv = this.store.conv(id);
    if (!conv || conv.closed_at) return;
    switch (t.kind) {
      case 'replies': await this.runReplies(id, data.replies ?? []); break;
      case 'transfer-timeout': {
        if (this.store.state(id)?.phase !== 'transferring') return;
        this.ces.db.prepare(`UPDATE conversation_state SET phase = 'bot', pending_transfer = NULL WHERE conversation_id = ?`).run(id);
        this.store.addTranscript(id, 'system', { contentType: 'event', value: 'TRANSFER_TIMEOUT' });
        // Timeout reached without transfer: the scenario continues (deviation bots-transfer-timeout-stops: it stops).
        await this.runReplies(id, this.ces.policy.bots.scenarioContinuesAfterTimeout ? data.replies ?? [] : []);
        break;
      }
      case 'inactivity':
      case 'offsite-inactivity': {
        const policy = this.ces.policy.bots;
        const limit = t.kind === 'inactivity' ? policy.botInactivityMs : policy.offsiteInactivityMs;
        // Counted from the last activity (deviation bots-inactivity-from-start: from the start).
        const idleUntil = (policy.inactivityFromLastActivity ? conv.last_activity_at : conv.created_at) + limit;
        const stillBot = t.kind === 'offsite-inactivity' || ['bot', 'opening', 'transferring'].includes(this.store.state(id)?.phase ?? '');
        if (!stillBot) return;
        if (idleUntil > this.ces.clock.now()) {
          this.timers.add(id, t.kind, Math.max(idleUntil, this.ces.clock.now() + 1_000));
          return;
        }
        this.close(id, t.kind === 'inactivity' ? 'inactivity' : 'offsite-inactivity');
        break;
      }
    }
  }

  // ---------- routing and start ----------
  /** The bot of a routing rule for this website and channel, when ready and available (bots chat only). */
  private routeToBot(clientId: number, websiteId: number, channel: string): number | null {
    if (channel !== 'chat') return null;
    const rules = this.ces.db.prepare('SELECT * FROM routing_rules WHERE client_id = ? AND website_id = ? ORDER BY created_at, id').all(clientId, websiteId) as Array<{ channels: string; operator_ids: string }>;
    for (const r of rules) {
      if (!list<string>(r.channels).includes(channel)) continue;
      for (const op of list<number>(r.operator_ids)) {
        const b = botOperator(this.ces, op);
        // A ready bot takes chats while its polled availability says so (deviation bots-routing-ignores-availability: always).
        if (b?.status === 'ready' && (this.poller.isAvailable(op) || !this.ces.policy.bots.routedByAvailability)) return op;
      }
    }
    return null;
  }

  private pickHuman(clientId: number, websiteId: number, channel: string): number | null {
    const humans = (this.ces.db.prepare(`SELECT o.id, o.website_list, l.connected, l.chat_available, l.call_available, l.video_available FROM operators o
      LEFT JOIN operator_live l ON l.operator_id = o.id WHERE o.client_id = ? AND o.type = 'human' ORDER BY o.id`).all(clientId) as any[])
      .filter((h) => list<number>(h.website_list).includes(websiteId));
    const ch = isOffsite(channel) ? 'chat' : channel;
    const available = humans.find((h) => h.connected === 1 && h[`${ch}_available`] === 1);
    return (available ?? humans[0])?.id ?? null;
  }

  /** A visitor opens a conversation on `channel` with a first text. */
  start(input: { clientId: number; websiteId: number; channel: string; text: string; visitorId?: string }): ConvRow {
    const { clientId, websiteId, channel, text } = input;
    const bot = this.routeToBot(clientId, websiteId, channel);
    const operatorId = bot ?? this.pickHuman(clientId, websiteId, channel);
    const now = this.ces.clock.now();
    const uuid = randomUUID();
    const visitor = input.visitorId ?? `visitor-${uuid.slice(0, 8)}`;
    const id = Number(this.ces.db.prepare(`INSERT INTO conversations (uuid, client_id, website_id, channel, visitor_uid, visitor_external_id, operator_id, operator_ids, page_type,
      operator_answer, operator_closed, waitinglist, created_at, closed_at, last_activity_at, history) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'home', 0, 0, 0, ?, NULL, ?, '[]')`)
      .run(uuid, clientId, websiteId, channel, visitor, isOffsite(channel) ? null : visitor, operatorId, JSON.stringify(operatorId ? [operatorId] : []), now, now).lastInsertRowid);
    const bs = bot ? botOperator(this.ces, bot) : undefined;
    this.ces.db.prepare('INSERT INTO conversation_state (conversation_id, bot_operator_id, install_id, phase) VALUES (?, ?, ?, ?)')
      .run(id, bot, bs?.install_id ?? null, bot ? 'opening' : 'human');
    if (channel === 'chat' || channel === 'video') this.ces.events.emit({ kind: 'conversation.pushed', clientId, conversationId: id, viaTransfer: false, at: now });
    else if (channel === 'call') this.ces.events.emit({ kind: 'conversation.started', clientId, conversationId: id, at: now });
    if (bot) {
      this.timers.add(id, 'inactivity', now + this.ces.policy.bots.botInactivityMs);
      const p = this.openWithBot(id, bot, text).catch((e) => { if (!this.closed) this.store.recordFailure(id, 'internal', 'error', String(e)); }).finally(() => this.opening.delete(id));
      this.opening.set(id, p);
    } else {
      this.store.addTranscript(id, 'visitor', { contentType: 'text', value: text });
      if (isOffsite(channel)) this.timers.add(id, 'offsite-inactivity', now + this.ces.policy.bots.offsiteInactivityMs);
    }
    return this.store.conv(id)!;
  }

  /** Endpoint 5 (2 s), the first visitor message, endpoint 6 then immediately endpoint 7. */
  private async openWithBot(id: number, botId: number, text: string) {
    const bot = botOperator(this.ces, botId)!;
    const inst = installation(this.ces, bot.install_id)!;
    const conv = this.store.conv(id)!;
    const policy = this.ces.policy.bots;
    // The first messages come before the visitor's first message (deviation bots-first-messages-after-visitor: after it).
    let visitorMsg = policy.firstMessagesBeforeVisitor ? undefined : this.store.addTranscript(id, 'visitor', { contentType: 'text', value: text });
    const first = await this.calls.firstMessages(inst, botId, id);
    const history: unknown[] = [];
    if (!first.ok) this.store.recordFailure(id, 'first-messages', first.kind, `endpoint 5: ${first.reason}; first messages not displayed`);
    else {
      // Only replies of type message are used; other types are ignored. What they show is the history of endpoint 6 (G35).
      const used = (first.json.replies as Reply[]).filter((r) => policy.firstMessageReplyTypes.includes(r.type));
      for (const shown of await this.runReplies(id, used, { fromFirstMessages: true })) {
        history.push({ idMessage: shown.messageId, author: { role: 'operator' }, payload: shown.payload, createdAt: new Date(shown.at).toISOString() });
      }
    }
    if (this.store.conv(id)?.closed_at) return;
    visitorMsg ??= this.store.addTranscript(id, 'visitor', { contentType: 'text', value: text });
    this.store.touch(id);
    const created = await this.calls.create(inst, botId, id, conv.uuid, history);
    if (!created.ok) {
      this.store.recordFailure(id, 'conversation-create', created.kind, `endpoint 6: ${created.reason}; the bot cannot answer this conversation`);
      this.store.setPhase(id, 'bot');
      return;
    }
    this.ces.db.prepare('UPDATE conversation_state SET connector_conversation_id = ? WHERE conversation_id = ?').run(created.json.idConversation, id);
    this.storeVariables(id, created.json.variables);
    // A bot never writes unprompted (deviation bots-unprompted-message: the service shows a greeting of its own).
    if (policy.unpromptedGreeting) this.showBotMessage(id, botId, { type: 'message', payload: { contentType: 'text', value: policy.unpromptedGreeting } });
    if ((created.json.replies ?? []).length) this.store.recordFailure(id, 'conversation-create', 'replies-not-empty', 'endpoint 6 answered non-empty replies (they must be empty); ignored');
    if (this.store.state(id)?.phase === 'opening') this.store.setPhase(id, 'bot');
    if (this.store.conv(id)?.closed_at) return;
    // Endpoint 6 is followed immediately by endpoint 7.
    await delay(policy.firstMessageDelayMs);
    if (this.closed) return;
    await this.postMessage(id, 'visitor', { contentType: 'text', value: text }, visitorMsg);
  }

  private storeVariables(id: number, vars: unknown) {
    if (!Array.isArray(vars) || !vars.length) return;
    this.store.mergeVariables(id, vars as Array<{ key: string; value: string }>);
  }

  /** Endpoint 7 for one message of the conversation; runs the replies of visitor messages, refuses those of operator messages. */
  private async postMessage(id: number, role: 'visitor' | 'operator', payload: unknown, msg: { messageId: string; at: number }) {
    const st = this.store.state(id);
    const conv = this.store.conv(id);
    if (!st?.bot_operator_id || !conv || !st.connector_conversation_id) return;
    const inst = installation(this.ces, st.install_id!);
    if (!inst) return;
    const zone = (this.ces.db.prepare('SELECT timezone FROM websites WHERE id = ?').get(conv.website_id) as { timezone: string } | undefined)?.timezone ?? 'UTC';
    const res = await this.calls.message(inst, { botId: st.bot_operator_id, conversationId: id, connectorId: st.connector_conversation_id, role, payload, shown: msg, zone });
    if (!res.ok) {
      this.store.recordFailure(id, 'messages', res.kind, `endpoint 7 (${role} message): ${res.reason}${role === 'visitor' ? '; the bot answer is not displayed' : ''}`);
      return;
    }
    this.storeVariables(id, res.json.variables);
    const replies = (res.json.replies ?? []) as Reply[];
    if (!replies.length) return;
    if (role === 'operator') {
      // Loop safety: a connector must ignore operator messages; replies to them are not run (beyond the policy's levels: none).
      const depth = (this.loopDepth.get(id) ?? 0) + 1;
      if (depth > this.ces.policy.bots.operatorReplyLevels) {
        this.store.recordFailure(id, 'messages', 'reply-to-operator', 'endpoint 7 answered replies to an operator message; ignored (the connector must reply to visitor messages only)');
        return;
      }
      this.loopDepth.set(id, depth);
    }
    await this.runReplies(id, replies);
  }

  /** Replies run in order; await schedules the rest, transfer may pause it, close ends it. Answers the messages shown. */
  async runReplies(id: number, replies: Reply[], opts: { force?: boolean; fromFirstMessages?: boolean } = {}): Promise<Array<Shown & { payload: unknown }>> {
    const shownAll: Array<Shown & { payload: unknown }> = [];
    for (let i = 0; i < replies.length; i++) {
      const conv = this.store.conv(id);
      const st = this.store.state(id);
      if (!conv || conv.closed_at || !st) return shownAll;
      if (!opts.force && st.phase !== 'bot' && st.phase !== 'opening') return shownAll;
      const r = replies[i]!;
      const rest = replies.slice(i + 1);
      switch (r.type) {
        case 'await':
          this.timers.add(id, 'replies', this.ces.clock.now() + durationMs(r.duration), { replies: rest });
          return shownAll;
        case 'message': {
          const shown = this.showBotMessage(id, st.bot_operator_id!, r);
          if (shown) shownAll.push({ ...shown, payload: r.payload });
          // The bot's own replies go back through endpoint 7 with role operator.
          if (shown && !opts.fromFirstMessages) void this.postMessage(id, 'operator', r.payload, shown);
          break;
        }
        case 'transfer': {
          const outcome = this.requestTransfer(id, r, rest);
          if (outcome === 'continue') break;
          // Following scheduled messages are not published (deviation bots-transfer-keeps-rest: they are).
          if (outcome === 'done' && !this.ces.policy.bots.repliesAfterTransferDropped) shownAll.push(...await this.runReplies(id, rest, { force: true }));
          return shownAll;
        }
        case 'close':
          this.close(id, 'bot');
          return shownAll;
        default:
          this.store.recordFailure(id, 'messages', 'unknown-reply', `unknown reply type ${JSON.stringify(r.type)}; ignored`);
      }
    }
    return shownAll;
  }

  /** Displays a bot message unless a text value is over 450 characters (G21: not sent, failure recorded). */
  private showBotMessage(id: number, botId: number, r: Reply): { messageId: string; at: number } | null {
    const policy = this.ces.policy.bots;
    const tooLong = textValues(r.payload).find((t) => t.length > policy.botTextMax);
    if (tooLong !== undefined) {
      this.store.recordFailure(id, 'messages', 'text-too-long', `bot message of ${tooLong.length} characters not sent (limit ${LIMITS.botTextMax})`);
      return null;
    }
    const shown = this.store.addTranscript(id, 'bot', r.payload, { operatorId: botId, quickReplies: r.quickReplies });
    this.store.touch(id);
    return shown;
  }

  /** A transfer reply: the rule must be asynchronous; an available operator takes the conversation now, else it waits until the timeout. */
  private requestTransfer(id: number, r: Reply, rest: Reply[]): 'continue' | 'done' | 'pending' {
    const conv = this.store.conv(id)!;
    const st = this.store.state(id)!;
    const bot = botOperator(this.ces, st.bot_operator_id!);
    const ruleId = String(r.distributionRule ?? '');
    const rule = bot && list<string>(bot.distribution_rule_ids).includes(ruleId) ? distributionRule(this.ces, conv.client_id, ruleId) : undefined;
    if (!rule) { this.store.recordFailure(id, 'transfer', 'unknown-rule', `transfer to distribution rule ${ruleId}: not a rule of this bot; the transfer does not operate`); return 'continue'; }
    const policy = this.ces.policy.bots;
    if (rule.queue_slots < policy.transferMinQueueSlots) {
      this.store.recordFailure(id, 'transfer', 'not-asynchronous', `transfer to "${rule.label}": the rule is not asynchronous (queue slots ${rule.queue_slots}); the transfer does not operate`);
      return 'continue';
    }
    let timeoutMs = r.transferOptions ? durationMs(r.transferOptions.timeout) : LIMITS.transferTimeoutDefaultMs;
    if (timeoutMs < LIMITS.transferTimeoutMinMs || timeoutMs > LIMITS.transferTimeoutMaxMs) {
      const clamped = Math.min(LIMITS.transferTimeoutMaxMs, Math.max(LIMITS.transferTimeoutMinMs, timeoutMs));
      this.store.recordFailure(id, 'transfer', 'timeout-out-of-range', `transfer timeout ${timeoutMs} ms is outside 5-60 s; ${clamped} ms used`);
      timeoutMs = clamped;
    }
    // The first available operator of the rule takes the conversation now.
    const target = availableOperatorsOfRule(this.ces, rule, 'transfer target')[0];
    if (target !== undefined) { this.transfer(id, target); return 'done'; }
    this.ces.db.prepare(`UPDATE conversation_state SET phase = 'transferring', pending_transfer = ? WHERE conversation_id = ?`)
      .run(JSON.stringify({ ruleId, due: this.ces.clock.now() + timeoutMs }), id);
    this.store.addTranscript(id, 'system', { contentType: 'event', value: 'TRANSFER_REQUESTED' });
    this.timers.add(id, 'transfer-timeout', this.ces.clock.now() + timeoutMs, { replies: rest });
    this.watchTransfer(id, rule);
    return 'pending';
  }

  /** While a transfer waits, an operator of the rule who becomes available takes the conversation (checked once a second). */
  private watchTransfer(id: number, rule: ReturnType<typeof distributionRule> & object) {
    const t = setInterval(() => {
      if (this.closed || this.store.state(id)?.phase !== 'transferring') { clearInterval(t); return; }
      const target = availableOperatorsOfRule(this.ces, rule, 'transfer target')[0];
      if (target !== undefined) { clearInterval(t); this.transfer(id, target); }
    }, 1_000);
    t.unref();
  }

  // ---------- actions of visitors and operators ----------
  async visitorMessage(id: number, text: string) {
    await this.opening.get(id);
    const conv = this.store.conv(id);
    if (!conv) throw new RuntimeError(404, 'not_found', 'no such conversation');
    if (conv.closed_at) throw new RuntimeError(409, 'closed', 'the conversation is closed');
    // A visitor message drops the pending scheduled messages.
    const policy = this.ces.policy.bots;
    this.timers.cancel(id, policy.droppedByVisitor as TimerKind[]);
    const msg = this.store.addTranscript(id, 'visitor', { contentType: 'text', value: text });
    this.store.touch(id);
    // It goes to the bot while the bot handles the conversation (a bot never shares it with another agent).
    const st = this.store.state(id);
    if (st && policy.visitorPostPhases.includes(st.phase)) void this.postMessage(id, 'visitor', { contentType: 'text', value: text }, msg);
  }

  operatorMessage(id: number, operatorId: number, text: string) {
    const conv = this.store.conv(id);
    if (!conv) throw new RuntimeError(404, 'not_found', 'no such conversation');
    if (conv.closed_at) throw new RuntimeError(409, 'closed', 'the conversation is closed');
    const st = this.store.state(id);
    if (st && st.phase !== 'human') throw new RuntimeError(409, 'bot_conversation', 'a bot handles this conversation: a bot never shares a conversation with another agent, and never writes unprompted');
    if (conv.operator_id !== operatorId) throw new RuntimeError(409, 'not_assigned', `operator ${operatorId} is not the operator of this conversation (${conv.operator_id})`);
    this.store.addTranscript(id, 'operator', { contentType: 'text', value: text }, { operatorId });
    this.store.touch(id);
  }

  /** The conversation arrives at another (human) operator by transfer; the bot, if any, leaves it. */
  transfer(id: number, operatorId: number) {
    const conv = this.store.conv(id);
    if (!conv) throw new RuntimeError(404, 'not_found', 'no such conversation');
    if (conv.closed_at) throw new RuntimeError(409, 'closed', 'the conversation is closed');
    const op = this.ces.db.prepare(`SELECT id FROM operators WHERE id = ? AND client_id = ? AND type = 'human'`).get(operatorId, conv.client_id);
    if (!op) throw new RuntimeError(400, 'invalid_operator', `operator ${operatorId} is not a human operator of this client`);
    // Following scheduled messages are not published.
    this.timers.cancel(id, ['replies', 'transfer-timeout', 'inactivity']);
    const ids = [...new Set([...list<number>(conv.operator_ids), operatorId])];
    this.ces.db.prepare('UPDATE conversations SET operator_id = ?, operator_ids = ? WHERE id = ?').run(operatorId, JSON.stringify(ids), id);
    this.ces.db.prepare(`UPDATE conversation_state SET phase = 'human', pending_transfer = NULL WHERE conversation_id = ?`).run(id);
    this.store.addTranscript(id, 'system', { contentType: 'event', value: 'TRANSFERRED', operatorId });
    this.store.touch(id);
    if (conv.channel === 'chat' || conv.channel === 'video') this.ces.events.emit({ kind: 'conversation.pushed', clientId: conv.client_id, conversationId: id, viaTransfer: true, at: this.ces.clock.now() });
  }

  close(id: number, reason: 'bot' | 'operator' | 'inactivity' | 'offsite-inactivity') {
    const conv = this.store.conv(id);
    if (!conv) throw new RuntimeError(404, 'not_found', 'no such conversation');
    if (conv.closed_at) throw new RuntimeError(409, 'closed', 'the conversation is already closed');
    this.timers.cancel(id);
    const now = this.ces.clock.now();
    this.ces.db.prepare('UPDATE conversations SET closed_at = ?, operator_closed = ? WHERE id = ?').run(now, reason === 'operator' ? 1 : 0, id);
    this.ces.db.prepare(`UPDATE conversation_state SET phase = 'closed', close_reason = ?, pending_transfer = NULL WHERE conversation_id = ?`).run(reason, id);
    this.store.addTranscript(id, 'system', { contentType: 'event', value: reason === 'operator' ? 'OPERATOR_CHAT_CLOSE' : reason === 'bot' ? 'BOT_CHAT_CLOSE' : 'INACTIVITY_CLOSE' });
    this.ces.events.emit({ kind: 'conversation.closed', clientId: conv.client_id, conversationId: id, at: now });
  }
}
