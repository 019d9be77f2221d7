// Helpers shared by the activity routes: the client's rows, lookup by id with the spec's unknown-id text, OpenAPI route metadata.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { idParam } from '../request.js';
import { RestFail, unknownId } from '../envelope.js';
import type { Row } from '../list.js';

import type { OpenApiRoute } from '../openapi.js';

/** Route metadata read by the OpenAPI generator (format at the top of reference-impl/rest/openapi.ts). */
export const meta = (openapi: OpenApiRoute) => ({ config: { openapi } });

/** Every row of a table owned by the request's client (a key never sees another client's rows). */
export function clientRows(app: FastifyInstance, req: FastifyRequest, table: string, order = 'id'): Row[] {
  return app.ces.db.prepare(`SELECT * FROM ${table} WHERE client_id = ? ORDER BY ${order}`).all(req.client.id) as Row[];
}

/** One row by the path id, or `Unknown '<resource>' with 'id' <id>.` when it does not exist for this client. */
export function rowById(app: FastifyInstance, req: FastifyRequest, table: string, resource: string): Row {
  const id = idParam(req, resource);
  // Deviation rest-activity-tenant-leak: the row is looked up without the client, so another client's row is served.
  const row = app.ces.deviations.has('rest-activity-tenant-leak')
    ? app.ces.db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id)
    : app.ces.db.prepare(`SELECT * FROM ${table} WHERE id = ? AND client_id = ?`).get(id, req.client.id);
  if (!row) {
    if (app.ces.deviations.has('rest-activity-unknown-id-text')) throw new RestFail(404, `${resource} not found`);
    throw unknownId(resource, id);
  }
  return row as Row;
}

export const bool = (v: unknown): boolean => Boolean(v);
