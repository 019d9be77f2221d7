// Bearer tokens of the token route: issued for 24 h of service-clock time, stored as SHA-256 digests only, checked in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServiceContext } from '../context.js';
import { hashPassword } from '../store/credentials.js';
import { LIMITS } from '../../lib/limits.js';
import { row } from '../store/read.js';

export interface UserRow { id: number; client_id: number; email: string; password_hash: string; operator_id: number | null }
export interface TokenOwner { userId: number; clientId: number; expiresAt: number }

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The user whose e-mail and password match, or null. Unknown e-mails cost a hash too, so timing does not tell them apart. */
export function verifyCredentials(ces: ServiceContext, username: string, password: string): UserRow | null {
  const user = ces.db.prepare('SELECT * FROM users WHERE lower(email) = lower(?)').get(username) as UserRow | undefined;
  const stored = user?.password_hash ?? 'scrypt$ces$' + '0'.repeat(64);
  const salt = stored.split('$')[1] ?? 'ces';
  const given = Buffer.from(hashPassword(password, salt));
  const want = Buffer.from(stored);
  const same = given.length === want.length && timingSafeEqual(given, want);
  return user && same ? user : null;
}

/** The user with this e-mail, or null. */
export function userByEmail(ces: ServiceContext, username: string): UserRow | null {
  return (ces.db.prepare('SELECT * FROM users WHERE lower(email) = lower(?)').get(username) as UserRow | undefined) ?? null;
}

/** Issues a token for `user`; returns the token text (never stored) and its lifetime in seconds as announced. */
export function issueToken(ces: ServiceContext, user: UserRow): { token: string; expiresInS: number } {
  const token = randomBytes(32).toString('base64url');
  const now = ces.clock.now();
  const policy = ces.policy.auth;
  const lifetime = policy.tokenLifetimeMs;
  ces.db.prepare('INSERT INTO auth_tokens (token_hash, user_id, client_id, issued_at, expires_at) VALUES (?, ?, ?, ?, ?)')
    .run(sha256(token), user.id, user.client_id, now, now + lifetime);
  // Forget tokens that expired long ago so the table stays small.
  ces.db.prepare('DELETE FROM auth_tokens WHERE expires_at < ?').run(now - LIMITS.tokenLifetimeMs);
  return { token, expiresInS: policy.announcedExpiresInS };
}

/** The bearer token of an `Authorization` header value, or null. */
export function bearerOf(header: string | undefined): string | null {
  const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header ?? '');
  return m ? m[1]! : null;
}

/**
 * The owner of a valid, unexpired token (service clock), or null; `read` names the lookup for the store-read seam (each surface its
 * own). Lookup is by digest, so the token text is never compared; a missing token is looked up as the digest of nothing, which no
 * token has.
 */
export function verifyToken(ces: ServiceContext, token: string | null, read: string): TokenOwner | null {
  const owner = row(ces, read, { table: 'auth_tokens', columns: 'user_id, client_id, expires_at', where: { token_hash: sha256(token ?? ''), 'expires_at >': ces.clock.now() } });
  return owner ? { userId: owner.user_id, clientId: owner.client_id, expiresAt: owner.expires_at } : null;
}
