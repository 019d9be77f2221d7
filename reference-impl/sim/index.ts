// The simulation API (DESIGN.md, contract) under /sim: one encapsulated plugin whose hook requires `Authorization: Bearer <sim_token>` on every route that matched.
import type { FastifyPluginAsync } from 'fastify';
import { requireBearer } from '../../lib/control-auth.js';
import { registerSimControl } from './control.js';
import { installErrorHandling, plainShape } from '../../lib/http-errors.js';
import { registerSimConversations } from './conversations.js';
import { registerSimLogins } from './logins.js';
import { registerSimVisitors } from './visitors.js';
import { registerSimActivity } from './activity.js';

const sim: FastifyPluginAsync = async (app) => {
  // Route hooks of this scope run after the router decoded and matched the path, for unknown paths too (the 404 handler below).
  app.addHook('onRequest', requireBearer(app.ces.settings.simToken, 'the simulation API'));
  installErrorHandling(app, { shape: plainShape, notFound: (req) => `no simulation route ${req.method} ${req.url.split('?')[0]}` });
  registerSimControl(app);
  registerSimConversations(app);
  registerSimLogins(app);
  registerSimVisitors(app);
  registerSimActivity(app);
};
export default sim;
