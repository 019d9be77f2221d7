// REST API v2 under the standard base (/api/2) and the high-availability base (/ha/api/2).
import type { FastifyPluginAsync } from 'fastify';

const rest: FastifyPluginAsync = async (app) => {
  void app;
};
export default rest;
