// Login throttle (spec Limits, G7): 10 logins per minute per user and 100 per IP, sliding 60 s window of the service clock; failed logins count.
import type { ServiceContext } from '../context.js';
import { LIMITS } from '../../lib/limits.js';

export interface ThrottleVerdict { scope: 'user' | 'ip'; retryAfterS: number }

/** Whether one more login attempt by `username` from `ip` must be refused now, and for how long. Refused attempts are not recorded. */
export function throttled(ces: ServiceContext, username: string, ip: string): ThrottleVerdict | null {
  if (ces.deviations.has('auth-throttle-off')) return null;
  const now = ces.clock.now();
  // Deviation: a 120 s window (AUTH-THROTTLE-06).
  const windowMs = LIMITS.loginWindowMs * (ces.deviations.has('auth-throttle-window-120s') ? 2 : 1);
  const extra = ces.deviations.has('auth-throttle-off-by-one') ? 1 : 0;
  // Deviation: failed logins are not counted (AUTH-THROTTLE-05).
  const onlyOk = ces.deviations.has('auth-throttle-failed-not-counted') ? ' AND succeeded = 1' : '';
  const since = now - windowMs;
  const checks: Array<[ThrottleVerdict['scope'], string, string, number]> = [
    ['user', 'username', username.toLowerCase(), LIMITS.loginsPerUserPerMinute + extra],
    ['ip', 'ip', ip, LIMITS.loginsPerIpPerMinute + extra],
  ];
  for (const [scope, col, value, limit] of checks) {
    const rows = ces.db.prepare(`SELECT at FROM auth_login_attempts WHERE ${col} = ? AND at > ?${onlyOk} ORDER BY at DESC LIMIT ?`)
      .all(value, since, limit) as Array<{ at: number }>;
    if (rows.length >= limit) {
      // The window frees a slot when the limit-th most recent attempt leaves it.
      const freeAt = rows[limit - 1]!.at + windowMs;
      const retryAfterS = ces.deviations.has('auth-throttle-no-retry-after') ? 0 : Math.max(1, Math.ceil((freeAt - now) / 1000));
      return { scope, retryAfterS };
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
