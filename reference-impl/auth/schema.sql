-- Area "auth": bearer tokens (only their SHA-256 is stored) and login attempts for the throttle (G7). Times are service-clock epoch ms.
CREATE TABLE IF NOT EXISTS auth_tokens (
  token_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL, client_id INTEGER NOT NULL, issued_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS auth_tokens_expiry ON auth_tokens(expires_at);
CREATE TABLE IF NOT EXISTS auth_login_attempts (
  id INTEGER PRIMARY KEY, username TEXT NOT NULL, ip TEXT NOT NULL, at INTEGER NOT NULL, succeeded INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS auth_attempts_user ON auth_login_attempts(username, at);
CREATE INDEX IF NOT EXISTS auth_attempts_ip ON auth_login_attempts(ip, at);
-- Logins the throttle refused, read only where the policy makes a refusal restart the wait (auth.policy refusalsExtendWait: an alternative).
CREATE TABLE IF NOT EXISTS auth_login_refusals (id INTEGER PRIMARY KEY, username TEXT NOT NULL, at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS auth_refusals_user ON auth_login_refusals(username, at);
