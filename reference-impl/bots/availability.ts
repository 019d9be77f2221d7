// Availability of routing rules per channel, from the bots' polled availability strategies and the operators' live availability.
import { LIMITS } from '../../lib/limits.js';
import { list } from '../store/db.js';
import type { Core } from '../core.js';
import type { ConnectorClient, Installation } from './connector-client.js';
import { botOperator, distributionRule, availableOperatorsOfRule, installation, type BotOperatorRow } from './setup.js';
import { DueQueue } from './due-queue.js';

export interface ChannelAvailability { chat: boolean; call: boolean; video: boolean }

interface BotPoll {
  next: number; inflight: boolean; lastOkAt: number; strategies: unknown; lastError?: string; polls: number;
  /** Failed polls since the last good answer. */
  failures: number;
  /** Bot row and installation, read once per entry (no database in the steady state); start() again refreshes them. */
  target?: { bot: BotOperatorRow; inst: Installation };
}

/**
 * Endpoint 4 once per period for every bot operator, at a fixed rate per bot (no drift): one scheduler keeps the due polls in a
 * heap and one timer wakes at the earliest, so thousands of bots cost one timer; a slow connector never delays another bot's poll.
 * The strategies are kept as answered and judged when availability is asked (routing, GraphQL, console), against the live state then.
 */
export class AvailabilityPoller {
  private bots = new Map<number, BotPoll>();
  private due = new DueQueue<{ operatorId: number; p: BotPoll }>();
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;
  private stopped = false;
  constructor(private ces: Core, private client: ConnectorClient) {}

  /** Starts polling a bot (ready); for a bot already polled, reads its row and installation again at its next poll. */
  start(operatorId: number): void {
    if (this.stopped) return;
    const known = this.bots.get(operatorId);
    if (known) { known.target = undefined; return; }
    const p: BotPoll = { next: performance.now(), inflight: false, lastOkAt: 0, strategies: null, polls: 0, failures: 0 };
    this.bots.set(operatorId, p);
    this.due.push(p.next, { operatorId, p });
    this.wake();
  }

  /** Stops polling one bot (deleted); its queued entry is dropped when it comes due. */
  remove(operatorId: number): void {
    this.bots.delete(operatorId);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.due.clear();
  }

  /** Arms the one timer for the earliest due poll (unless it is already armed for that moment or earlier). */
  private wake(): void {
    const at = this.due.peekAt();
    if (at === undefined || this.stopped || (this.timer && this.timerAt <= at)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.tick(), Math.max(0, at - performance.now()));
    this.timer.unref?.();
  }

  private tick(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    for (let at = this.due.peekAt(); at !== undefined && at <= now; at = this.due.peekAt()) {
      const { operatorId, p } = this.due.pop()!.item;
      if (this.stopped || this.bots.get(operatorId) !== p) continue;
      // Fixed rate: the next poll is one period after this one was due, whatever the answer time.
      p.next += this.ces.policy.bots.availabilityPollMs;
      this.due.push(p.next, { operatorId, p });
      // A poll still waiting for its answer is not doubled: the bot is judged stale instead.
      if (!p.inflight) void this.poll(operatorId, p);
    }
    this.wake();
  }

  private async poll(operatorId: number, p: BotPoll) {
    if (!p.target) {
      const bot = botOperator(this.ces, operatorId);
      const inst = bot && installation(this.ces, bot.install_id);
      if (!bot || !inst) return;
      p.target = { bot, inst };
    }
    p.inflight = true;
    p.polls++;
    try {
      const res = await this.client.call(p.target.inst, {
        endpoint: 'availability', method: 'GET', path: '/availability-strategies', query: { idOperator: String(operatorId) },
        timeoutMs: LIMITS.configEndpointTimeoutMs, schema: 'connector/availability-strategies.json', operatorId,
      });
      if (res.ok) { p.lastOkAt = performance.now(); p.strategies = res.json; p.failures = 0; p.lastError = undefined; }
      else { p.failures++; p.lastError = res.reason; }
    } catch (e) {
      p.failures++; p.lastError = String(e);
    } finally {
      p.inflight = false;
    }
  }

  /**
   * True when the last good answer is fresh, no more polls failed since than the policy tolerates (none: a failed poll makes the bot
   * unavailable until a good answer), and its strategies say available (judged now, against the current live state).
   */
  isAvailable(operatorId: number): boolean {
    const p = this.bots.get(operatorId);
    const policy = this.ces.policy.bots;
    if (!p || !p.lastOkAt || p.failures > policy.failedPollsTolerated) return false;
    if (performance.now() - p.lastOkAt > policy.availabilityStaleMs) return false;
    return evaluateStrategies(this.ces, operatorId, p.strategies as Parameters<typeof evaluateStrategies>[2]);
  }

  describe(operatorId: number) {
    const p = this.bots.get(operatorId);
    return p ? { available: this.isAvailable(operatorId), strategies: p.strategies, lastError: p.lastError ?? null, polls: p.polls } : { available: false, strategies: null, lastError: 'not polled', polls: 0 };
  }
}

/** The four strategies of the spec; several items must all hold (decision), an empty list is unavailable. */
export function evaluateStrategies(ces: Core, operatorId: number, strategies: Array<{ strategy: string; distributionRulesToCheck?: string[]; availability?: boolean }>): boolean {
  const bot = botOperator(ces, operatorId);
  if (!bot || !Array.isArray(strategies) || strategies.length === 0) return false;
  const own = new Set(list<string>(bot.distribution_rule_ids));
  // Only the bot's own rules count (distributionRulesToCheck is a subset of the rules given in the bot write body).
  const ruleHasOperator = (id: string) => {
    const rule = own.has(id) ? distributionRule(ces, bot.client_id, id) : undefined;
    return rule ? availableOperatorsOfRule(ces, rule).length > 0 : false;
  };
  return strategies.every((s) => {
    const rules = s.distributionRulesToCheck ?? [];
    switch (s.strategy) {
      case 'atLeastOne': return rules.some(ruleHasOperator);
      case 'all': return rules.length > 0 && rules.every(ruleHasOperator);
      case 'notAvailable': return false;
      // The connector decides.
      case 'customAvailability': return s.availability === true;
      default: return false;
    }
  });
}

const liveOf = (ces: Core, id: number) => ces.db.prepare('SELECT * FROM operator_live WHERE operator_id = ?').get(id) as
  { connected: number; chat_available: number; call_available: number; video_available: number } | undefined;

/** Availability of routing rule `ruleId` of client `clientId`, or null when the client has no such rule. */
export function routingRuleAvailability(ces: Core, poller: AvailabilityPoller, clientId: number, ruleId: string): ChannelAvailability | null {
  const rule = ces.db.prepare('SELECT * FROM routing_rules WHERE id = ? AND client_id = ?').get(ruleId, clientId) as { channels: string; operator_ids: string } | undefined;
  if (!rule) return null;
  const channels = new Set(list<string>(rule.channels));
  const out: ChannelAvailability = { chat: false, call: false, video: false };
  for (const id of list<number>(rule.operator_ids)) {
    const op = ces.db.prepare('SELECT type FROM operators WHERE id = ? AND client_id = ?').get(id, clientId) as { type: string } | undefined;
    if (!op) continue;
    if (op.type === 'bot') {
      // Bots chat only.
      if (channels.has('chat') && botOperator(ces, id)?.status === 'ready' && poller.isAvailable(id)) out.chat = true;
      continue;
    }
    const live = liveOf(ces, id);
    if (!live || !live.connected) continue;
    for (const ch of ['chat', 'call', 'video'] as const) if (channels.has(ch) && live[`${ch}_available`]) out[ch] = true;
  }
  return out;
}
