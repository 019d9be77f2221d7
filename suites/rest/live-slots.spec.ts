// G32: slot_number counts the open conversations an operator holds on a channel (up when one is assigned or transferred to them, down when it closes or leaves them); busy when every slot is in use.
import { test, expect, type SimDriver } from '../fixtures/sim.js';
import type { Api } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { createOperator } from './people-helpers.js';
import { notJudgedIf } from '../verdicts.js';

/** The call channel of one operator's live availability (GET /operator/{id}/live). */
async function callLive(api: Api, operatorId: number): Promise<{ slot_number: number; slot_max_number: number; busy: boolean }> {
  const res = await api.rest({ path: `/operator/${operatorId}/live` });
  expect(res.json?.meta?.status, res.text).toBe('success');
  return res.json.data.call;
}

/** A call started by a visitor (routed to some human operator), then transferred to `operatorId`: the operator holds it. */
async function callHeldBy(sim: SimDriver, operatorId: number): Promise<string> {
  const start = await sim.startConversation({ channel: 'call', text: 'a call for the slot checks' });
  expect(start.status, `sim conversation start: ${start.text}`).toBe(201);
  const uuid = start.json.conversationId as string;
  const moved = await sim.transfer(uuid, operatorId);
  expect(moved.status, `sim transfer to operator ${operatorId}: ${moved.text}`).toBe(200);
  return uuid;
}

test('slot_number counts the conversations held: up when one is transferred to the operator, down when it leaves them or closes',
  clauses('REST-LIVE-08').needs('sim'), async ({ api, sim }) => {
    // Operators of our own, never logged in: no routing picks them, so only this check moves their slots.
    const a = await createOperator(api, { call_enabled: true });
    const b = await createOperator(api, { call_enabled: true });
    expect((await callLive(api, a.id)).slot_number, 'a new operator holds no call').toBe(0);
    const uuid = await callHeldBy(sim, a.id);
    expect((await callLive(api, a.id)).slot_number, 'the call transferred to A takes one of its slots').toBe(1);
    const moved = await sim.transfer(uuid, b.id);
    expect(moved.status, moved.text).toBe(200);
    expect((await callLive(api, a.id)).slot_number, 'the call left A for B: A\'s slot is free again').toBe(0);
    expect((await callLive(api, b.id)).slot_number, 'B holds the call now').toBe(1);
    const closed = await sim.close(uuid);
    expect(closed.status, closed.text).toBe(200);
    expect((await callLive(api, b.id)).slot_number, 'the call closed: B\'s slot is free again').toBe(0);
  });

test('busy is true when every slot of the channel is in use, false again once one is free', clauses('REST-LIVE-09').needs('sim'), async ({ api, sim }) => {
  const op = await createOperator(api, { call_enabled: true });
  const before = await callLive(api, op.id);
  expect(before.busy, 'no call held: not busy').toBe(false);
  notJudgedIf(before.slot_max_number < 1 || before.slot_max_number > 5, `the call channel has ${before.slot_max_number} slots: this check fills 1 to 5`);
  const uuids: string[] = [];
  for (let i = 0; i < before.slot_max_number; i++) uuids.push(await callHeldBy(sim, op.id));
  const full = await callLive(api, op.id);
  expect(full.slot_number, 'every call transferred is held').toBe(before.slot_max_number);
  expect(full.busy, `slot_number ${full.slot_number} of slot_max_number ${full.slot_max_number}: busy`).toBe(true);
  const closed = await sim.close(uuids[0]!);
  expect(closed.status, closed.text).toBe(200);
  expect((await callLive(api, op.id)).busy, 'one call closed: a slot is free, not busy').toBe(false);
  for (const u of uuids.slice(1)) await sim.close(u);
});
