// REST (and platform API) authentication: the API key by X-API-Key header, `key=` query parameter, or HTTP Basic user; exactly one way.
import type { FastifyRequest } from 'fastify';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { ServiceContext } from '../context.js';

export interface ClientRow { id: number; lang: string; premium_enabled: number; api_key: string; name: string }

/** The API key the request presents, or null when none (or more than one different one) is given. */
export function presentedKey(req: FastifyRequest): string | null {
  const found: string[] = [];
  const h = req.headers['x-api-key'];
  if (typeof h === 'string' && h) found.push(h);
  const q = (req.query as Record<string, unknown> | undefined)?.key;
  if (typeof q === 'string' && q) found.push(q);
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && /^basic\s+/i.test(auth)) {
    const decoded = Buffer.from(auth.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
    const user = decoded.split(':')[0];
    if (user) found.push(user);
  }
  if (found.length === 0) return null;
  // The spec says "exactly one of three ways": several ways are accepted only when they carry the same key.
  return found.every((k) => k === found[0]) ? found[0]! : null;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The client owning the presented key; keys are compared in constant time (over digests, so lengths do not leak). */
export function clientFromRequest(ces: ServiceContext, req: FastifyRequest, keyOf: (req: FastifyRequest) => string | null = presentedKey): ClientRow | null {
  const key = keyOf(req);
  if (!key) return null;
  const want = digest(key);
  const rows = ces.db.prepare('SELECT * FROM clients').all() as ClientRow[];
  let match: ClientRow | null = null;
  for (const r of rows) if (timingSafeEqual(digest(r.api_key), want)) match = r;
  return match;
}
