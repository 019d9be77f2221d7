// buildApp(opts): the whole reference service as one Fastify instance that does not listen (tests use inject()). The one place where services are created and surfaces registered.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import formbody from '@fastify/formbody';
import qs from 'node:querystring';
import type { ServerOptions as HttpsServerOptions } from 'node:https';
import { Clock } from '../lib/clock.js';
import { LIMITS } from '../lib/limits.js';
import { openDb, getMeta, setMeta, type Db } from './store/db.js';
import { seedStore } from './store/seed-snapshot.js';
import { Deviations } from './deviations.js';
import { DomainEvents } from './events.js';
import type { ServiceContext, ServiceSettings } from './context.js';
import { newControlToken } from '../lib/control-auth.js';
import { ApiKeys } from './auth/api-key.js';
import { createBots, startBots } from './bots/index.js';
import { startWebhooks } from './webhooks/index.js';
import rest from './rest/index.js';
import auth from './auth/index.js';
import graphql from './graphql/index.js';
import platform from './platform/index.js';
import sim from './sim/index.js';
import consolePages from './console/index.js';
import { installErrorHandling, answerEveryMethod, clientErrorHandler, plainShape, type ErrorShape } from '../lib/http-errors.js';
import { ERROR_CODES } from './graphql/schema.js';

/** Errors outside the surfaces with their own scope, in the shape of the path's surface: GraphQL errors, OAuth errors (RFC 6749), or plain. */
const rootShape: ErrorShape = (status, message, req) => {
  const path = req.url.split('?')[0]!;
  if (path === '/graphql') return { errors: [{ message, extensions: { code: status >= 500 ? ERROR_CODES.internal : ERROR_CODES.badRequest } }] };
  if (path === '/oauth2/token' || path === '/_authenticated') return { error: status >= 500 ? 'server_error' : 'invalid_request', error_description: message };
  return plainShape(status, message, req);
};

export interface BuildOptions extends Partial<ServiceSettings> {
  db?: Db | string;
  deviate?: string[];
  https?: HttpsServerOptions | null;
  logger?: boolean;
}

export async function buildApp(opts: BuildOptions = {}): Promise<FastifyInstance> {
  const db = typeof opts.db === 'object' ? opts.db : openDb(opts.db ?? ':memory:');
  const seedValue = opts.seed ?? 42;
  if (!getMeta(db, 'seeded')) {
    await seedStore(db, seedValue);
    setMeta(db, 'seeded', String(seedValue));
  }
  // The clock offset is stored so a restarted service keeps the time it had been advanced to.
  const clock = new Clock(Number(getMeta(db, 'clock_offset') ?? 0));
  const ctx = {
    db,
    clock,
    deviations: new Deviations(opts.deviate ?? []),
    get policy() { return this.deviations.policy; },
    events: new DomainEvents(),
    settings: {
      connectorUrl: opts.connectorUrl,
      connectorSecret: opts.connectorSecret ?? 'connector-secret-' + seedValue,
      webhookUrl: opts.webhookUrl,
      webhookSecret: opts.webhookSecret,
      insecure: opts.insecure ?? false,
      outboundCa: opts.outboundCa,
      seed: seedValue,
      simToken: opts.simToken ?? newControlToken(),
    },
    apiKeys: new ApiKeys(db),
    onClose: [],
  } as Omit<ServiceContext, 'bots'> as ServiceContext;
  ctx.bots = createBots(ctx);

  const app = Fastify({
    logger: opts.logger ? { redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.query.key'] } : false,
    https: opts.https ?? null,
    bodyLimit: LIMITS.restBodyMaxBytes,
    // `filters[name]=v` must stay a flat key; areas parse brackets themselves.
    // A long path parameter is the route's to judge (400), and a long URI the surface's (414 in its own shape), not the router's.
    routerOptions: { querystringParser: (s: string) => qs.parse(s), maxParamLength: 2 * LIMITS.restUriMaxChars },
    // A request the HTTP parser refuses (431 over 16 KiB of headers) gets its answer before the socket closes; one with a method
    // token it does not know is answered by the path's surface (405 + Allow after its authentication).
    clientErrorHandler,
  } as FastifyServerOptions) as unknown as FastifyInstance;
  app.decorate('ces', ctx);
  // Every method, known or not, reaches the surface of its path: 405 with the path's methods (issue 28), never a bare 404.
  answerEveryMethod(app);
  await app.register(formbody, { parser: (s: string) => qs.parse(s) });
  // Before every route: the root sees them all, for 405 + Allow on paths no surface scope covers (/graphql, /oauth2/token, /console).
  installErrorHandling(app, { shape: rootShape });
  // Services first (bots, webhooks), so every surface finds them; each surface is one encapsulated plugin with its own authentication.
  startBots(ctx, ctx.bots);
  startWebhooks(ctx);
  await app.register(rest);
  await app.register(auth);
  await app.register(graphql);
  await app.register(platform, { prefix: '/platform' });
  await app.register(sim, { prefix: '/sim' });
  await app.register(consolePages);
  app.addHook('onClose', async () => {
    for (const fn of ctx.onClose.reverse()) await fn();
    clock.stop();
    setMeta(db, 'clock_offset', String(clock.offset));
    if (typeof opts.db !== 'object') db.close();
  });
  return app;
}
