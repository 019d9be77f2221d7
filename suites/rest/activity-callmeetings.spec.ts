// G18: call meetings move pending → working → progress → done, or → failed from any state that is not final; moved through the simulation API, read back by REST.
import { test, expect, type SimDriver } from '../fixtures/sim.js';
import type { Api } from '../fixtures/target.js';
import { expectSchema } from '../fixtures/target.js';
import { clauses } from '../fixtures/evidence.js';
import { notJudgedIf } from '../verdicts.js';

/** A call meeting booked through the simulation API (an extension of DESIGN.md's contract: NOT JUDGED where the target has none). */
async function book(sim: SimDriver): Promise<{ id: number; link: string }> {
  const res = await sim.bookCallMeeting({ phoneNumber: '+33 1 00 00 00 18' });
  notJudgedIf(res.status === 404, 'the simulation API books no call meetings (POST {sim_url}/callmeetings): G18 cannot be driven');
  expect(res.status, `booking a call meeting: ${res.text}`).toBe(201);
  return { id: res.json.id, link: res.json._link };
}

/** The call meeting as GET /callmeeting/{id} (its `_link`) and the list GET /callmeeting show it. */
async function status(api: Api, m: { id: number; link: string }): Promise<string> {
  const one = await api.rest({ path: m.link });
  expect(one.json?.meta?.status, `GET ${m.link}: ${one.text}`).toBe('success');
  expectSchema('rest/callmeeting.json', one.json.data);
  const listed = await api.rest({ path: '/callmeeting?full=1&limit=100&page=1&filters[from]=' + encodeURIComponent(one.json.data.start_at) + '&filters[to]=' + encodeURIComponent(one.json.data.start_at) });
  expect(listed.json?.meta?.status, listed.text).toBe('success');
  const item = (listed.json.data as Array<{ id: number; status: string }>).find((x) => x.id === m.id);
  expect(item?.status, `GET /callmeeting lists call meeting ${m.id} with the same status as its _link`).toBe(one.json.data.status);
  return one.json.data.status;
}

test('a call meeting moves pending → working → progress → done, each state seen by GET /callmeeting and its _link; done is final',
  clauses('REST-CALL-05').needs('sim'), async ({ api, sim }) => {
    const m = await book(sim);
    expect(await status(api, m), 'a booked call meeting is pending').toBe('pending');
    for (const [to, skipped] of [['working', 'done'], ['progress', 'done'], ['done', 'pending']] as const) {
      const early = await sim.moveCallMeeting(m.id, skipped);
      expect(early.status, `moving to ${skipped} before ${to} is refused (G18 allows no such move): ${early.text}`).toBe(409);
      const move = await sim.moveCallMeeting(m.id, to);
      expect(move.status, `moving to ${to}: ${move.text}`).toBe(200);
      expect(await status(api, m), `the call meeting is ${to} now`).toBe(to);
    }
    for (const to of ['failed', 'progress', 'working']) {
      const after = await sim.moveCallMeeting(m.id, to);
      expect(after.status, `done is final: moving to ${to} is refused`).toBe(409);
    }
    expect(await status(api, m), 'a refused move changes nothing').toBe('done');
  });

test('a call meeting that is not final may fail from any state (pending, working, progress); failed is final',
  clauses('REST-CALL-05').needs('sim'), async ({ api, sim }) => {
    for (const path of [[], ['working'], ['working', 'progress']]) {
      const m = await book(sim);
      for (const to of path) expect((await sim.moveCallMeeting(m.id, to)).status, `moving to ${to}`).toBe(200);
      const failed = await sim.moveCallMeeting(m.id, 'failed');
      expect(failed.status, `${path.at(-1) ?? 'pending'} → failed: ${failed.text}`).toBe(200);
      expect(await status(api, m)).toBe('failed');
      const again = await sim.moveCallMeeting(m.id, 'working');
      expect(again.status, 'failed is final: no move leaves it').toBe(409);
    }
  });
