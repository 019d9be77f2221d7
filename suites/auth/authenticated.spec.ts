// Checks of GET {base_url}/_authenticated and of the 24-hour token lifetime (reached through the service clock).
import { test, expect } from '../fixtures/sim.js';
import { clauses } from '../fixtures/evidence.js';
import { expectPayload, under } from '../verdicts.js';
import { LIMITS } from '../../lib/limits.js';
import { authenticatedCheck, loginForCheck, sessionToken, tokenFor, withStableClock } from './support.js';

/** How close to the 24 h boundary the "still valid" probe is made (clock time, ms). */
const BEFORE_EXPIRY_MS = 2_000;

test('a valid token is answered {"authenticated": true}', clauses('AUTH-CHECK-01'), async ({ target }) => {
  const token = await sessionToken(target);
  const res = await authenticatedCheck(target, token);
  expect(res.status, 'a valid token is accepted (a 2xx answer)').toBeGreaterThanOrEqual(200);
  expect(res.status, 'a valid token is accepted (a 2xx answer)').toBeLessThan(300);
  expectPayload('auth/authenticated.json', res.json, 'the answer for a valid token');
});

for (const [what, token] of [['a made-up token', 'not-a-token-0123456789abcdef'], ['an empty bearer', ''], ['a token with one character changed', null]] as const) {
  test(`${what} is answered {"error":"invalid_token","error_description":"access token not valid"}`, clauses('AUTH-CHECK-02', 'AUTH-CHECK-03'), async ({ target }) => {
    let bad = token as string | null;
    if (bad === null) {
      const good = await sessionToken(target);
      bad = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
    }
    const res = await authenticatedCheck(target, bad, `GET /_authenticated (${what})`);
    under('AUTH-CHECK-02', () => expectPayload('auth/invalid-token.json', res.json, 'the answer for an invalid token'));
    under('AUTH-CHECK-03', () => expect(res.status, 'RFC 6750: an invalid token is answered 401').toBe(401));
  });
}

test('a token is still valid 2 s before 24 h of clock time have passed', clauses('AUTH-LIFE-01').needs('sim', 'clock'), async ({ target, sim }) => {
  const res = await withStableClock(sim, async () => {
    const before = await sim.clock();
    const token = await tokenFor(target, await loginForCheck(target));
    // The token was issued at or after `before`, so it is valid at least until before + 24 h.
    const advance = Math.max(0, Math.round(before.nowMs + LIMITS.tokenLifetimeMs - BEFORE_EXPIRY_MS - (await sim.clock()).nowMs));
    await sim.advance(advance);
    return { result: await authenticatedCheck(target, token, 'GET /_authenticated (24 h - 2 s after issue)'), ownAdvanceMs: advance };
  });
  expect(res.status, `still valid ${BEFORE_EXPIRY_MS} ms of clock time before the 24 h lifetime ends (a 2xx answer)`).toBeGreaterThanOrEqual(200);
  expect(res.status).toBeLessThan(300);
  expectPayload('auth/authenticated.json', res.json, 'the answer 2 s before 24 h');
});

test('a token is refused once 24 h of clock time have passed', clauses('AUTH-LIFE-02', 'AUTH-CHECK-03').needs('sim', 'clock'), async ({ target, sim }) => {
  const token = await tokenFor(target, await loginForCheck(target));
  const issued = (await sim.clock()).nowMs;
  const valid = await authenticatedCheck(target, token, 'GET /_authenticated (fresh token)');
  under('AUTH-LIFE-02', () => expectPayload('auth/authenticated.json', valid.json, 'the fresh token is valid'));
  // Issued at or before `issued`: 24 h after it, the token must be gone whatever else moved the clock.
  await sim.advance(issued + LIMITS.tokenLifetimeMs - (await sim.clock()).nowMs);
  const res = await authenticatedCheck(target, token, 'GET /_authenticated (24 h after issue)');
  under('AUTH-LIFE-02', () => expectPayload('auth/invalid-token.json', res.json, 'the answer 24 h after issue'));
  under('AUTH-CHECK-03', () => expect(res.status, 'RFC 6750: an expired token is answered 401').toBe(401));
});
