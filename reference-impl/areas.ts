// The areas of the service, each a Fastify plugin in its own folder, registered in this order by buildApp.
import type { FastifyPluginAsync } from 'fastify';
import sim from './sim/index.js';
import rest from './rest/index.js';
import auth from './auth/index.js';
import graphql from './graphql/index.js';
import platform from './platform/index.js';
import bots from './bots/index.js';
import webhooks from './webhooks/index.js';
import consolePages from './console/index.js';

export const AREAS: FastifyPluginAsync[] = [sim, rest, auth, graphql, platform, bots, webhooks, consolePages];
