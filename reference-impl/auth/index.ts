// The token surface: POST /oauth2/token (password grant, G5/G6, login throttle G7) and GET /_authenticated.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { bearerOf, issueToken, userByEmail, verifyCredentials, verifyToken } from './tokens.js';
import { applyEdits } from '../../lib/json-edit.js';
import { recordAttempt, recordRefusal, throttled } from './throttle.js';

/** The route an answer of this surface belongs to, as deviations name it (`where`): `token` or `authenticated`. */
const routeOf = (url: string): string => (url.startsWith('/oauth2/token') ? 'token' : 'authenticated');

/** RFC 6749 §5.2 error answer (G6); tokens and credentials are never echoed. */
function oauthError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply.code(status).header('cache-control', 'no-store').header('pragma', 'no-cache').send({ error, error_description: description });
}


const area: FastifyPluginAsync = async (app) => {
  const ces = app.ces;

  // The seams of the token surface: deviations at `auth.request` edit the token request's body, at `auth.response` every answer
  // (`{status, headers, body}`), per route (`token`, `authenticated`; fixtures/deviations/auth.json).
  app.addHook('preValidation', async (req) => {
    if (req.body && typeof req.body === 'object') req.body = ces.deviations.edited('auth.request', { body: req.body }, routeOf(req.url)).body;
  });
  app.addHook('onSend', async (req, reply, payload) => {
    const edits = ces.deviations.edits('auth.response', routeOf(req.url));
    if (!edits.length || typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').includes('json')) return payload;
    const answer = applyEdits({ status: reply.statusCode, headers: { ...reply.getHeaders() } as Record<string, unknown>, body: JSON.parse(payload) as unknown }, edits);
    reply.code(answer.status);
    for (const name of Object.keys(reply.getHeaders())) if (!(name in answer.headers)) reply.removeHeader(name);
    reply.headers(answer.headers as Record<string, string>);
    return JSON.stringify(answer.body);
  });

  app.post('/oauth2/token', async (req, reply) => {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const body = (req.body ?? {}) as Record<string, unknown>;
    const policy = ces.policy.auth;
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
    if (grantType !== 'password') return oauthError(reply, 400, 'unsupported_grant_type', 'only grant_type=password is supported');
    // RFC 6749 §5.2: a missing username or password is invalid_request, naming it.
    if (!username || (!password && policy.passwordRequired)) return oauthError(reply, 400, 'invalid_request', `${!username ? 'username' : 'password'} is required`);

    const verdict = throttled(ces, username, req.ip, policy.refusalsExtendWait);
    if (verdict) {
      // G7's window holds answered logins only; a service may make each refusal restart the wait (retrying early extends it).
      if (policy.refusalsExtendWait) recordRefusal(ces, username);
      reply.header('retry-after', String(verdict.retryAfterS));
      return oauthError(reply, 429, policy.throttleError,
        `too many logins ${verdict.scope === 'user' ? 'for this user' : 'from this address'}; retry after ${verdict.retryAfterS} s`);
    }
    const matched = password ? verifyCredentials(ces, username, password) : null;
    // The account opens with the right password only (deviations auth-any-password, auth-missing-password-accepted open it without).
    const user = matched ?? (policy.passwordChecked && (password || policy.passwordRequired) ? null : userByEmail(ces, username));
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
    const owner = verifyToken(ces, bearerOf(req.headers.authorization), 'token owner');
    const policy = ces.policy.auth;
    if (owner) return policy.authenticatedBody;
    // The spec gives no status; RFC 6750 §3.1 answers an invalid token with 401 and a WWW-Authenticate challenge.
    return reply.code(401).header('www-authenticate', 'Bearer error="invalid_token"').send(policy.invalidTokenBody);
  });
};
export default area;
