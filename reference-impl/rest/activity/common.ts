// Helpers shared by the activity routes: the client's rows, lookup by id with the spec's unknown-id text, OpenAPI route metadata.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { idParam } from '../request.js';
import { unknownId } from '../envelope.js';
import type { Row } from '../list.js';
import { row, rows, type Criteria } from '../../store/read.js';

import type { OpenApiRoute } from '../openapi.js';

/** Route metadata read by the OpenAPI generator (format at the top of reference-impl/rest/openapi.ts). */
export const meta = (openapi: OpenApiRoute) => ({ config: { openapi } });

/** Every row of a table owned by the request's client (a key never sees another client's rows; named read `rest <table>`), meeting `also` too. */
export function clientRows(app: FastifyInstance, req: FastifyRequest, table: string, order = 'id', also: Criteria = {}): Row[] {
  return rows(app.ces, `rest ${table}`, { table, where: { client_id: req.client.id, ...also }, order });
}

/** One row by the path id, or `Unknown '<resource>' with 'id' <id>.` when it does not exist for this client (named read `rest <resource>`). */
export function rowById(app: FastifyInstance, req: FastifyRequest, table: string, resource: string): Row {
  const id = idParam(req, resource);
  const found = row(app.ces, `rest ${resource}`, { table, where: { client_id: req.client.id, id } });
  if (!found) throw unknownId(resource, id);
  return found;
}

export const bool = (v: unknown): boolean => Boolean(v);
