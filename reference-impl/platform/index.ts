// The platform API (G17) under /platform: one encapsulated plugin whose hook authenticates every route that matched (any spelling of its path) by the client's API key.
import type { FastifyPluginAsync } from 'fastify';
import { clientFromRequest, type ClientRow } from '../auth/api-key.js';
import registerBots from './bots.js';
import { installErrorHandling, plainShape } from '../../lib/http-errors.js';
import registerWebhooks from './webhooks.js';

declare module 'fastify' {
  interface FastifyRequest { platformClient: ClientRow }
}

/** The answer to a call without a valid key: the platform API takes the REST key, and refuses exactly as REST does (docs/platform-api.md). */
export const PLATFORM_FORBIDDEN = { meta: { status: 'error', message: 'Forbidden' } } as const;

const platform: FastifyPluginAsync = async (app) => {
  app.decorateRequest('platformClient', null as unknown as ClientRow);
  // Route hooks of this scope run after the router decoded and matched the path, for unknown paths too (the 404 handler below).
  app.addHook('onRequest', async (req, reply) => {
    const client = clientFromRequest(app.ces.apiKeys, req);
    if (!client) return reply.code(403).send(PLATFORM_FORBIDDEN);
    req.platformClient = client;
  });
  installErrorHandling(app, { shape: plainShape, notFound: (req) => `no platform route ${req.method} ${req.url.split('?')[0]}` });
  registerBots(app);
  registerWebhooks(app);
};
export default platform;
