// Operator live availability: the resource (GET /operator/live, /operator/{id}/live) and its update (PUT /operator/{id}/live).
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { badRequest, TEXT } from '../envelope.js';
import type { Row } from '../list.js';
import { row, rows } from '../../store/read.js';

export const LIVE_CHANNELS = ['chat', 'call', 'video'] as const;
export type LiveChannel = (typeof LIVE_CHANNELS)[number];

/** The live row of an operator; an operator who never logged in has none (null). */
export function liveRow(ces: ServiceContext, operatorId: number): Row | null {
  return (ces.db.prepare('SELECT * FROM operator_live WHERE operator_id = ?').get(operatorId) as Row | undefined) ?? null;
}

/** Live rows of many operators in one query (GET /operator/live reads every operator of a client: no query per operator). */
export function liveRowsOf(ces: ServiceContext, operatorIds: number[]): Map<number, Row> {
  const rows = ces.db.prepare('SELECT * FROM operator_live WHERE operator_id IN (SELECT value FROM json_each(?))').all(JSON.stringify(operatorIds)) as Row[];
  return new Map(rows.map((r) => [r.operator_id as number, r]));
}

/** Slots in use per live channel of one operator. */
export type Slots = Record<LiveChannel, number>;
const NO_SLOTS: Readonly<Slots> = Object.freeze({ chat: 0, call: 0, video: 0 });

/**
 * G32: `slot_number` is the number of open conversations the operator holds on that channel now, so it rises when a conversation is
 * assigned or transferred to them and falls when it closes or leaves them. Offsite conversations take a chat slot (they are routed by
 * chat availability). One grouped query for every operator of the client (the live view reads them all), or for one operator.
 */
export function slotsOf(ces: ServiceContext, clientId: number, operatorId?: number): Map<number, Slots> {
  // Answered by the index conv_open_slots alone (store/schema.sql); one operator's (GET/PUT /operator/{id}/live) by its own part of it.
  const held = rows(ces, 'live slots', {
    table: 'conversations', where: { client_id: clientId, closed_at: null, ...(operatorId === undefined ? { 'operator_id !=': null } : { operator_id: operatorId }) },
    columns: `operator_id, CASE channel WHEN 'call' THEN 'call' WHEN 'video' THEN 'video' ELSE 'chat' END AS live_channel, COUNT(*) AS n`,
    group: 'operator_id, live_channel',
  });
  const out = new Map<number, Slots>();
  for (const h of held) {
    const s = out.get(h.operator_id) ?? { ...NO_SLOTS };
    s[h.live_channel as LiveChannel] = h.n;
    out.set(h.operator_id, s);
  }
  return out;
}

/** Column names per channel, built once (the live view is the hottest read: no string building per request). */
const CHANNEL_COLUMNS = Object.freeze(Object.fromEntries(LIVE_CHANNELS.map((c) => [c, { enabled: `${c}_enabled`, max: `${c}_slot_max_number`, available: `${c}_available` }]))) as Readonly<Record<LiveChannel, { enabled: string; max: string; available: string }>>;

/** One channel: `busy` when every slot is in use (G32: slot_max_number > 0 and slot_number >= slot_max_number). */
function liveChannel(op: Row, live: Row | null, c: LiveChannel, connected: boolean, slots: number) {
  const k = CHANNEL_COLUMNS[c];
  const slotMax = c === 'chat' ? op.chat_max_number : (live?.[k.max] ?? 1);
  return { enabled: !!op[k.enabled], slot_number: slots, slot_max_number: slotMax, busy: slotMax > 0 && slots >= slotMax, available: connected && !!op[k.enabled] && !!live?.[k.available] };
}

/** The live resource: a channel is available only when the operator is connected, the channel enabled and switched available. */
export function liveResource(op: Row, live: Row | null, slots: Slots = NO_SLOTS): Row {
  const connected = !!live?.connected;
  return {
    id: op.id, connected, chat: liveChannel(op, live, 'chat', connected, slots.chat), call: liveChannel(op, live, 'call', connected, slots.call),
    video: liveChannel(op, live, 'video', connected, slots.video), _link: `/operator/${op.id}/live`,
  };
}

/** Available in the default view of GET /operator/live: available on at least one channel. */
export const isAvailable = (r: Row) => LIVE_CHANNELS.some((c) => r[c].available);

export type LiveChange = { kind: 'channels'; set: Array<[LiveChannel, boolean]> } | { kind: 'disconnect' } | { kind: 'connect' };

/**
 * Reads the PUT body: `chat[available]` etc. (form or flat JSON keys, or nested JSON `{chat: {available: 1}}`), or `connected=0` alone;
 * with `connectAccepted` (rest.policy liveConnectAccepted) `connected=1` alone too.
 */
export function parseLiveBody(body: Record<string, unknown>, connectAccepted = false): LiveChange {
  const flat: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if ((LIVE_CHANNELS as readonly string[]).includes(k) && v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [sub, sv] of Object.entries(v as Record<string, unknown>)) flat[`${k}[${sub}]`] = sv;
    } else flat[k] = v;
  }
  const accepted = [...LIVE_CHANNELS.map((c) => `${c}[available]`), 'connected'];
  const unknown = Object.keys(flat).filter((k) => !accepted.includes(k));
  if (unknown.length) throw badRequest(`Unknown field(s) ${unknown.map((u) => `'${u}'`).join(', ')}; accepted: ${accepted.join(', ')}.`);
  if (!Object.keys(flat).length) throw badRequest(`The body names no field: send chat[available], call[available], video[available] (1 or 0), or connected=0 alone.`);
  if ('connected' in flat) {
    const connect = connectAccepted && (flat.connected === 1 || flat.connected === '1');
    if (flat.connected !== 0 && flat.connected !== '0' && !connect) throw badRequest(`'connected' accepts only ${connectAccepted ? '0 or 1' : '0'} (got ${JSON.stringify(flat.connected)}).`);
    const others = Object.keys(flat).filter((k) => k !== 'connected');
    if (others.length) throw badRequest(`'connected=${connect ? 1 : 0}' must be the sole field; it cannot be combined with ${others.join(', ')}.`);
    return { kind: connect ? 'connect' : 'disconnect' };
  }
  const set: Array<[LiveChannel, boolean]> = [];
  for (const c of LIVE_CHANNELS) {
    const v = flat[`${c}[available]`];
    if (v === undefined) continue;
    // The spec's values: 1 or 0 (a number in JSON, text in a form); not true/false.
    if (v === 1 || v === '1') set.push([c, true]);
    else if (v === 0 || v === '0') set.push([c, false]);
    else throw badRequest(`'${c}[available]' must be 1 or 0 (got ${JSON.stringify(v)}).`);
  }
  return { kind: 'channels', set };
}

/**
 * Applies a change; creates the live row of an operator who never logged in. Returns the message and whether `connected` changed.
 * Making a channel available connects the operator (one cannot be available while offline).
 */
export function applyLive(req: FastifyRequest, op: Row, change: LiveChange): { message: string; connectedBefore: boolean; connectedAfter: boolean } {
  const ces = req.server.ces;
  const before = row(ces, 'live row', { table: 'operator_live', where: { operator_id: op.id } }) ?? null;
  if (!before) ces.db.prepare('INSERT INTO operator_live (operator_id, connected, chat_available, call_available, video_available) VALUES (?, 0, 0, 0, 0)').run(op.id);
  const connectedBefore = !!before?.connected;
  if (change.kind === 'disconnect') {
    ces.db.prepare('UPDATE operator_live SET connected = 0, chat_available = 0, call_available = 0, video_available = 0 WHERE operator_id = ?').run(op.id);
    return { message: TEXT.liveDisconnected, connectedBefore, connectedAfter: false };
  }
  if (change.kind === 'connect') {
    ces.db.prepare('UPDATE operator_live SET connected = 1 WHERE operator_id = ?').run(op.id);
    return { message: TEXT.liveConnected, connectedBefore, connectedAfter: true };
  }
  for (const [c, on] of change.set) if (on && !op[`${c}_enabled`]) throw badRequest(`The ${c} channel is not enabled for operator ${op.id} (${c}_enabled is false).`);
  const messages: string[] = [];
  for (const [c, on] of change.set) {
    ces.db.prepare(`UPDATE operator_live SET ${c}_available = ?${on ? ', connected = 1' : ''} WHERE operator_id = ?`).run(on ? 1 : 0, op.id);
    messages.push(TEXT.liveChannel(on, c));
  }
  const connectedAfter = !!liveRow(ces, op.id)!.connected;
  return { message: messages.join(' '), connectedBefore, connectedAfter };
}
