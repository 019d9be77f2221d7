-- Bot area tables: connector apps and installs (G17), distribution and routing rules, bot operators, bot conversation state, transcripts, failures, persisted timers, connector exchanges.
CREATE TABLE IF NOT EXISTS connector_apps (
  id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL, name TEXT NOT NULL, plugin_kind TEXT NOT NULL DEFAULT 'bot',
  base_url TEXT NOT NULL, secret TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS connector_installs (
  id INTEGER PRIMARY KEY, app_id INTEGER NOT NULL REFERENCES connector_apps(id), client_id INTEGER NOT NULL, website_id INTEGER NOT NULL,
  id_connector_version TEXT NOT NULL, created_at INTEGER NOT NULL, UNIQUE (app_id, website_id));
-- Distribution rules: asynchronous when queue_slots > 0 (a transfer reply must name such a rule).
CREATE TABLE IF NOT EXISTS distribution_rules (
  id TEXT PRIMARY KEY, client_id INTEGER NOT NULL, label TEXT NOT NULL, queue_slots INTEGER NOT NULL, operator_ids TEXT NOT NULL, created_at INTEGER NOT NULL);
-- Routing rules: conversations of a website on the listed channels go to the target operators (bots first).
CREATE TABLE IF NOT EXISTS routing_rules (
  id TEXT PRIMARY KEY, client_id INTEGER NOT NULL, website_id INTEGER NOT NULL, label TEXT NOT NULL, channels TEXT NOT NULL,
  operator_ids TEXT NOT NULL, created_at INTEGER NOT NULL);
-- A bot operator (operators.type = 'bot') bound to one installation and one scenario (external idBot).
CREATE TABLE IF NOT EXISTS bot_operators (
  operator_id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL, install_id INTEGER NOT NULL, id_bot TEXT,
  distribution_rule_ids TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'pending', last_error TEXT, bot_json TEXT,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
-- Per conversation: who handles it (bot or human), the connector's id of it, collected variables, close reason.
CREATE TABLE IF NOT EXISTS conversation_state (
  conversation_id INTEGER PRIMARY KEY, bot_operator_id INTEGER, install_id INTEGER, connector_conversation_id TEXT,
  phase TEXT NOT NULL, variables TEXT NOT NULL DEFAULT '[]', close_reason TEXT, pending_transfer TEXT);
CREATE TABLE IF NOT EXISTS conversation_transcript (
  id INTEGER PRIMARY KEY, conversation_id INTEGER NOT NULL, role TEXT NOT NULL, operator_id INTEGER, message_id TEXT NOT NULL,
  payload TEXT NOT NULL, quick_replies TEXT, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS conversation_failures (
  id INTEGER PRIMARY KEY, conversation_id INTEGER NOT NULL, endpoint TEXT NOT NULL, kind TEXT NOT NULL, reason TEXT NOT NULL, at INTEGER NOT NULL);
-- Pending timers (scheduled replies after await, transfer timeouts, inactivity closes), re-armed at start.
CREATE TABLE IF NOT EXISTS conversation_timers (
  id INTEGER PRIMARY KEY, conversation_id INTEGER NOT NULL, kind TEXT NOT NULL, due INTEGER NOT NULL, data TEXT NOT NULL DEFAULT '{}');
CREATE TABLE IF NOT EXISTS connector_exchanges (
  id INTEGER PRIMARY KEY, conversation_id INTEGER, operator_id INTEGER, endpoint TEXT NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL,
  request_body TEXT, status INTEGER, response_body TEXT, ms INTEGER NOT NULL, failure TEXT, at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS transcript_conv ON conversation_transcript(conversation_id);
CREATE INDEX IF NOT EXISTS failures_conv ON conversation_failures(conversation_id);
CREATE INDEX IF NOT EXISTS timers_conv ON conversation_timers(conversation_id);
CREATE INDEX IF NOT EXISTS exchanges_conv ON connector_exchanges(conversation_id);
