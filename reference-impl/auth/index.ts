// The token surface: POST /oauth2/token (password grant, G5/G6, login throttle G7) and GET /_authenticated.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { bearerOf, issueToken, verifyCredentials, verifyToken, type UserRow } from './tokens.js';
import { recordAttempt, throttled } from './throttle.js';

/** RFC 6749 §5.2 error answer (G6); tokens and credentials are never echoed. */
function oauthError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply.code(status).header('cache-control', 'no-store').header('pragma', 'no-cache').send({ error, error_description: description });
}

/** The spec's body for an invalid or expired token on the authenticated check (AUTH-CHECK-02). */
export const INVALID_TOKEN_BODY = { error: 'invalid_token', error_description: 'access token not valid' } as const;

const area: FastifyPluginAsync = async (app) => {
  const ces = app.ces;

  app.post('/oauth2/token', async (req, reply) => {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const body = (req.body ?? {}) as Record<string, unknown>;
    // Deviation: only JSON bodies are accepted (AUTH-TOKEN-01).
    const wanted = ces.deviations.has('auth-token-json-only') ? 'application/json' : 'application/x-www-form-urlencoded';
    if (type !== wanted || typeof body !== 'object') {
      return oauthError(reply, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    const field = (name: string) => (typeof body[name] === 'string' && body[name] !== '' ? (body[name] as string) : undefined);
    const grantType = field('grant_type');
    const username = field('username');
    const password = field('password');
    const repeated = ['grant_type', 'username', 'password'].filter((n) => Array.isArray(body[n]));
    if (repeated.length) return oauthError(reply, 400, 'invalid_request', `parameter given more than once: ${repeated.join(', ')}`);
    if (!grantType) return oauthError(reply, 400, 'invalid_request', 'grant_type is required');
    if (grantType !== 'password' && !ces.deviations.has('auth-grant-type-any')) {
      return oauthError(reply, 400, 'unsupported_grant_type', 'only grant_type=password is supported');
    }
    if (username && !password && ces.deviations.has('auth-missing-password-accepted')) {
      // Deviation: a login without password opens an existing account (AUTH-TOKEN-06).
      const user = ces.db.prepare('SELECT * FROM users WHERE lower(email) = lower(?)').get(username) as UserRow | undefined;
      if (user) {
        const { token, expiresInS } = issueToken(ces, user);
        return reply.header('cache-control', 'no-store').send({ access_token: token, token_type: 'Bearer', expires_in: expiresInS, refresh_token: 'none' });
      }
    }
    if (!username || !password) {
      // Deviation: a missing field answered as wrong credentials (AUTH-TOKEN-07).
      if (ces.deviations.has('auth-missing-field-error')) return oauthError(reply, 400, 'invalid_grant', 'invalid credentials');
      return oauthError(reply, 400, 'invalid_request', `${!username ? 'username' : 'password'} is required`);
    }

    const verdict = throttled(ces, username, req.ip);
    if (verdict) {
      if (verdict.retryAfterS > 0) reply.header('retry-after', String(verdict.retryAfterS));
      // Deviation: another error code in the throttle body (AUTH-THROTTLE-04).
      return oauthError(reply, 429, ces.deviations.has('auth-throttle-body-wrong') ? 'rate_limited' : 'too_many_requests',
        `too many logins ${verdict.scope === 'user' ? 'for this user' : 'from this address'}; retry after ${verdict.retryAfterS} s`);
    }
    const user = verifyCredentials(ces, username, password);
    recordAttempt(ces, username, req.ip, !!user);
    if (!user) {
      // Deviation: wrong credentials answered 401 invalid_client (AUTH-TOKEN-03).
      if (ces.deviations.has('auth-bad-credentials-error')) return oauthError(reply, 401, 'invalid_client', 'invalid credentials');
      return oauthError(reply, 400, 'invalid_grant', 'invalid username or password');
    }
    const { token, expiresInS } = issueToken(ces, user);
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
      .send({ access_token: token, token_type: 'Bearer', expires_in: expiresInS, refresh_token: 'none' });
  });

  app.get('/_authenticated', async (req, reply) => {
    const owner = verifyToken(ces, bearerOf(req.headers.authorization));
    if (owner) {
      // Deviation: a different body shape for a valid token (AUTH-CHECK-01).
      return ces.deviations.has('auth-authenticated-body') ? { authenticated: 'true' } : { authenticated: true };
    }
    const body = ces.deviations.has('auth-invalid-token-body') ? { error: 'invalid_token', error_description: 'token expired' } : INVALID_TOKEN_BODY;
    // The spec gives no status; RFC 6750 §3.1 answers an invalid token with 401 and a WWW-Authenticate challenge.
    return reply.code(401).header('www-authenticate', 'Bearer error="invalid_token"').send(body);
  });
};
export default area;
