// What every REST route reads from a request: the base it came through, the key's client, numeric path ids.
import type { FastifyRequest } from 'fastify';
import type { ClientRow } from '../auth/api-key.js';

export type Platform = 'sd' | 'ha';
export const REST_BASES: Record<Platform, string> = { sd: '/api/2', ha: '/ha/api/2' };

declare module 'fastify' {
  interface FastifyRequest { client: ClientRow; platform: Platform }
}

/** The numeric id of a path parameter, or a 400 fail naming the resource. */
export function idParam(req: FastifyRequest, resource: string, name = 'id'): number {
  const raw = (req.params as Record<string, string>)[name] ?? '';
  if (!/^\d+$/.test(raw)) throw req.server.ces.deviations.policy.rest.badIdError(name, resource, raw);
  return Number(raw);
}

