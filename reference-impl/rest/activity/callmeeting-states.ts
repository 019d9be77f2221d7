// Call meetings move through G18's states: pending → working → progress → done, or → failed from any state that is not final.
import type { ServiceContext } from '../../context.js';
import { row } from '../../store/read.js';

export const CALL_MEETING_STATES = ['pending', 'progress', 'done', 'failed', 'working'] as const;
export type CallMeetingState = (typeof CALL_MEETING_STATES)[number];

/** G18: the moves allowed from each state; done and failed are final (no move leaves them). */
export const CALL_MEETING_MOVES: Readonly<Record<string, readonly CallMeetingState[]>> = Object.freeze({
  pending: ['working', 'failed'],
  working: ['progress', 'failed'],
  progress: ['done', 'failed'],
});

/** Why a move is refused (an unknown meeting or a move G18 does not allow), or null once it is made. */
export type MoveRefusal = { status: 404 | 409; error: string; message: string };

/** Moves call meeting `id` to `to` when G18 allows it from its current state; one UPDATE that also checks the state it moves from. */
export function moveCallMeeting(ces: ServiceContext, id: number, to: CallMeetingState): MoveRefusal | null {
  const m = row(ces, 'call meeting', { table: 'callmeetings', where: { id } });
  if (!m) return { status: 404, error: 'not_found', message: `no call meeting ${id}` };
  const allowed = ces.policy.rest.callMeetingMoves[m.status] ?? [];
  if (!allowed.includes(to)) {
    const from = allowed.length ? `from ${m.status} it may move to ${allowed.join(' or ')}` : `${m.status} is final`;
    return { status: 409, error: 'invalid_transition', message: `call meeting ${id} cannot move from ${m.status} to ${to} (G18: ${from})` };
  }
  const moved = ces.db.prepare('UPDATE callmeetings SET status = ? WHERE id = ? AND status = ?').run(to, id, m.status).changes;
  return moved ? null : { status: 409, error: 'invalid_transition', message: `call meeting ${id} changed state meanwhile; read it again` };
}
