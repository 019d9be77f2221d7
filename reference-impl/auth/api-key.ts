// REST (and platform API) authentication: the API key by X-API-Key header, `key=` query parameter, or HTTP Basic user; exactly one way.
import type { FastifyRequest } from 'fastify';
import { timingSafeEqual, hash } from 'node:crypto';
import type { Db } from '../store/db.js';

export interface ClientRow { id: number; lang: string; premium_enabled: number; api_key: string; name: string }

/**
 * The API key the request presents, or null when none is given. Different keys given in several ways at once: null (refused), or
 * with `firstWayWins` the first in the order header, query, Basic (another decision a service may take: REST-AUTH-07).
 */
export function presentedKey(req: FastifyRequest, firstWayWins = false): string | null {
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
  return firstWayWins || found.every((k) => k === found[0]) ? found[0]! : null;
}

/** SHA-256 of a key as a binary (latin1) string, one byte a character: the one-shot hash, without a Hash object or hex text per request. */
const digest = (s: string) => hash('sha256', s, 'binary');

/**
 * API key digests → client of one stack, read from the store at first use and again when a digest is not found (a client added
 * since), so a request costs one hash and one lookup instead of reading every client and hashing every key. Keys change only in the
 * seed, before the service listens; forget() drops the map after such a change.
 */
export class ApiKeys {
  private byDigest?: Map<string, { row: ClientRow; digest: Buffer }>;
  constructor(private readonly db: Db) {}

  private load(): Map<string, { row: ClientRow; digest: Buffer }> {
    if (!this.byDigest) {
      const rows = this.db.prepare('SELECT * FROM clients').all() as ClientRow[];
      this.byDigest = new Map(rows.map((row) => { const d = digest(row.api_key); return [d, { row, digest: Buffer.from(d, 'binary') }]; }));
    }
    return this.byDigest;
  }

  /** The client owning `key`, or null. Found by its digest (a caller cannot steer a digest's bytes); compared again in constant time. */
  find(key: string): ClientRow | null {
    const want = digest(key);
    let hit = this.load().get(want);
    if (!hit) { this.forget(); hit = this.load().get(want); }
    return hit && timingSafeEqual(hit.digest, Buffer.from(want, 'binary')) ? hit.row : null;
  }

  forget(): void { this.byDigest = undefined; }

  /** The client with the lowest id (whom a deviation serves keyless reads as: rest.policy keylessReadsServed). */
  first(): ClientRow | null {
    return [...this.load().values()].map((h) => h.row).sort((a, b) => a.id - b.id)[0] ?? null;
  }
}

/** The client owning the presented key; keys are compared as digests (lengths do not leak), through the stack's key map. */
export function clientFromRequest(apiKeys: ApiKeys, req: FastifyRequest, firstWayWins = false): ClientRow | null {
  const key = presentedKey(req, firstWayWins);
  return key ? apiKeys.find(key) : null;
}
