// Availability of routing rules per channel, from the bots' polled availability strategies and the operators' live availability.
import type { ServiceContext } from '../context.js';

export interface ChannelAvailability { chat: boolean; call: boolean; video: boolean }

/** Availability of routing rule `ruleId` of client `clientId`, or null when the client has no such rule. (Issue 4 implements.) */
export function routingRuleAvailability(ces: ServiceContext, clientId: number, ruleId: string): ChannelAvailability | null {
  void ces; void clientId; void ruleId;
  return null;
}
