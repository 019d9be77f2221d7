// What every REST route reads from a request: the base it came through, the key's client, numeric path ids.
import type { FastifyRequest } from 'fastify';
import type { ClientRow } from '../auth/api-key.js';
import { badId } from './envelope.js';

export type Platform = 'sd' | 'ha';
export const REST_BASES: Record<Platform, string> = { sd: '/api/2', ha: '/ha/api/2' };

declare module 'fastify' {
  interface FastifyRequest { client: ClientRow; platform: Platform }
}

/**
 * An integer written as decimal digits (a leading minus only with `negative`) within Number.MAX_SAFE_INTEGER, else null: `1e3`,
 * `1.0`, `+1`, `0x1f` and values past 2^53 would be read as another number than the one written (issue 14, item 6).
 */
export function integerOf(text: unknown, opts: { negative?: boolean } = {}): number | null {
  if (typeof text !== 'string' || !(opts.negative ? /^-?\d{1,16}$/ : /^\d{1,16}$/).test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** A value as an error message shows it: JSON-quoted and cut, so a huge input never comes back whole. */
export const shown = (v: unknown): string => { const s = JSON.stringify(v) ?? String(v); return s.length > 60 ? `${s.slice(0, 57)}…"` : s; };

/** The numeric id of a path parameter, or a 400 fail naming the resource. */
export function idParam(req: FastifyRequest, resource: string, name = 'id'): number {
  const raw = (req.params as Record<string, string>)[name] ?? '';
  const id = integerOf(raw);
  if (id === null) throw badId(`'${name}' of ${resource} must be an integer from 0 to ${Number.MAX_SAFE_INTEGER} (got ${shown(raw)}).`);
  return id;
}

