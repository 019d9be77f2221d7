// Checks of the login throttle: 10 per minute per user, 100 per minute per IP (spec Limits), 429 + Retry-After and the G7 body, sliding 60 s window.
import type { Dispatcher } from 'undici';
import { test, expect } from '../fixtures/sim.js';
import { expectSchema } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { LIMITS } from '../../lib/limits.js';
import type { HttpAnswer } from '../../lib/http.js';
import type { Target } from '../../lib/target.js';
import { ownAddress, requestToken, withStableClock, type Login, type SimDriver } from './support.js';

/** Margin before Retry-After ends at which the user must still be refused (covers the real time the check itself takes). */
const STILL_REFUSED_MARGIN_S = 2;

interface Burst { statuses: number[]; refused: HttpAnswer; login: Login; dispatcher: Dispatcher }

/** A fresh user (own loopback address when possible) makes `limit` logins, failed ones first when asked, then one more correct login. */
async function burstForUser(target: Target, sim: SimDriver, failed: number): Promise<Burst> {
  const login = await sim.newUser();
  const { dispatcher } = ownAddress(target);
  const statuses: number[] = [];
  for (let i = 0; i < LIMITS.loginsPerUserPerMinute; i++) {
    const res = await requestToken(target, i < failed ? { ...login, password: login.password + '-wrong' } : login, { dispatcher, quiet: true });
    statuses.push(res.status);
  }
  await test.info().attach(`${LIMITS.loginsPerUserPerMinute} logins of one user`, { body: JSON.stringify({ failedFirst: failed, statuses }), contentType: 'application/json' });
  const refused = await requestToken(target, login, { dispatcher, label: `POST /oauth2/token (login ${LIMITS.loginsPerUserPerMinute + 1} of the same user within the minute)` });
  return { statuses, refused, login, dispatcher };
}

const stableBurst = (target: Target, sim: SimDriver, failed: number) =>
  withStableClock(sim, async () => ({ result: await burstForUser(target, sim, failed), ownAdvanceMs: 0 }));

test('10 logins per user within a minute are answered, the 11th is refused', clauses('AUTH-THROTTLE-01').needs('sim'), async ({ target, sim }) => {
  const b = await stableBurst(target, sim, 0);
  expect(b.statuses, `the first ${LIMITS.loginsPerUserPerMinute} logins succeed`).toEqual(Array(LIMITS.loginsPerUserPerMinute).fill(200));
  expect(b.refused.status, `login ${LIMITS.loginsPerUserPerMinute + 1} within the minute is refused`).toBeGreaterThanOrEqual(400);
  expect(b.refused.json?.access_token, 'no token for the refused login').toBeUndefined();
});

test('a throttled login is answered 429 with Retry-After in whole seconds', clauses('AUTH-THROTTLE-03').needs('sim'), async ({ target, sim }) => {
  const b = await stableBurst(target, sim, 0);
  expect(b.refused.status, 'throttled logins are answered 429').toBe(429);
  expect(b.refused.headers['retry-after'] ?? '(no Retry-After header)', 'Retry-After is present and a whole number of seconds').toMatch(/^\d+$/);
  expect(Number(b.refused.headers['retry-after']), 'Retry-After is at least 1 s').toBeGreaterThanOrEqual(1);
});

test('a throttled login has the body {"error":"too_many_requests","error_description":...}', clauses('AUTH-THROTTLE-04').needs('sim'), async ({ target, sim }) => {
  const b = await stableBurst(target, sim, 0);
  expect(b.refused.status).toBe(429);
  expectSchema('auth/throttled.json', b.refused.json);
});

test('failed logins count: after 10 wrong passwords a correct login is refused', clauses('AUTH-THROTTLE-05').needs('sim'), async ({ target, sim }) => {
  const b = await stableBurst(target, sim, LIMITS.loginsPerUserPerMinute);
  // Wrong credentials are refused with a 4xx (400 invalid_grant by G6, 401 invalid_client by another service): never 429 yet.
  expect(b.statuses.map((s) => (s >= 400 && s < 500 && s !== 429 ? 'refused' : s)), 'the wrong passwords are answered as wrong credentials, not throttled').toEqual(Array(LIMITS.loginsPerUserPerMinute).fill('refused'));
  expect(b.refused.status, 'the correct login after them is throttled').toBe(429);
});

test('the window slides over 60 s: refused 2 s before Retry-After ends, accepted once it has passed', clauses('AUTH-THROTTLE-06').needs('sim', 'clock'), async ({ target, sim }) => {
  interface Seen { b: Burst; retryAfter: number; early?: HttpAnswer; late?: HttpAnswer }
  const seen = await withStableClock<Seen>(sim, async () => {
    const b = await burstForUser(target, sim, 0);
    const retryAfter = Number(b.refused.headers['retry-after']);
    if (b.refused.status !== 429 || !Number.isInteger(retryAfter) || retryAfter < 1 || retryAfter > LIMITS.loginWindowMs / 1000) {
      return { result: { b, retryAfter }, ownAdvanceMs: 0 };
    }
    const firstStep = Math.max(0, retryAfter - STILL_REFUSED_MARGIN_S) * 1000;
    await sim.advance(firstStep);
    const early = await requestToken(target, b.login, { dispatcher: b.dispatcher, label: `POST /oauth2/token (${STILL_REFUSED_MARGIN_S} s before Retry-After ends)` });
    await sim.advance(retryAfter * 1000 - firstStep);
    const late = await requestToken(target, b.login, { dispatcher: b.dispatcher, label: 'POST /oauth2/token (Retry-After has passed)' });
    return { result: { b, retryAfter, early, late }, ownAdvanceMs: retryAfter * 1000 };
  });
  expect(seen.b.refused.status, 'the 11th login is throttled').toBe(429);
  expect(seen.retryAfter, `Retry-After is within the ${LIMITS.loginWindowMs / 1000} s window`).toBeLessThanOrEqual(LIMITS.loginWindowMs / 1000);
  expect(seen.retryAfter).toBeGreaterThanOrEqual(1);
  expect(seen.early?.status, `still throttled ${STILL_REFUSED_MARGIN_S} s (clock time) before Retry-After ends (tolerance: the check's own real time, well under 1 s)`).toBe(429);
  expect(seen.late?.status, 'accepted again once Retry-After seconds of clock time have passed').toBe(200);
});

test('100 logins per IP within a minute are answered, the 101st is refused', clauses('AUTH-THROTTLE-02').needs('sim'), async ({ target, sim }) => {
  // Only successful logins (10 users x 10), so the check needs nothing beyond the spec's own rule.
  const perUser = LIMITS.loginsPerUserPerMinute;
  const usersNeeded = Math.ceil(LIMITS.loginsPerIpPerMinute / perUser);
  const seen = await withStableClock(sim, async () => {
    // Each attempt from a fresh address with fresh users, and starting from a clean count where the address is shared.
    const users: Login[] = [];
    for (let i = 0; i <= usersNeeded; i++) users.push(await sim.newUser());
    const { dispatcher, address } = ownAddress(target);
    await sim.resetCallerThrottle(dispatcher);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < LIMITS.loginsPerIpPerMinute; i++) {
        statuses.push((await requestToken(target, users[Math.floor(i / perUser)]!, { dispatcher, quiet: true })).status);
      }
      await test.info().attach(`${LIMITS.loginsPerIpPerMinute} logins from one address`, { body: JSON.stringify({ address: address ?? 'the checker\'s address', statuses }), contentType: 'application/json' });
      const refused = await requestToken(target, users[usersNeeded]!, { dispatcher, label: `POST /oauth2/token (login ${LIMITS.loginsPerIpPerMinute + 1} from the same address, a user with no login yet)` });
      return { result: { statuses, refused }, ownAdvanceMs: 0 };
    } finally {
      // Leave the address unthrottled for whatever runs next from it.
      await sim.resetCallerThrottle(dispatcher);
    }
  });
  expect(seen.statuses.filter((s) => s !== 200), `all ${LIMITS.loginsPerIpPerMinute} logins from one address succeed`).toEqual([]);
  expect(seen.refused.status, `login ${LIMITS.loginsPerIpPerMinute + 1} from the address is refused`).toBeGreaterThanOrEqual(400);
  expect(seen.refused.json?.access_token, 'no token for the refused login').toBeUndefined();
});
