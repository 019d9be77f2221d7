// The bearer token that guards every control surface (the service's /sim, the fakes' /_control): checked per matched route, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';

/** A fresh random token (one per start). */
export const newControlToken = (): string => randomBytes(24).toString('base64url');

const digest = (s: string) => createHash('sha256').update(s).digest();

/** True when the request carries `Authorization: Bearer <token>` (given by its digest); compared over digests, so neither content nor length leaks. */
export function hasBearer(req: FastifyRequest, tokenDigest: Buffer): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return !!m && timingSafeEqual(digest(m[1]!), tokenDigest);
}

/** An onRequest hook answering 401 (`{error, message}` with a Bearer challenge) unless the control token is presented. */
export function requireBearer(token: string, surface: string): onRequestHookHandler {
  // The token's digest once, not on every request (every simulation call passes here).
  const tokenDigest = digest(token);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (hasBearer(req, tokenDigest)) return;
    return reply.code(401).header('www-authenticate', `Bearer realm="${surface}"`)
      .send({ error: 'unauthorized', message: `${surface} requires Authorization: Bearer <sim_token> (from the ready file)` });
  };
}

/**
 * Adds the token check to every route registered after this call whose path starts with `prefix` (e.g. `/_control`).
 * The hook belongs to the route that matched, after the router decoded the path, so no spelling of the path escapes it.
 */
export function guardRoutes(app: FastifyInstance, prefix: string, token: string, surface: string): void {
  const hook = requireBearer(token, surface);
  app.addHook('onRoute', (route) => {
    if (route.url !== prefix && !route.url.startsWith(prefix + '/')) return;
    const own = route.onRequest;
    route.onRequest = own ? [hook, ...(Array.isArray(own) ? own : [own])] : [hook];
  });
}

/** The caller's side of a control surface: `Authorization: Bearer <token>` when a token is given, else no header. */
export const bearerHeader = (token: string | undefined): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

/** The caller's side: `{authorization}` for a URL under the target's sim_url or a fake's `/_control`, else nothing. */
export function controlAuthHeader(target: { sim_url?: string; sim_token?: string; connector_url?: string; sink_url?: string }, url: string): Record<string, string> {
  if (!target.sim_token) return {};
  const under = (base: string | undefined, sub = '') => !!base && (url === base + sub || url.startsWith(base + sub + '/') || url.startsWith(base + sub + '?'));
  return under(target.sim_url) || under(target.connector_url, '/_control') || under(target.sink_url, '/_control') ? bearerHeader(target.sim_token) : {};
}
