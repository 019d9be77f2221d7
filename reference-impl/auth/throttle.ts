// Login throttle (spec Limits, G7): 10 logins per minute per user and 100 per IP, sliding 60 s window of the service clock; failed logins count.
import type { ServiceContext } from '../context.js';
import { LIMITS } from '../../lib/limits.js';
import { rows } from '../store/read.js';

export interface ThrottleVerdict { scope: 'user' | 'ip'; retryAfterS: number }

/**
 * Whether one more login attempt by `username` from `ip` must be refused now, and for how long. Refused attempts are not recorded
 * as attempts; with `refusalsExtendWait` (auth.policy) the user's last refusal holds the wait on its own.
 */
export function throttled(ces: ServiceContext, username: string, ip: string, refusalsExtendWait = false): ThrottleVerdict | null {
  const policy = ces.policy.auth;
  const now = ces.clock.now();
  const windowMs = policy.loginWindowMs;
  const since = now - windowMs;
  const checks: Array<[ThrottleVerdict['scope'], string, string, number]> = [
    ['user', 'username', username.toLowerCase(), policy.loginsPerUserPerMinute],
    ['ip', 'ip', ip, policy.loginsPerIpPerMinute],
  ];
  // Where a refusal restarts the wait (an alternative to G7's window over answered attempts), the user's last one holds it.
  if (refusalsExtendWait) {
    const [last] = rows(ces, 'login refusals', { table: 'auth_login_refusals', columns: 'at', where: { username: username.toLowerCase(), 'at >': since }, order: 'at DESC', limit: 1 });
    if (last) return { scope: 'user', retryAfterS: Math.max(1, Math.ceil((last.at + windowMs - now) / 1000)) };
  }
  for (const [scope, col, value, limit] of checks) {
    // Every attempt counts, failed ones too (G7).
    const attempts = rows(ces, 'login attempts', { table: 'auth_login_attempts', columns: 'at', where: { [col]: value, 'at >': since }, order: 'at DESC', limit });
    if (attempts.length >= limit) {
      // The window frees a slot when the limit-th most recent attempt leaves it.
      const freeAt = attempts[limit - 1]!.at + windowMs;
      return { scope, retryAfterS: Math.max(1, Math.ceil((freeAt - now) / 1000)) };
    }
  }
  return null;
}

/** Records a login the throttle refused (read only where the policy makes a refusal restart the wait). */
export function recordRefusal(ces: ServiceContext, username: string): void {
  const now = ces.clock.now();
  ces.db.prepare('INSERT INTO auth_login_refusals (username, at) VALUES (?, ?)').run(username.toLowerCase(), now);
  ces.db.prepare('DELETE FROM auth_login_refusals WHERE at < ?').run(now - 4 * LIMITS.loginWindowMs);
}

/** Records one login attempt (successful or not) for the throttle. */
export function recordAttempt(ces: ServiceContext, username: string, ip: string, succeeded: boolean): void {
  const now = ces.clock.now();
  ces.db.prepare('INSERT INTO auth_login_attempts (username, ip, at, succeeded) VALUES (?, ?, ?, ?)').run(username.toLowerCase(), ip, now, succeeded ? 1 : 0);
  // Attempts older than any window (deviant ones included) are never read again.
  ces.db.prepare('DELETE FROM auth_login_attempts WHERE at < ?').run(now - 4 * LIMITS.loginWindowMs);
}

/** Forgets attempts (simulation API): of one IP, one user, or all. */
export function resetThrottle(ces: ServiceContext, scope: { ip?: string; username?: string }): number {
  if (scope.ip) return ces.db.prepare('DELETE FROM auth_login_attempts WHERE ip = ?').run(scope.ip).changes;
  if (scope.username) {
    ces.db.prepare('DELETE FROM auth_login_refusals WHERE username = ?').run(scope.username.toLowerCase());
    return ces.db.prepare('DELETE FROM auth_login_attempts WHERE username = ?').run(scope.username.toLowerCase()).changes;
  }
  ces.db.prepare('DELETE FROM auth_login_refusals').run();
  return ces.db.prepare('DELETE FROM auth_login_attempts').run().changes;
}
