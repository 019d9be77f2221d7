// Domain events raised by real actions (operator created, conversation pushed/closed, ...); the webhook dispatcher subscribes.
import { EventEmitter } from 'node:events';

/** What happened, in the service's own terms; the webhook layer turns these into payloads. */
export type DomainEvent =
  | { kind: 'user.created' | 'user.updated' | 'user.connected' | 'user.disconnected'; clientId: number; userId: number; at: number }
  | { kind: 'visitor.updated'; clientId: number; visitorId: string; operatorId: number | null; at: number }
  | { kind: 'conversation.pushed'; clientId: number; conversationId: number; viaTransfer: boolean; at: number; /** On a transfer: the earlier conversation (deprecated conversation.transferred). */ previousConversationId?: number }
  | { kind: 'conversation.started'; clientId: number; conversationId: number; at: number }
  | { kind: 'conversation.closed'; clientId: number; conversationId: number; at: number }
  /** A visitor's satisfaction answer was stored (G33: the deprecated satisfaction.filled). */
  | { kind: 'satisfaction.answered'; clientId: number; satisfactionId: number; at: number };

export class DomainEvents {
  private emitter = new EventEmitter();
  emit(e: DomainEvent): void { this.emitter.emit('event', e); }
  on(fn: (e: DomainEvent) => void): void { this.emitter.on('event', fn); }
}
