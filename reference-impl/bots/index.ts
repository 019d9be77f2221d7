// The bot services of one stack: connector calls and their exchange log, availability polling, the conversation runtime, and the bot creation flow run at start.
import { LIMITS } from '../../lib/limits.js';
import type { Core } from '../core.js';
import { ConnectorClient } from './connector-client.js';
import { ExchangeLog } from './exchanges.js';
import { AvailabilityPoller } from './availability.js';
import { ConversationRuntime } from './runtime.js';
import { createBotOnConnector, seedBots } from './setup.js';

export interface BotServices {
  connector: ConnectorClient;
  exchanges: ExchangeLog;
  poller: AvailabilityPoller;
  runtime: ConversationRuntime;
  /** Starts polling a bot whose creation flow succeeded. */
  ready(operatorId: number): void;
}

/** Creates the bot services of `ces` (nothing runs yet). */
export function createBots(ces: Core): BotServices {
  const exchanges = new ExchangeLog(ces);
  const connector = new ConnectorClient(ces, exchanges);
  const poller = new AvailabilityPoller(ces, connector);
  const runtime = new ConversationRuntime(ces, connector, poller);
  return { connector, exchanges, poller, runtime, ready: (operatorId) => poller.start(operatorId) };
}

/** Seeds the bots, re-arms stored timers, and runs the bot creation flow in the background (retried until it succeeds). */
export function startBots(ces: Core, bots: BotServices): void {
  const { connector, poller, runtime, ready } = bots;
  seedBots(ces);
  runtime.rearm();

  let stopped = false;
  const retries = new Set<NodeJS.Timeout>();
  // A connector that is down never blocks start-up.
  const pending = (ces.db.prepare(`SELECT operator_id, status FROM bot_operators ORDER BY operator_id`).all() as Array<{ operator_id: number; status: string }>);
  const setUp = async (ids: number[]) => {
    for (const id of ids) {
      if (stopped) return;
      const res = await createBotOnConnector(ces, connector, id).catch((e) => ({ ok: false, error: String(e) }));
      if (stopped) return;
      if (res.ok) ready(id);
      else {
        const t = setTimeout(() => { retries.delete(t); void setUp([id]); }, LIMITS.botSetupRetryMs);
        t.unref();
        retries.add(t);
      }
    }
  };
  for (const b of pending) if (b.status === 'ready') ready(b.operator_id);
  // Sequential, so each bot takes the next free scenario.
  void setUp(pending.filter((b) => b.status !== 'ready').map((b) => b.operator_id));

  ces.onClose.push(async () => {
    stopped = true;
    for (const t of retries) clearTimeout(t);
    poller.stop();
    runtime.stop();
    await connector.close();
  });
}
