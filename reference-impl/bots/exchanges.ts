// The exchange log of one service: every service→connector call, stored per conversation (bounded), recent others in memory, and a live feed.
import { EventEmitter } from 'node:events';
import type { Core } from '../core.js';

/** The connector endpoints the service calls, by name. */
export type EndpointName = 'external-bots' | 'bot-put' | 'bot-get' | 'availability' | 'first-messages' | 'conversation-create' | 'messages';

/** One service→connector call as logged. */
export interface Exchange {
  id?: number; conversationId: number | null; operatorId: number | null; endpoint: EndpointName; method: string; url: string;
  requestBody: string | null; status: number | null; responseBody: string | null; ms: number; failure: string | null; at: number;
}

/** Exchanges kept in the store (the oldest are dropped beyond this). */
const EXCHANGES_KEPT = 50_000;
/** Exchanges outside conversations (bot creation flow, availability polls) kept in memory. */
const RECENT_KEPT = 500;

export class ExchangeLog {
  /** Live feed: event 'exchange' with an Exchange (the inspector subscribes). */
  readonly events = new EventEmitter();
  private recentOnes: Exchange[] = [];
  constructor(private ces: Core) { this.events.setMaxListeners(100); }

  add(ex: Exchange): void {
    if (ex.conversationId !== null) {
      try {
        const r = this.ces.db.prepare(`INSERT INTO connector_exchanges (conversation_id, operator_id, endpoint, method, url, request_body, status, response_body, ms, failure, at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(ex.conversationId, ex.operatorId, ex.endpoint, ex.method, ex.url, ex.requestBody, ex.status, ex.responseBody, ex.ms, ex.failure, ex.at);
        ex.id = Number(r.lastInsertRowid);
        // Bounded store (load runs post many messages): keep the latest exchanges only.
        if (ex.id % 1_000 === 0) this.ces.db.prepare('DELETE FROM connector_exchanges WHERE id <= ?').run(ex.id - EXCHANGES_KEPT);
      } catch { /* the store is closed during shutdown: the exchange is dropped, never the process */ }
    } else {
      this.recentOnes.push(ex);
      if (this.recentOnes.length > RECENT_KEPT) this.recentOnes.splice(0, this.recentOnes.length - RECENT_KEPT);
    }
    this.events.emit('exchange', ex);
  }

  /** The exchange log of one conversation, oldest first. */
  ofConversation(conversationId: number): Exchange[] {
    return (this.ces.db.prepare('SELECT * FROM connector_exchanges WHERE conversation_id = ? ORDER BY id').all(conversationId) as any[]).map((r) => ({
      id: r.id, conversationId: r.conversation_id, operatorId: r.operator_id, endpoint: r.endpoint, method: r.method, url: r.url,
      requestBody: r.request_body, status: r.status, responseBody: r.response_body, ms: r.ms, failure: r.failure, at: r.at,
    }));
  }

  /** Recent exchanges outside conversations, newest last. */
  recent(): Exchange[] { return [...this.recentOnes]; }
}
