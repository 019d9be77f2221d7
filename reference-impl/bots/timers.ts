// Persisted conversation timers (scheduled replies, transfer timeouts, inactivity closes): stored first, armed on the service clock, re-armed after a restart.
import type { TimerHandle } from '../../lib/clock.js';
import type { Core } from '../core.js';

export type TimerKind = 'replies' | 'transfer-timeout' | 'inactivity' | 'offsite-inactivity';
export interface DueTimer { conversationId: number; kind: TimerKind; data: any }

export class ConversationTimers {
  private handles = new Map<number, TimerHandle>();
  private stopped = false;

  /** `onDue` runs once per timer when it is due, in the transaction that deletes its row (see fire). */
  constructor(private ces: Core, private onDue: (t: DueTimer) => Promise<void>) {}

  add(conversationId: number, kind: TimerKind, due: number, data: unknown = {}) {
    const rowId = Number(this.ces.db.prepare('INSERT INTO conversation_timers (conversation_id, kind, due, data) VALUES (?, ?, ?, ?)').run(conversationId, kind, due, JSON.stringify(data)).lastInsertRowid);
    this.arm(rowId, due);
  }

  /** Cancels the conversation's timers (of the given kinds, or all). */
  cancel(conversationId: number, kinds?: TimerKind[]) {
    const rows = this.ces.db.prepare('SELECT id, kind FROM conversation_timers WHERE conversation_id = ?').all(conversationId) as Array<{ id: number; kind: TimerKind }>;
    for (const r of rows) {
      if (kinds && !kinds.includes(r.kind)) continue;
      this.ces.db.prepare('DELETE FROM conversation_timers WHERE id = ?').run(r.id);
      this.handles.get(r.id)?.cancel();
      this.handles.delete(r.id);
    }
  }

  pending(conversationId: number) {
    return (this.ces.db.prepare('SELECT kind, due FROM conversation_timers WHERE conversation_id = ? ORDER BY due').all(conversationId) as Array<{ kind: string; due: number }>)
      .map((t) => ({ kind: t.kind, due: new Date(t.due).toISOString() }));
  }

  /** After a restart: every stored timer is armed again. */
  rearm() {
    for (const t of this.ces.db.prepare('SELECT id, due FROM conversation_timers').all() as Array<{ id: number; due: number }>) this.arm(t.id, t.due);
  }

  stop() {
    this.stopped = true;
    for (const h of this.handles.values()) h.cancel();
    this.handles.clear();
  }

  private arm(rowId: number, due: number) {
    this.handles.set(rowId, this.ces.clock.at(due, () => { this.handles.delete(rowId); this.fire(rowId); }));
  }

  /**
   * Deletes the row and runs `onDue` in one SQLite transaction: what `onDue` writes before its first await (a scheduled message
   * shown, the next timer stored, a conversation closed) commits with the delete, so a SIGKILL between them can neither lose
   * the timer nor fire it twice (G29). Its later, asynchronous part (calls to the connector) runs after the commit.
   */
  private fire(rowId: number) {
    if (this.stopped) return;
    let rest: Promise<void> | undefined;
    this.ces.db.transaction(() => {
      const t = this.ces.db.prepare('SELECT * FROM conversation_timers WHERE id = ?').get(rowId) as { conversation_id: number; kind: TimerKind; data: string } | undefined;
      if (!t) return;
      this.ces.db.prepare('DELETE FROM conversation_timers WHERE id = ?').run(rowId);
      rest = this.onDue({ conversationId: t.conversation_id, kind: t.kind, data: JSON.parse(t.data) });
    })();
    rest?.catch((err: unknown) => console.error('conversation timer failed', err));
  }
}
