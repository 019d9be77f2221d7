// Rows of the key's client only: every lookup by id and every list of the people routes goes through here (tenant isolation).
import type { FastifyRequest } from 'fastify';
import { unknownId } from '../envelope.js';
import { idParam } from '../request.js';
import type { Row } from '../list.js';

/** Tables of the people resources and the spec's resource name used in `Unknown '<resource>' with 'id' N.` */
export const RESOURCE_TABLE = { client: 'clients', website: 'websites', operator: 'operators', group: 'groups', skill: 'skills', visitor: 'visitors' } as const;
export type PeopleResource = keyof typeof RESOURCE_TABLE;

/** Every row of a table that belongs to the key's client. */
export function clientRows(req: FastifyRequest, resource: PeopleResource): Row[] {
  const ces = req.server.ces;
  if (resource === 'client') return ces.db.prepare('SELECT id, lang, premium_enabled FROM clients WHERE id = ?').all(req.client.id) as Row[];
  if (resource === 'operator') return ces.deviations.policy.rest.operatorRows(ces.db, req.client.id);
  return ces.db.prepare(`SELECT * FROM ${RESOURCE_TABLE[resource]} WHERE client_id = ? ORDER BY id`).all(req.client.id) as Row[];
}

/** The row of `:id` when it belongs to the key's client; otherwise the spec's unknown-id fail (another client's row is "unknown"). */
export function clientRow(req: FastifyRequest, resource: PeopleResource, id = idParam(req, resource)): Row {
  const ces = req.server.ces;
  let row: Row | undefined;
  if (resource === 'client') row = id === req.client.id ? (ces.db.prepare('SELECT id, lang, premium_enabled FROM clients WHERE id = ?').get(id) as Row) : undefined;
  else if (resource === 'operator') row = ces.deviations.policy.rest.operatorRow(ces.db, id, req.client.id);
  else row = ces.db.prepare(`SELECT * FROM ${RESOURCE_TABLE[resource]} WHERE id = ? AND client_id = ?`).get(id, req.client.id) as Row | undefined;
  if (!row) throw unknownId(resource, id);
  return row;
}

/** Ids of the key's client's rows in a table (for list validation of website_list, skill_list, group_id). */
export function clientIds(req: FastifyRequest, resource: 'website' | 'group' | 'skill'): Set<number> {
  return new Set((req.server.ces.db.prepare(`SELECT id FROM ${RESOURCE_TABLE[resource]} WHERE client_id = ?`).all(req.client.id) as Array<{ id: number }>).map((r) => r.id));
}
