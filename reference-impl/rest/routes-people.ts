// REST routes for client, website, operator (CRUD, live, statistic, profile), group, skill and visitor.
import type { FastifyInstance } from 'fastify';

export default function peopleRoutes(app: FastifyInstance): void {
  void app;
}
