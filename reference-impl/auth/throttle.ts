// Login throttle (spec Limits, G7): 10 logins per minute per user and 100 per IP, sliding 60 s window of the service clock; failed logins count.
import type { ServiceContext } from '../context.js';
import { LIMITS } from '../../lib/limits.js';
import { rows } from '../store/read.js';

export interface ThrottleVerdict { scope: 'user' | 'ip'; retryAfterS: number }

/** Whether one more login attempt by `username` from `ip` must be refused now, and for how long. Refused attempts are not recorded. */
export function throttled(ces: ServiceContext, username: string, ip: string): ThrottleVerdict | null {
  const policy = ces.deviations.policy.auth;
  const now = ces.clock.now();
  const windowMs = policy.loginWindowMs;
  const since = now - windowMs;
  const checks: Array<[ThrottleVerdict['scope'], string, string, number]> = [
    ['user', 'username', username.toLowerCase(), policy.loginsPerUserPerMinute],
    ['ip', 'ip', ip, policy.loginsPerIpPerMinute],
  ];
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
  if (scope.username) return ces.db.prepare('DELETE FROM auth_login_attempts WHERE username = ?').run(scope.username.toLowerCase()).changes;
  return ces.db.prepare('DELETE FROM auth_login_attempts').run().changes;
}
