// Simulation API, logins: a fresh login per check (so per-user throttle checks disturb nobody) and a scoped reset of the login throttle.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { resetThrottle } from '../auth/throttle.js';
import { hashPassword } from '../store/credentials.js';

export function registerSimLogins(app: FastifyInstance): void {
  const ces = app.ces;
  app.post<{ Body: { client_id?: unknown } }>('/users', async (req, reply) => {
    const clients = ces.db.prepare('SELECT id FROM clients ORDER BY id').all() as Array<{ id: number }>;
    const wanted = req.body?.client_id ?? clients[0]?.id;
    if (typeof wanted !== 'number' || !clients.some((c) => c.id === wanted)) {
      return reply.code(400).send({ error: 'invalid_request', message: `client_id must be one of ${clients.map((c) => c.id).join(', ')}` });
    }
    const username = `check-${randomBytes(6).toString('hex')}@client${wanted}.example`;
    const password = randomBytes(12).toString('base64url');
    const salt = randomBytes(8).toString('hex');
    ces.db.prepare('INSERT INTO users (client_id, email, password_hash, operator_id) VALUES (?, ?, ?, NULL)').run(wanted, username, hashPassword(password, salt));
    return reply.code(201).send({ client_id: wanted, username, password });
  });

  app.post<{ Body: { ip?: unknown; username?: unknown; callerIp?: unknown } }>('/throttle/reset', async (req, reply) => {
    const b = req.body ?? {};
    if ((b.ip !== undefined && typeof b.ip !== 'string') || (b.username !== undefined && typeof b.username !== 'string') || (b.callerIp !== undefined && typeof b.callerIp !== 'boolean')) {
      return reply.code(400).send({ error: 'invalid_request', message: 'body: {"ip": "<address>"} | {"username": "<e-mail>"} | {"callerIp": true} | {} (everything)' });
    }
    const ip = b.callerIp ? req.ip : (b.ip as string | undefined);
    const removed = resetThrottle(ces, { ip, username: b.username as string | undefined });
    return { removed, ip: ip ?? null, username: b.username ?? null };
  });
}
