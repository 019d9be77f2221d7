// REST API v2 under the standard base (/api/2) and the high-availability base (/ha/api/2): registration only (key check, envelope errors, route modules).
import type { FastifyPluginAsync } from 'fastify';
import { clientFromRequest, type ClientRow } from '../auth/api-key.js';
import { RestFail, forbidden } from './envelope.js';
import { installErrorHandling, uriLimitHook } from '../../lib/http-errors.js';
import { LIMITS } from '../../lib/limits.js';
import { REST_BASES, type Platform } from './request.js';
import { routeNames } from './list.js';
import { applyEdits } from '../../lib/json-edit.js';
import peopleRoutes from './routes-people.js';
import activityRoutes from './routes-activity.js';
import { RouteRegistry, collectRoutes, openapiRoute } from './openapi.js';

const scope = (platform: Platform, registry: RouteRegistry): FastifyPluginAsync => async (app) => {
  // Before any route: the OpenAPI collector must see every route of this scope.
  collectRoutes(app, registry);
  installErrorHandling(app, {
    // meta.status error for authentication (whichever status the policy gives it) and server errors; fail for the rest.
    shape: (status, message, req) => ({ meta: { status: status === req.server.ces.policy.rest.forbiddenStatus || status >= 500 ? 'error' : 'fail', message } }),
    statusOf: (err, req) => (err instanceof RestFail && err.decision ? req.server.ces.policy.rest[err.decision] : undefined),
    accepted: 'application/json or application/x-www-form-urlencoded',
    fixedPathsFirst: true,
  });
  // Real clients send `Content-Type: application/json` with no body at all (a DELETE from PHP curl wrappers or axios defaults): that
  // is a request without a body, not bad JSON. Routes that need a body then answer their own 400 naming what to send.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => (body === '' ? done(null, undefined) : json(req, body as string, done)));
  app.decorateRequest('client', null as unknown as ClientRow);
  app.decorateRequest('platform', platform);
  // A URI over the limit is refused before anything reads it, authentication included (it reveals nothing).
  app.addHook('onRequest', uriLimitHook(LIMITS.restUriMaxChars));
  app.addHook('onRequest', async (req) => {
    req.platform = platform;
    const policy = app.ces.policy.rest;
    // The request seam: deviations at `rest.request` edit the query and headers (here) and the body (preValidation), per route.
    // (Where a request is, routeNames, is worked out only when a deviation acts at the seam: most requests meet none.)
    const asked = { query: req.query as Record<string, unknown>, headers: req.headers as Record<string, unknown> };
    const sent = app.ces.deviations.touches('rest.request') ? app.ces.deviations.edited('rest.request', asked, ...routeNames(req)) : asked;
    if (sent !== asked) {
      req.query = sent.query;
      // Fastify's headers setter adds to the raw headers: a header an edit dropped is taken out of them too.
      for (const name of Object.keys(req.raw.headers)) if (!(name in sent.headers)) delete req.raw.headers[name];
      req.headers = sent.headers as typeof req.headers;
    }
    if (platform === 'ha' && !policy.haBaseServed) throw new RestFail(404, `Unknown route ${req.method} ${req.url.split('?')[0]}.`);
    if (policy.versionHeader && req.headers[policy.versionHeader] !== '2') throw new RestFail(400, `Name the API version in the ${policy.versionHeader} header (2).`);
    // Every route, including unknown ones, needs a valid key: nothing is revealed to anonymous callers.
    const client = clientFromRequest(app.ces.apiKeys, req, !policy.differentKeysRefused) ?? (policy.keylessReadsServed && req.method === 'GET' ? app.ces.apiKeys.first() : null);
    if (!client) throw forbidden();
    req.client = client;
  });
  app.addHook('preValidation', async (req) => {
    if (req.body !== undefined && app.ces.deviations.touches('rest.request')) req.body = app.ces.deviations.edited('rest.request', { body: req.body }, ...routeNames(req)).body;
  });
  // The response seam: deviations at `rest.response` edit answers (JSON edits per route, fixtures/deviations/rest*.json).
  app.addHook('onSend', async (req, reply, payload) => {
    // JSON only: an answer is labelled another media type only when the policy lists it (never, but for a deviation).
    const labelled = app.ces.policy.rest.labelledAs.find((t) => String(req.headers.accept ?? '').includes(t));
    if (labelled && String(reply.getHeader('content-type') ?? '').includes('json')) reply.header('content-type', `${labelled}; charset=utf-8`);
    if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').includes('json')) return payload;
    const edits = app.ces.deviations.touches('rest.response') ? app.ces.deviations.edits('rest.response', ...routeNames(req)) : [];
    return edits.length ? JSON.stringify(applyEdits(JSON.parse(payload), edits)) : payload;
  });
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
