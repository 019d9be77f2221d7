// REST API v2 under the standard base (/api/2) and the high-availability base (/ha/api/2): registration only (key check, envelope errors, route modules).
import type { FastifyPluginAsync } from 'fastify';
import { clientFromRequest, type ClientRow } from '../auth/api-key.js';
import { RestFail, forbidden } from './envelope.js';
import { REST_BASES, type Platform } from './request.js';
import { resourceOf } from './list.js';
import { applyEdits } from '../../lib/json-edit.js';
import peopleRoutes from './routes-people.js';
import activityRoutes from './routes-activity.js';
import { RouteRegistry, collectRoutes, openapiRoute } from './openapi.js';

const scope = (platform: Platform, registry: RouteRegistry): FastifyPluginAsync => async (app) => {
  // Before any route: the OpenAPI collector must see every route of this scope.
  collectRoutes(app, registry);
  app.decorateRequest('client', null as unknown as ClientRow);
  app.decorateRequest('platform', platform);
  app.addHook('onRequest', async (req) => {
    req.platform = platform;
    const policy = app.ces.deviations.policy.rest;
    if (platform === 'ha' && !policy.haBaseServed) throw new RestFail(404, `Unknown route ${req.method} ${req.url.split('?')[0]}.`);
    // Every route, including unknown ones, needs a valid key: nothing is revealed to anonymous callers.
    const client = clientFromRequest(app.ces, req, policy.presentedKey);
    if (!client) throw forbidden();
    req.client = client;
  });
  // The response seam: deviations at `rest.response` edit answers (JSON edits per resource, fixtures/deviations/rest*.json).
  app.addHook('onSend', async (req, reply, payload) => {
    const resource = resourceOf(req);
    const edits = [...app.ces.deviations.edits('rest.response', resource), ...app.ces.deviations.edits('rest.response', `${req.method} ${resource}`)];
    if (!edits.length || typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').includes('json')) return payload;
    return JSON.stringify(applyEdits(JSON.parse(payload), edits));
  });
  app.setErrorHandler((err, req, reply) => {
    if (err instanceof RestFail) {
      return reply.code(err.statusCode).send(err.body());
    }
    const e = err as { statusCode?: number; code?: string; message: string };
    const status = e.statusCode && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : 500;
    if (status === 500) req.log.error(err);
    const message = status === 415 ? `Unsupported content type '${req.headers['content-type'] ?? ''}': send application/json or application/x-www-form-urlencoded.`
      : status === 413 ? 'Request body too large.'
      : status === 400 && e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? `Invalid JSON body: ${e.message}`
      : status === 500 ? 'Internal error.' : e.message;
    return reply.code(status).send({ meta: { status: status === 500 ? 'error' : 'fail', message } });
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ meta: { status: 'fail', message: `Unknown route ${req.method} ${req.url.split('?')[0]}.` } }));
  openapiRoute(app, registry);
  peopleRoutes(app);
  activityRoutes(app);
};

const rest: FastifyPluginAsync = async (app) => {
  const registry = new RouteRegistry();
  await app.register(scope('sd', registry), { prefix: REST_BASES.sd });
  await app.register(scope('ha', registry), { prefix: REST_BASES.ha });
};
export default rest;
