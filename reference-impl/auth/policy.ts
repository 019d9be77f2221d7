// Named values of the token route and the login throttle (G5-G7) and its two flags, which deviations may set (fixtures/deviations/auth.json).
import { LIMITS } from '../../lib/limits.js';

export interface OAuthAnswer { status: number; error: string; description: string }

export const AUTH_POLICY = {
  /** The one media type the token route accepts (spec: application/x-www-form-urlencoded). */
  tokenContentType: 'application/x-www-form-urlencoded',
  /** A token needs a password (RFC 6749 §4.3.2) and the right one. */
  passwordRequired: true as boolean,
  passwordChecked: true as boolean,
  /** G6: the answer to wrong credentials. */
  badCredentials: { status: 400, error: 'invalid_grant', description: 'invalid username or password' } as OAuthAnswer,
  tokenLifetimeMs: LIMITS.tokenLifetimeMs,
  announcedExpiresInS: LIMITS.tokenLifetimeMs / 1000,
  authenticatedBody: { authenticated: true } as Readonly<Record<string, unknown>>,
  invalidTokenBody: { error: 'invalid_token', error_description: 'access token not valid' } as Readonly<Record<string, unknown>>,
  loginsPerUserPerMinute: LIMITS.loginsPerUserPerMinute,
  loginsPerIpPerMinute: LIMITS.loginsPerIpPerMinute,
  loginWindowMs: LIMITS.loginWindowMs,
  /** A login the throttle refuses restarts the user's wait (never: the window slides over answered logins only, AUTH-THROTTLE-06). */
  refusalsExtendWait: false as boolean,
  /** G7: the error of a throttled login. */
  throttleError: 'too_many_requests',
};
