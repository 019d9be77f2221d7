// REST routes for conversations, tags, transactions, satisfactions, statistics and call meetings.
import type { FastifyInstance } from 'fastify';
import { registerConversations } from './activity/conversations.js';
import { registerRecords } from './activity/records.js';
import { registerStatistic } from './activity/statistic.js';

export default function activityRoutes(app: FastifyInstance): void {
  registerConversations(app);
  registerRecords(app);
  registerStatistic(app);
}
