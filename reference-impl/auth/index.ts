// The token surface: POST /oauth2/token (password grant, G5/G6, login throttle G7) and GET /_authenticated.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { bearerOf, issueToken, verifyCredentials, verifyToken, type UserRow } from './tokens.js';
import { recordAttempt, throttled } from './throttle.js';

/** RFC 6749 §5.2 error answer (G6); tokens and credentials are never echoed. */
function oauthError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply.code(status).header('cache-control', 'no-store').header('pragma', 'no-cache').send({ error, error_description: description });
}


const area: FastifyPluginAsync = async (app) => {
  const ces = app.ces;

  app.post('/oauth2/token', async (req, reply) => {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const body = (req.body ?? {}) as Record<string, unknown>;
    const policy = ces.deviations.policy.auth;
    if (type !== policy.tokenContentType || typeof body !== 'object') {
      return oauthError(reply, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    const field = (name: string) => (typeof body[name] === 'string' && body[name] !== '' ? (body[name] as string) : undefined);
    const grantType = field('grant_type');
    const username = field('username');
    const password = field('password');
    const repeated = ['grant_type', 'username', 'password'].filter((n) => Array.isArray(body[n]));
    if (repeated.length) return oauthError(reply, 400, 'invalid_request', `parameter given more than once: ${repeated.join(', ')}`);
    if (!grantType) return oauthError(reply, 400, 'invalid_request', 'grant_type is required');
    if (!policy.acceptsGrantType(grantType)) {
      return oauthError(reply, 400, 'unsupported_grant_type', 'only grant_type=password is supported');
    }
    if (username && !password && policy.opensWithoutPassword) {
      const user = ces.db.prepare('SELECT * FROM users WHERE lower(email) = lower(?)').get(username) as UserRow | undefined;
      if (user) {
        const { token, expiresInS } = issueToken(ces, user);
        return reply.header('cache-control', 'no-store').send({ access_token: token, token_type: 'Bearer', expires_in: expiresInS, refresh_token: 'none' });
      }
    }
    if (!username || !password) {
      const a = policy.missingField(!username ? 'username' : 'password');
      return oauthError(reply, a.status, a.error, a.description);
    }

    const verdict = throttled(ces, username, req.ip);
    if (verdict) {
      if (verdict.retryAfterS > 0) reply.header('retry-after', String(verdict.retryAfterS));
      return oauthError(reply, 429, policy.throttleError,
        `too many logins ${verdict.scope === 'user' ? 'for this user' : 'from this address'}; retry after ${verdict.retryAfterS} s`);
    }
    const user = verifyCredentials(ces, username, password);
    recordAttempt(ces, username, req.ip, !!user);
    if (!user) {
      const a = policy.badCredentials;
      return oauthError(reply, a.status, a.error, a.description);
    }
    const { token, expiresInS } = issueToken(ces, user);
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
      .send({ access_token: token, token_type: 'Bearer', expires_in: expiresInS, refresh_token: 'none' });
  });

  app.get('/_authenticated', async (req, reply) => {
    const owner = verifyToken(ces, bearerOf(req.headers.authorization));
    const policy = ces.deviations.policy.auth;
    if (owner) return policy.authenticatedBody;
    const body = policy.invalidTokenBody;
    // The spec gives no status; RFC 6750 §3.1 answers an invalid token with 401 and a WWW-Authenticate challenge.
    return reply.code(401).header('www-authenticate', 'Bearer error="invalid_token"').send(body);
  });
};
export default area;
