// Checks of POST {base_url}/oauth2/token: the password grant, the G5 answer, and what wrong requests get (G6).
import { test, expect, expectSchema } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { expectPayload, under } from '../verdicts.js';
import { loginForCheck, requestToken } from './support.js';

test('the target\'s user gets a token with the password grant', clauses('AUTH-TOKEN-01'), async ({ target }) => {
  const res = await requestToken(target, target.user);
  expect(res.status, 'a correct password-grant login is answered 200').toBe(200);
  expect(typeof res.json?.access_token, 'the answer carries access_token').toBe('string');
  expect(res.json.access_token.length, 'access_token is not empty').toBeGreaterThan(0);
});

test('every user of the target (one per client) can log in', clauses('AUTH-TOKEN-01'), async ({ target }) => {
  const users = target.users?.length ? target.users : [{ client_id: 0, ...target.user }];
  for (const u of users) {
    const res = await requestToken(target, u);
    expect(res.status, `login of the user of client ${u.client_id} is answered 200`).toBe(200);
    expect(typeof res.json?.access_token).toBe('string');
  }
});

test('the token answer is exactly the G5 shape: Bearer, expires_in 86400, refresh_token "none"', clauses('AUTH-TOKEN-02'), async ({ target }) => {
  const res = await requestToken(target, await loginForCheck(target));
  expect(res.status).toBe(200);
  expect(res.headers['content-type'] ?? '', 'the answer is JSON').toMatch(/^application\/json/);
  expectPayload('auth/token.json', res.json, 'the token answer');
  expect(res.json.expires_in, 'expires_in says 24 hours in seconds').toBe(86_400);
});

test('wrong credentials issue no token (wrong password, unknown e-mail)', clauses('AUTH-TOKEN-08', 'AUTH-TOKEN-03'), async ({ target }) => {
  const login = await loginForCheck(target);
  for (const [what, creds] of [['wrong password', { ...login, password: login.password + '-wrong' }], ['unknown e-mail', { username: `nobody-${Date.now()}@unknown.example`, password: login.password }]] as const) {
    const res = await requestToken(target, creds);
    under('AUTH-TOKEN-08', () => expect(res.json?.access_token, `${what}: no access_token`).toBeUndefined());
    // The spec says only that no token is issued; the error status is G6's decision (G34).
    under('AUTH-TOKEN-03', () => expect(res.status, `${what}: G6 answers an error status`).toBeGreaterThanOrEqual(400));
  }
});

test('wrong credentials are answered 400 {"error":"invalid_grant"}', clauses('AUTH-TOKEN-03'), async ({ target }) => {
  const login = await loginForCheck(target);
  for (const creds of [{ ...login, password: login.password + '-wrong' }, { username: `nobody-${Date.now()}@unknown.example`, password: 'x-password' }]) {
    const res = await requestToken(target, creds);
    expect(res.status, 'wrong credentials: 400').toBe(400);
    expectSchema('auth/oauth-error.json#/$defs/invalid_grant', res.json);
  }
});

for (const grant of ['client_credentials', 'authorization_code', 'refresh_token', 'PASSWORD']) {
  test(`grant_type=${grant} issues no token`, clauses('AUTH-TOKEN-04', 'AUTH-TOKEN-05'), async ({ target }) => {
    const res = await requestToken(target, await loginForCheck(target), { grantType: grant });
    under('AUTH-TOKEN-04', () => expect(res.json?.access_token, 'only grant_type=password is supported: no access_token').toBeUndefined());
    under('AUTH-TOKEN-05', () => expect(res.status, 'G6 answers an error status').toBeGreaterThanOrEqual(400));
  });
}

test('a grant_type other than password is answered 400 {"error":"unsupported_grant_type"}', clauses('AUTH-TOKEN-05'), async ({ target }) => {
  const res = await requestToken(target, await loginForCheck(target), { grantType: 'client_credentials' });
  expect(res.status).toBe(400);
  expectSchema('auth/oauth-error.json#/$defs/unsupported_grant_type', res.json);
});

for (const missing of ['username', 'password', 'grant_type'] as const) {
  test(`a token request without ${missing} issues no token`, clauses('AUTH-TOKEN-06', 'AUTH-TOKEN-07'), async ({ target }) => {
    const res = await requestToken(target, await loginForCheck(target), { omit: [missing] });
    under('AUTH-TOKEN-06', () => expect(res.json?.access_token, `${missing} is required: no access_token`).toBeUndefined());
    under('AUTH-TOKEN-07', () => expect(res.status, 'G6 answers an error status').toBeGreaterThanOrEqual(400));
  });

  test(`a token request without ${missing} is answered 400 {"error":"invalid_request"}`, clauses('AUTH-TOKEN-07'), async ({ target }) => {
    const res = await requestToken(target, await loginForCheck(target), { omit: [missing] });
    expect(res.status).toBe(400);
    expectSchema('auth/oauth-error.json#/$defs/invalid_request', res.json);
  });
}
