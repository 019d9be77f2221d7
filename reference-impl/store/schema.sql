-- Core domain tables of the reference implementation. Dates are epoch milliseconds of the service clock; lists are JSON arrays.
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS clients (
  id INTEGER PRIMARY KEY, lang TEXT NOT NULL, premium_enabled INTEGER NOT NULL, api_key TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS websites (
  id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL REFERENCES clients(id), url TEXT NOT NULL, label TEXT NOT NULL,
  currency TEXT NOT NULL, language_admin TEXT NOT NULL, timezone TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (
  id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL REFERENCES clients(id), email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL, operator_id INTEGER);
CREATE TABLE IF NOT EXISTS groups (
  id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL, name TEXT NOT NULL, created_at INTEGER NOT NULL, parent_id INTEGER);
CREATE TABLE IF NOT EXISTS skills (
  id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL, name TEXT NOT NULL, "order" INTEGER NOT NULL, created_at INTEGER NOT NULL, parent_id INTEGER);
-- AUTOINCREMENT: a deleted operator's id is never given to a new one (ids are used in URLs, events and logs).
CREATE TABLE IF NOT EXISTS operators (
  id INTEGER PRIMARY KEY AUTOINCREMENT, client_id INTEGER NOT NULL, type TEXT NOT NULL DEFAULT 'human' CHECK (type IN ('human','bot')),
  name TEXT NOT NULL, first_name TEXT NOT NULL, pseudo TEXT NOT NULL, email TEXT NOT NULL, external_id TEXT,
  roles TEXT NOT NULL, chat_enabled INTEGER NOT NULL, call_enabled INTEGER NOT NULL, video_enabled INTEGER NOT NULL,
  chat_max_number INTEGER NOT NULL, chat_and_call INTEGER NOT NULL, chat_priority INTEGER NOT NULL, call_priority INTEGER NOT NULL,
  video_priority INTEGER NOT NULL, language_list TEXT NOT NULL, language_admin TEXT NOT NULL, group_id INTEGER,
  website_list TEXT NOT NULL, skill_list TEXT NOT NULL, sso_key TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
-- Live availability; a row exists once the operator has logged in at least once. Slots in use are not stored: they are the open
-- conversations the operator holds (G32, rest/people/live.ts).
CREATE TABLE IF NOT EXISTS operator_live (
  operator_id INTEGER PRIMARY KEY, connected INTEGER NOT NULL,
  chat_available INTEGER NOT NULL, call_available INTEGER NOT NULL, video_available INTEGER NOT NULL,
  call_slot_max_number INTEGER NOT NULL DEFAULT 1, video_slot_max_number INTEGER NOT NULL DEFAULT 1);
-- Periods of presence, used by the presence/occupation/production statistic indicators.
CREATE TABLE IF NOT EXISTS operator_presence (
  id INTEGER PRIMARY KEY, operator_id INTEGER NOT NULL, client_id INTEGER NOT NULL, state TEXT NOT NULL CHECK (state IN ('available','partial','full','unavailable')),
  start_at INTEGER NOT NULL, end_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS operator_profiles (
  user_id INTEGER PRIMARY KEY, status TEXT NOT NULL, description TEXT NOT NULL, social_a TEXT NOT NULL, social_b TEXT NOT NULL,
  city TEXT NOT NULL, country TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS visitors (
  id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL, unique_id TEXT NOT NULL, external_id TEXT, lastname TEXT, firstname TEXT,
  address TEXT, city TEXT, zip TEXT, country TEXT, phone TEXT, email TEXT, browser TEXT, website_id TEXT NOT NULL, created_at INTEGER NOT NULL);
-- Targeting rules: displays of a chat/call button, and whether a display led to a contact.
CREATE TABLE IF NOT EXISTS rules (id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL, website_id INTEGER NOT NULL, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rule_displays (
  id INTEGER PRIMARY KEY, rule_id INTEGER NOT NULL, client_id INTEGER NOT NULL, website_id INTEGER NOT NULL, channel TEXT NOT NULL,
  at INTEGER NOT NULL, triggered INTEGER NOT NULL, contacted INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS conversations (
  id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, client_id INTEGER NOT NULL, website_id INTEGER NOT NULL, channel TEXT NOT NULL,
  visitor_uid TEXT NOT NULL, visitor_external_id TEXT, operator_id INTEGER, operator_ids TEXT NOT NULL DEFAULT '[]', skill_id INTEGER, rule_id INTEGER,
  page_type TEXT NOT NULL, contact_type TEXT NOT NULL DEFAULT 'visitor', operator_answer INTEGER NOT NULL, operator_closed INTEGER NOT NULL,
  waitinglist INTEGER NOT NULL, waiting_ms INTEGER NOT NULL DEFAULT 0, waiting_aborted INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL, closed_at INTEGER, last_activity_at INTEGER NOT NULL, history TEXT NOT NULL, tag_list TEXT NOT NULL DEFAULT '[]');
CREATE TABLE IF NOT EXISTS tags (id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL, name TEXT NOT NULL, website_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS transactions (
  id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL, external_id TEXT NOT NULL, visitor_uid TEXT NOT NULL, visitor_email TEXT NOT NULL,
  amount REAL NOT NULL, created_at INTEGER NOT NULL, website_id INTEGER NOT NULL, operator_id INTEGER, conversation_id INTEGER);
CREATE TABLE IF NOT EXISTS satisfactions (
  id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL, note_welcome REAL NOT NULL, note_resolution REAL NOT NULL, node_delay REAL NOT NULL,
  comment TEXT NOT NULL, created_at INTEGER NOT NULL, website_id INTEGER NOT NULL, operator_id INTEGER NOT NULL, conversation_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS callmeetings (
  id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL, phone_number TEXT NOT NULL, visitor_uid TEXT NOT NULL, status TEXT NOT NULL,
  start_at INTEGER NOT NULL, website_id INTEGER NOT NULL, targeting_rule_id TEXT NOT NULL, skill_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS conv_client_created ON conversations(client_id, created_at);
-- The open conversations each operator holds, per channel: the live view's slot counts (G32) are read from this index alone
-- (closed_at is among its columns only so that SQLite sees it covers the read). It replaces conv_open_operator, of which it is a
-- superset; a database file made before it gets it at the next start.
DROP INDEX IF EXISTS conv_open_operator;
CREATE INDEX IF NOT EXISTS conv_open_slots ON conversations(client_id, operator_id, channel, closed_at) WHERE closed_at IS NULL;
CREATE INDEX IF NOT EXISTS op_client ON operators(client_id);
