// Policy of the token route and the login throttle: the spec's values (G5-G7) by default; deviations override fields through fixtures/deviations/auth.json.
import { LIMITS } from '../../lib/limits.js';
import type { PolicyModule } from '../policies.js';

export interface OAuthAnswer { status: number; error: string; description: string }

const defaults = {
  /** The one media type the token route accepts (G5). */
  tokenContentType: 'application/x-www-form-urlencoded',
  acceptsGrantType: (grantType: string): boolean => grantType === 'password',
  /** A login with a username and no password opens the account (never, by default). */
  opensWithoutPassword: false,
  /** The answer to a missing username or password (RFC 6749 §5.2: invalid_request naming it). */
  missingField: (name: string): OAuthAnswer => ({ status: 400, error: 'invalid_request', description: `${name} is required` }),
  badCredentials: { status: 400, error: 'invalid_grant', description: 'invalid username or password' } as OAuthAnswer,
  /** Whether a password check passes, given whether the password matched. */
  passwordAccepted: (matched: boolean): boolean => matched,
  tokenLifetimeMs: LIMITS.tokenLifetimeMs,
  announcedExpiresInS: LIMITS.tokenLifetimeMs / 1000,
  authenticatedBody: { authenticated: true } as Record<string, unknown>,
  invalidTokenBody: { error: 'invalid_token', error_description: 'access token not valid' } as Record<string, unknown>,
  loginsPerUserPerMinute: LIMITS.loginsPerUserPerMinute,
  loginsPerIpPerMinute: LIMITS.loginsPerIpPerMinute,
  loginWindowMs: LIMITS.loginWindowMs,
  /** Which recorded attempts count toward the limits (G7: failed ones too). */
  countsAttempt: (_a: { succeeded: number }): boolean => true,
  throttleError: 'too_many_requests',
  retryAfterS: (freeAtMs: number, nowMs: number): number => Math.max(1, Math.ceil((freeAtMs - nowMs) / 1000)),
};

export const AUTH_POLICY: PolicyModule<typeof defaults> = {
  defaults,
  variants: {
    acceptsGrantType: { any: () => true },
    missingField: { 'as-bad-credentials': () => ({ status: 400, error: 'invalid_grant', description: 'invalid credentials' }) },
    passwordAccepted: { always: () => true },
    countsAttempt: { 'successful-only': (a) => a.succeeded === 1 },
    retryAfterS: { none: () => 0 },
  },
};
