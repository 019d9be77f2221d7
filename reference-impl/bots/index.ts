// Area "bots": connector apps and bots (G17 platform API), the bot creation flow, availability polling, the conversation runtime and its simulation routes.
import type { FastifyPluginAsync } from 'fastify';
import { LIMITS } from '../../lib/limits.js';
import { ConnectorClient } from './connector-client.js';
import { AvailabilityPoller, setPoller } from './availability.js';
import { ConversationRuntime, runtimes } from './runtime.js';
import { createBotOnConnector, seedBots } from './setup.js';
import { registerPlatform } from './platform.js';
import { registerSimConversations } from '../sim/conversations.js';

const area: FastifyPluginAsync = async (app) => {
  const ces = app.ces;
  const client = new ConnectorClient(ces);
  const poller = new AvailabilityPoller(ces, client);
  setPoller(poller);
  const runtime = new ConversationRuntime(ces, client, poller);
  runtimes.set(ces, runtime);
  seedBots(ces);
  runtime.rearm();

  let stopped = false;
  const retries = new Set<NodeJS.Timeout>();
  const ready = (operatorId: number) => poller.start(operatorId);
  registerPlatform(app, client, poller, ready);
  registerSimConversations(app, runtime, poller);

  // The bot creation flow runs in the background (a connector that is down never blocks start-up) and is retried until it succeeds.
  const pending = (ces.db.prepare(`SELECT operator_id, status FROM bot_operators ORDER BY operator_id`).all() as Array<{ operator_id: number; status: string }>);
  const setUp = async (ids: number[]) => {
    for (const id of ids) {
      if (stopped) return;
      const res = await createBotOnConnector(ces, client, id).catch((e) => ({ ok: false, error: String(e) }));
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
    setPoller(undefined);
    await client.close();
  });
};
export default area;
