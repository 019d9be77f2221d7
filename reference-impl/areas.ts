// The areas of the service, each a Fastify plugin in its own folder, registered in this order by buildApp.
import type { FastifyPluginAsync } from 'fastify';
import sim from './sim/index.js';
import rest from './rest/index.js';

export const AREAS: FastifyPluginAsync[] = [sim, rest];
