// The webhook service of one stack: the durable dispatcher fed by domain events, and the `--webhook-url` subscription made at start.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.js';
import { WebhookDispatcher } from './dispatcher.js';
import { CURRENT_KINDS } from './payloads.js';

/** Creates the dispatcher of `ces`, subscribes it to domain events and re-arms the outbox. */
export function startWebhooks(ces: ServiceContext): WebhookDispatcher {
  const { db, clock, settings, events } = ces;
  const dispatcher = new WebhookDispatcher(ces);

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
  ces.onClose.push(() => dispatcher.close());
  // Re-arm the outbox, so a restarted service delivers every pending attempt at its due time (timers fire after start-up completes).
  dispatcher.resume();
  return dispatcher;
}
