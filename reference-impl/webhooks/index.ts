// Area "webhooks": subscriptions and delivery log (platform API, G17), the durable dispatcher fed by domain events, the visitor-update sim action.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { WebhookDispatcher } from './dispatcher.js';
import { registerRoutes } from './routes.js';
import { CURRENT_KINDS } from './payloads.js';

const area: FastifyPluginAsync = async (app) => {
  const { db, clock, settings, events } = app.ces;
  const dispatcher = new WebhookDispatcher(app.ces);
  registerRoutes(app);

  // `ces serve --webhook-url URL --webhook-secret S`: URL receives every current event kind of every client.
  if (settings.webhookUrl && settings.webhookSecret) {
    const clients = db.prepare('SELECT id FROM clients ORDER BY id').all() as Array<{ id: number }>;
    for (const c of clients) {
      const existing = db.prepare('SELECT id FROM webhook_subscriptions WHERE client_id = ? AND url = ? AND deleted_at IS NULL').get(c.id, settings.webhookUrl) as { id: string } | undefined;
      if (existing) db.prepare('UPDATE webhook_subscriptions SET secret = ?, events = ? WHERE id = ?').run(settings.webhookSecret, JSON.stringify(CURRENT_KINDS), existing.id);
      else db.prepare('INSERT INTO webhook_subscriptions (id, client_id, url, secret, events, include_deprecated, created_at) VALUES (?, ?, ?, ?, ?, 0, ?)')
        .run(randomUUID(), c.id, settings.webhookUrl, settings.webhookSecret, JSON.stringify(CURRENT_KINDS), clock.now());
    }
  }

  events.on((e) => dispatcher.enqueue(e));
  app.ces.onClose.push(() => dispatcher.close());
  // Re-arm the outbox, so a restarted service delivers every pending attempt at its due time (timers fire after start-up completes).
  dispatcher.resume();
};
export default area;
