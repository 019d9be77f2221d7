// Area "bots" of the reference implementation (placeholder until its issue fills it in).
import type { FastifyPluginAsync } from 'fastify';

const area: FastifyPluginAsync = async (app) => {
  void app;
};
export default area;
