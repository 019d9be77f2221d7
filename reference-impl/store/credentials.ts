// The store's credentials: the seeded password of each client's logins, the password hash, and their replacement by random ones.
import { scryptSync, createHash, randomBytes } from 'node:crypto';
import type { Db } from './db.js';

/** The seeded login of a client: the ready file's `user` is the first client's. */
export function seededPassword(seedValue: number, clientId: number): string {
  return 'pw-' + createHash('sha256').update(`ces-seed-${seedValue}-${clientId}`).digest('hex').slice(0, 16);
}

export function hashPassword(password: string, salt = 'ces'): string {
  return `scrypt$${salt}$` + scryptSync(password, salt, 32, { N: 1024 }).toString('hex');
}

/**
 * Replaces every API key and login password with random ones (a service reachable beyond loopback: seeded credentials are
 * guessable). Returns each client's new key and the password of its admin login; other logins get unpublished random passwords.
 */
export function randomizeCredentials(db: Db): Map<number, { apiKey: string; adminPassword: string }> {
  const out = new Map<number, { apiKey: string; adminPassword: string }>();
  db.transaction(() => {
    for (const c of db.prepare('SELECT id FROM clients ORDER BY id').all() as Array<{ id: number }>) {
      const apiKey = randomBytes(16).toString('hex');
      db.prepare('UPDATE clients SET api_key = ? WHERE id = ?').run(apiKey, c.id);
      out.set(c.id, { apiKey, adminPassword: '' });
    }
    for (const u of db.prepare('SELECT id, client_id, email FROM users').all() as Array<{ id: number; client_id: number; email: string }>) {
      const password = randomBytes(18).toString('base64url');
      const salt = randomBytes(8).toString('hex');
      db.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(hashPassword(password, salt), u.id);
      const mine = out.get(u.client_id);
      if (mine && u.email.startsWith('admin@')) mine.adminPassword = password;
    }
  })();
  return out;
}
