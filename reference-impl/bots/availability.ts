// Availability of routing rules per channel, from the bots' polled availability strategies and the operators' live availability.
import { LIMITS } from '../../lib/limits.js';
import { list } from '../store/db.js';
import type { ServiceContext } from '../context.js';
import type { ConnectorClient } from './connector-client.js';
import { botOperator, distributionRule, availableOperatorsOfRule, installation } from './setup.js';

export interface ChannelAvailability { chat: boolean; call: boolean; video: boolean }

interface BotPoll { timer?: NodeJS.Timeout; inflight: boolean; lastOkAt: number; available: boolean; strategies: unknown; lastError?: string; polls: number }

/** One poller per bot operator: endpoint 4 once per period, each on its own timer, so a slow connector never delays another bot. */
export class AvailabilityPoller {
  private bots = new Map<number, BotPoll>();
  private stopped = false;
  constructor(private ces: ServiceContext, private client: ConnectorClient) {}

  start(operatorId: number): void {
    if (this.stopped || this.bots.has(operatorId)) return;
    const p: BotPoll = { inflight: false, lastOkAt: 0, available: false, strategies: null, polls: 0 };
    this.bots.set(operatorId, p);
    let next = performance.now();
    const tick = () => {
      if (this.stopped || this.bots.get(operatorId) !== p) return;
      // Fixed rate (no drift): the next poll is one period after the previous one was due, whatever the answer time.
      const period = this.ces.deviations.policy.bots.availabilityPollMs;
      next += period;
      p.timer = setTimeout(tick, Math.max(0, next - performance.now()));
      p.timer.unref?.();
      // A poll still waiting for its answer is not doubled: the bot is judged stale instead.
      if (!p.inflight) void this.poll(operatorId, p);
    };
    tick();
  }

  /** Stops polling one bot (deleted). */
  remove(operatorId: number): void {
    const p = this.bots.get(operatorId);
    if (p?.timer) clearTimeout(p.timer);
    this.bots.delete(operatorId);
  }

  stop(): void {
    this.stopped = true;
    for (const p of this.bots.values()) if (p.timer) clearTimeout(p.timer);
  }

  private async poll(operatorId: number, p: BotPoll) {
    const bot = botOperator(this.ces, operatorId);
    const inst = bot && installation(this.ces, bot.install_id);
    if (!bot || !inst) return;
    p.inflight = true;
    p.polls++;
    try {
      const res = await this.client.call(inst, {
        endpoint: 'availability', method: 'GET', path: '/availability-strategies', query: { idOperator: String(operatorId) },
        timeoutMs: LIMITS.configEndpointTimeoutMs, schema: 'connector/availability-strategies.json', operatorId,
      });
      if (res.ok) { p.lastOkAt = performance.now(); p.strategies = res.json; p.available = evaluateStrategies(this.ces, operatorId, res.json); p.lastError = undefined; }
      else { p.available = this.ces.deviations.policy.bots.availableAfterFailedPoll(p.available); p.lastError = res.reason; }
    } catch (e) {
      p.available = false; p.lastError = String(e);
    } finally {
      p.inflight = false;
    }
  }

  /** True when the last good answer is fresh and its strategies say available. */
  isAvailable(operatorId: number): boolean {
    const p = this.bots.get(operatorId);
    if (!p || !p.lastOkAt) return false;
    if (performance.now() - p.lastOkAt > this.ces.deviations.policy.bots.availabilityStaleMs) return false;
    return p.available;
  }

  describe(operatorId: number) {
    const p = this.bots.get(operatorId);
    return p ? { available: this.isAvailable(operatorId), strategies: p.strategies, lastError: p.lastError ?? null, polls: p.polls } : { available: false, strategies: null, lastError: 'not polled', polls: 0 };
  }
}

/** The four strategies of the spec; several items must all hold (decision), an empty list is unavailable. */
export function evaluateStrategies(ces: ServiceContext, operatorId: number, strategies: Array<{ strategy: string; distributionRulesToCheck?: string[]; availability?: boolean }>): boolean {
  const bot = botOperator(ces, operatorId);
  if (!bot || !Array.isArray(strategies) || strategies.length === 0) return false;
  const own = new Set(list<string>(bot.distribution_rule_ids));
  // Only the bot's own rules count (distributionRulesToCheck is a subset of the rules given in the bot write body).
  const ruleHasOperator = (id: string) => {
    const rule = own.has(id) ? distributionRule(ces, bot.client_id, id) : undefined;
    return rule ? availableOperatorsOfRule(ces, rule).length > 0 : false;
  };
  const policy = ces.deviations.policy.bots;
  return strategies.every((s) => {
    const rules = s.distributionRulesToCheck ?? [];
    switch (s.strategy) {
      case 'atLeastOne': return policy.atLeastOne(rules, ruleHasOperator);
      case 'all': return policy.all(rules, ruleHasOperator);
      case 'notAvailable': return policy.notAvailable();
      case 'customAvailability': return policy.customAvailability(s.availability);
      default: return false;
    }
  });
}

const liveOf = (ces: ServiceContext, id: number) => ces.db.prepare('SELECT * FROM operator_live WHERE operator_id = ?').get(id) as
  { connected: number; chat_available: number; call_available: number; video_available: number } | undefined;

/** Availability of routing rule `ruleId` of client `clientId`, or null when the client has no such rule. */
export function routingRuleAvailability(ces: ServiceContext, clientId: number, ruleId: string): ChannelAvailability | null {
  const rule = ces.db.prepare('SELECT * FROM routing_rules WHERE id = ? AND client_id = ?').get(ruleId, clientId) as { channels: string; operator_ids: string } | undefined;
  if (!rule) return null;
  const channels = new Set(list<string>(rule.channels));
  const out: ChannelAvailability = { chat: false, call: false, video: false };
  for (const id of list<number>(rule.operator_ids)) {
    const op = ces.db.prepare('SELECT type FROM operators WHERE id = ? AND client_id = ?').get(id, clientId) as { type: string } | undefined;
    if (!op) continue;
    if (op.type === 'bot') {
      // Bots chat only.
      if (channels.has('chat') && botOperator(ces, id)?.status === 'ready' && ces.bots.poller.isAvailable(id)) out.chat = true;
      continue;
    }
    const live = liveOf(ces, id);
    if (!live || !live.connected) continue;
    for (const ch of ['chat', 'call', 'video'] as const) if (channels.has(ch) && live[`${ch}_available`]) out[ch] = true;
  }
  return out;
}
