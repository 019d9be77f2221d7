// REST routes for conversations, tags, transactions, satisfactions, statistics and call meetings.
import type { FastifyInstance } from 'fastify';

export default function activityRoutes(app: FastifyInstance): void {
  void app;
}
