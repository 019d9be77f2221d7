// The stored side of conversations: rows, phase, transcript (with its REST history mirror), failures, variables and the simulation view.
import { rows } from '../store/read.js';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { list } from '../store/db.js';
import type { Core } from '../core.js';

export type Phase = 'opening' | 'bot' | 'transferring' | 'human' | 'closed';
export type Role = 'visitor' | 'bot' | 'operator' | 'system';
export interface ConvRow {
  id: number; uuid: string; client_id: number; website_id: number; channel: string; visitor_uid: string; operator_id: number | null;
  operator_ids: string; created_at: number; closed_at: number | null; last_activity_at: number; history: string;
}
export interface StateRow { conversation_id: number; bot_operator_id: number | null; install_id: number | null; connector_conversation_id: string | null; phase: Phase; variables: string; close_reason: string | null; pending_transfer: string | null }
/** A message as shown: its id and the service-clock time it was shown at. */
export interface Shown { messageId: string; at: number }

const restDate = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** The URL a rich-content history entry (code 6) points at. */
function richUrl(payload: any): string {
  return payload?.url ?? payload?.image?.url ?? payload?.actions?.[0]?.url ?? payload?.cards?.[0]?.image?.url ?? payload?.offers?.[0]?.image?.url ?? `about:${payload?.contentType ?? 'content'}`;
}

export class ConversationStore {
  /** 'changed' (conversation id) whenever a transcript, failure or state changes: the inspector and waiters listen. */
  readonly events = new EventEmitter();
  constructor(private ces: Core) { this.events.setMaxListeners(100); }

  conv(id: number): ConvRow | undefined { return this.ces.db.prepare('SELECT * FROM conversations WHERE id = ?').get(id) as ConvRow | undefined; }
  convByUuid(uuid: string): ConvRow | undefined { return this.ces.db.prepare('SELECT * FROM conversations WHERE uuid = ?').get(uuid) as ConvRow | undefined; }
  state(id: number): StateRow | undefined { return this.ces.db.prepare('SELECT * FROM conversation_state WHERE conversation_id = ?').get(id) as StateRow | undefined; }
  setPhase(id: number, phase: Phase) { this.ces.db.prepare('UPDATE conversation_state SET phase = ? WHERE conversation_id = ?').run(phase, id); }
  touch(id: number) { this.ces.db.prepare('UPDATE conversations SET last_activity_at = ? WHERE id = ?').run(this.ces.clock.now(), id); }
  changed(id: number) { this.events.emit('changed', id); }

  private appendHistory(id: number, entry: unknown[]) {
    const row = this.conv(id);
    if (!row) return;
    const h = JSON.parse(row.history) as unknown[];
    h.push(entry);
    this.ces.db.prepare('UPDATE conversations SET history = ? WHERE id = ?').run(JSON.stringify(h), id);
  }

  /** Adds one transcript entry and its REST history entry; returns the message id and time. */
  addTranscript(id: number, role: Role, payload: any, opts: { operatorId?: number | null; quickReplies?: unknown; at?: number } = {}): Shown {
    const at = opts.at ?? this.ces.clock.now();
    const messageId = randomUUID();
    this.ces.db.prepare('INSERT INTO conversation_transcript (conversation_id, role, operator_id, message_id, payload, quick_replies, at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, role, opts.operatorId ?? null, messageId, JSON.stringify(payload), opts.quickReplies ? JSON.stringify(opts.quickReplies) : null, at);
    // REST history codes: visitor text 2, operator/bot text 1, system 3, operator rich content 6.
    if (role === 'visitor') this.appendHistory(id, [2, restDate(at), String(payload?.value ?? ''), at]);
    else if (role === 'system') this.appendHistory(id, [3, restDate(at), String(payload?.value ?? '')]);
    else if (payload?.contentType === 'text') this.appendHistory(id, [1, restDate(at), String(payload.value), at]);
    else this.appendHistory(id, [6, restDate(at), richUrl(payload)]);
    if (role === 'bot' || role === 'operator') this.ces.db.prepare('UPDATE conversations SET operator_answer = 1 WHERE id = ?').run(id);
    this.changed(id);
    return { messageId, at };
  }

  recordFailure(id: number, endpoint: string, kind: string, reason: string) {
    this.ces.db.prepare('INSERT INTO conversation_failures (conversation_id, endpoint, kind, reason, at) VALUES (?, ?, ?, ?, ?)').run(id, endpoint, kind, reason, this.ces.clock.now());
    this.changed(id);
  }

  /** Merges the connector's variables into the conversation's. */
  mergeVariables(id: number, vars: Array<{ key: string; value: string }>) {
    const cur = new Map(list<{ key: string; value: string }>(this.state(id)?.variables).map((v) => [v.key, v.value]));
    for (const v of vars) cur.set(v.key, v.value);
    this.ces.db.prepare('UPDATE conversation_state SET variables = ? WHERE conversation_id = ?').run(JSON.stringify([...cur].map(([key, value]) => ({ key, value }))), id);
    this.changed(id);
  }

  /** The simulation API's view of a conversation. */
  view(id: number, pendingTimers: Array<{ kind: string; due: string }>) {
    const c = this.conv(id)!;
    const st = this.state(id);
    const transcript = (this.ces.db.prepare('SELECT * FROM conversation_transcript WHERE conversation_id = ? ORDER BY id').all(id) as any[]).map((t) => ({
      role: t.role, payload: JSON.parse(t.payload), ...(t.quick_replies ? { quickReplies: JSON.parse(t.quick_replies) } : {}),
      ...(t.operator_id ? { operatorId: t.operator_id } : {}), messageId: t.message_id, at: new Date(t.at).toISOString(),
    }));
    const failures = rows(this.ces, 'conversation failures', { table: 'conversation_failures', where: { conversation_id: id }, order: 'id' })
      .map((f) => ({ endpoint: f.endpoint, kind: f.kind, reason: f.reason, at: new Date(f.at).toISOString() }));
    return {
      conversationId: c.uuid, id: c.id, channel: c.channel, websiteId: c.website_id, visitorId: c.visitor_uid,
      state: c.closed_at ? 'closed' : 'started', phase: st?.phase ?? 'human', closeReason: st?.close_reason ?? null,
      operatorId: c.operator_id, operatorIds: list<number>(c.operator_ids), botOperatorId: st?.bot_operator_id ?? null,
      variables: list(st?.variables), createdAt: new Date(c.created_at).toISOString(), closedAt: c.closed_at ? new Date(c.closed_at).toISOString() : null,
      lastActivityAt: new Date(c.last_activity_at).toISOString(), pendingTimers, transcript, failures,
    };
  }
}
