// Rows of the key's client only: every lookup by id and every list of the people routes goes through here (tenant isolation).
import type { FastifyRequest } from 'fastify';
import { unknownId } from '../envelope.js';
import { idParam } from '../request.js';
import type { Row } from '../list.js';
import { row, rows } from '../../store/read.js';

/** Tables of the people resources and the spec's resource name used in `Unknown '<resource>' with 'id' N.` */
export const RESOURCE_TABLE = { client: 'clients', website: 'websites', operator: 'operators', group: 'groups', skill: 'skills', visitor: 'visitors' } as const;
export type PeopleResource = keyof typeof RESOURCE_TABLE;

/** A client's rows are its own (in the `clients` table: the client itself). */
const owner = (resource: PeopleResource, clientId: number) => (resource === 'client' ? { 'id =': clientId } : { client_id: clientId });
/** What a client row shows (never its API key). */
const COLUMNS: Partial<Record<PeopleResource, string>> = { client: 'id, lang, premium_enabled' };

/** Every row of a table that belongs to the key's client (named read `rest <resource>s`). */
export function clientRows(req: FastifyRequest, resource: PeopleResource): Row[] {
  return rows(req.server.ces, `rest ${resource}s`, { table: RESOURCE_TABLE[resource], columns: COLUMNS[resource], where: owner(resource, req.client.id), order: 'id' });
}

/** The row of `:id` when it belongs to the key's client; otherwise the spec's unknown-id fail (another client's row is "unknown"). */
export function clientRow(req: FastifyRequest, resource: PeopleResource, id = idParam(req, resource)): Row {
  const found = row(req.server.ces, `rest ${resource}`, { table: RESOURCE_TABLE[resource], columns: COLUMNS[resource], where: { ...owner(resource, req.client.id), id } });
  if (!found) throw unknownId(resource, id);
  return found;
}

/** Ids of the key's client's rows in a table (for list validation of website_list, skill_list, group_id). */
export function clientIds(req: FastifyRequest, resource: 'website' | 'group' | 'skill'): Set<number> {
  return new Set(rows(req.server.ces, `rest ${resource} ids`, { table: RESOURCE_TABLE[resource], columns: 'id', where: { client_id: req.client.id } }).map((r) => r.id as number));
}
