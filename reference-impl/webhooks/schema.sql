-- Webhook area: subscriptions (platform API, G17) and the durable outbox (one delivery per event and subscription, with its attempts).
CREATE TABLE IF NOT EXISTS webhook_subscriptions (
  id TEXT PRIMARY KEY, client_id INTEGER NOT NULL, url TEXT NOT NULL, secret TEXT NOT NULL, events TEXT NOT NULL,
  include_deprecated INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, deleted_at INTEGER);
-- state: pending (an attempt is due at due_at), delivered (a 20x answer), dead (every attempt failed: the dead letter).
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id INTEGER PRIMARY KEY, subscription_id TEXT NOT NULL, client_id INTEGER NOT NULL, event_id TEXT NOT NULL, event_type TEXT NOT NULL,
  correlation_id TEXT NOT NULL UNIQUE, body TEXT NOT NULL, state TEXT NOT NULL CHECK (state IN ('pending','delivered','dead')),
  next_attempt INTEGER NOT NULL, due_at INTEGER, created_at INTEGER NOT NULL, finished_at INTEGER);
-- One row per attempt, written before the request leaves, so an attempt cut short by a crash is known after restart.
CREATE TABLE IF NOT EXISTS webhook_attempts (
  id INTEGER PRIMARY KEY, delivery INTEGER NOT NULL REFERENCES webhook_deliveries(id), attempt INTEGER NOT NULL, delivery_id TEXT NOT NULL,
  correlation_id TEXT NOT NULL, due_at INTEGER NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER, status INTEGER, error TEXT,
  UNIQUE (delivery, attempt));
-- Attempts cut short by a crash of the service (G29): not one of G4's attempts; the delivery was repeated with the same attempt number.
CREATE TABLE IF NOT EXISTS webhook_interruptions (
  id INTEGER PRIMARY KEY, delivery INTEGER NOT NULL REFERENCES webhook_deliveries(id), attempt INTEGER NOT NULL, delivery_id TEXT NOT NULL,
  correlation_id TEXT NOT NULL, started_at INTEGER NOT NULL, noted_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS webhook_deliveries_state ON webhook_deliveries(state, due_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_sub ON webhook_deliveries(subscription_id, id);
