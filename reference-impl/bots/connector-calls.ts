// The conversation endpoints of the connector (5 first messages, 6 conversation create, 7 messages): paths, bodies, time limits, schemas.
import { LIMITS } from '../../lib/limits.js';
import type { Core } from '../core.js';
import type { CallResult, ConnectorClient, Installation } from './connector-client.js';
import type { Shown } from './conversation-store.js';

/** `<timestamp>[<zone_id>]`: the instant with the zone's offset, then the zone id in brackets. */
export function zonedDateTime(ms: number, zone: string): string {
  try {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(new Date(ms));
    const name = parts.find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
    const offset = name === 'GMT' ? '+00:00' : name.replace('GMT', '');
    const offMin = (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
    const local = new Date(ms + offMin * 60_000).toISOString().slice(0, 23);
    return `${local}${offMin === 0 ? 'Z' : offset}[${zone}]`;
  } catch {
    return `${new Date(ms).toISOString()}[UTC]`;
  }
}

export class ConversationCalls {
  constructor(private ces: Core, private client: ConnectorClient) {}

  /** Endpoint 5: the bot's first messages (2 s). */
  firstMessages(inst: Installation, botId: number, conversationId: number): Promise<CallResult> {
    return this.client.call(inst, {
      endpoint: 'first-messages', method: 'GET', path: `/bots/${encodeURIComponent(String(botId))}/conversation-first-messages`,
      timeoutMs: this.ces.policy.bots.firstMessagesTimeoutMs, schema: 'connector/first-messages.json', conversationId, operatorId: botId,
    });
  }

  /** Endpoint 6: the connector's conversation, with the first messages shown as history. */
  create(inst: Installation, botId: number, conversationId: number, uuid: string, history: unknown[]): Promise<CallResult> {
    return this.client.call(inst, {
      endpoint: 'conversation-create', method: 'POST', path: '/conversations', body: { idOperator: String(botId), idConversation: uuid, history },
      timeoutMs: LIMITS.configEndpointTimeoutMs, schema: 'connector/conversation.json', conversationId, operatorId: botId,
    });
  }

  /** Endpoint 7 (10 s): one message of the conversation, `createdAt` in the website's zone (`<timestamp>[<zone_id>]`). */
  message(inst: Installation, m: { botId: number; conversationId: number; connectorId: string; role: 'visitor' | 'operator'; payload: unknown; shown: Shown; zone: string }): Promise<CallResult> {
    return this.client.call(inst, {
      endpoint: 'messages', method: 'POST', path: `/conversations/${encodeURIComponent(m.connectorId)}/messages`, role: m.role,
      body: { idOperator: String(m.botId), message: { idMessage: m.shown.messageId, author: { role: m.role }, payload: m.payload, createdAt: zonedDateTime(m.shown.at, m.zone) } },
      timeoutMs: this.ces.policy.bots.messageTimeoutMs, schema: 'connector/conversation.json', conversationId: m.conversationId, operatorId: m.botId,
    });
  }
}
