// Webhook event kinds raised by real actions (sim conversations, REST operators and live availability): v2 and old payload shapes, deprecated opt-in, offsite auto-close.
import { randomUUID } from 'node:crypto';
import { test, expect, clauses, needs, withClockLock, PROMPT_MS, expectSignedJson, isUuid, clientIdOf, type Api, type Hooks, type SinkDelivery } from './helpers.js';
import { LIMITS } from '../../lib/limits.js';
import type { Target } from '../../lib/target.js';
import { clauseNotJudged, expectPayload, notJudged, step, under } from '../verdicts.js';

const V2_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const OFFSET_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/;
const GRACE_MS = 2_000;

/** Starts a conversation through the sim API (the visitor side); returns its UUID and the visitor id used. */
async function startConversation(api: Api, hooks: Hooks, channel: string): Promise<{ uuid: string; visitorId: string }> {
  const visitorId = `wh-${randomUUID().slice(0, 12)}`;
  const res = await hooks.sim.startConversation({ channel, text: 'hello from the webhook suite', visitorId });
  // The simulation API drives the visitor side: its refusal is a set-up step the target failed (NOT JUDGED naming it).
  if (res.status !== 201 || !isUuid(res.json?.conversationId)) notJudged(`the set-up step POST {sim_url}/conversations (${channel}) failed: HTTP ${res.status} ${res.text.slice(0, 200)}`);
  return { uuid: res.json.conversationId, visitorId };
}
async function view(api: Api, hooks: Hooks, uuid: string): Promise<any> {
  const res = await hooks.sim.conversation(uuid);
  if (res.status !== 200) notJudged(`the set-up step GET {sim_url}/conversations/${uuid} failed: HTTP ${res.status} ${res.text.slice(0, 200)}`);
  return res.json;
}
async function closeConversation(api: Api, hooks: Hooks, uuid: string): Promise<void> {
  const res = await hooks.sim.close(uuid);
  // Already closed: a check of another suite moved the service clock past an inactivity timer meanwhile, and the service closed
  // it itself. Closed either way: the events these checks wait for are those of a conversation that ends, however it ends.
  if (res.status === 409 && res.json?.error === 'closed') {
    test.info().annotations.push({ type: 'note', description: `conversation ${uuid} was already closed by the service (its clock moved by another check)` });
    return;
  }
  if (res.status !== 200) notJudged(`the set-up step POST {sim_url}/conversations/${uuid}/close failed: HTTP ${res.status} ${res.text.slice(0, 200)}`);
}

/** Checks shared by every v2 conversation payload, each under its own clause. */
function expectV2(p: any, target: Target, uuid: string, channel: string) {
  under('WH-FMT-06', () => expect(p.conversationId, 'v2 conversationId is the conversation UUID').toBe(uuid));
  under('WH-FMT-05', () => expect(p.channel, 'v2 channel is uppercase').toBe(channel));
  under('WH-FMT-01', () => {
    expect(p.createdAt, 'v2 createdAt is UTC with milliseconds').toMatch(V2_TIME);
    expect(p.sentAt, 'v2 sentAt is UTC with milliseconds').toMatch(V2_TIME);
  });
  under('WH-FMT-03', () => {
    expect(p.clientId, 'clientId is the account of the subscription').toBe(clientIdOf(target, target.api_key));
    expect(isUuid(p.eventId), 'eventId is a UUID').toBe(true);
  });
}
/**
 * The deliveries of one conversation's event, found by its UUID; none so found, an event of that kind on this check's own route
 * whose conversationId is no UUID at all: a conversationId of the wrong form is judged by its own clause (WH-FMT-06), never
 * taken for an event that did not come.
 */
async function eventOf(hooks: Hooks, sub: Awaited<ReturnType<Hooks['subscribe']>>, eventType: string, uuid: string): Promise<SinkDelivery[]> {
  const byUuid = (await hooks.wait(sub, { eventType, 'body.conversationId': uuid }, 1, PROMPT_MS)).deliveries;
  if (byUuid.length) return byUuid;
  const odd = (await hooks.wait(sub, { eventType }, 1, 0)).deliveries.filter((d) => !isUuid(d.json?.conversationId));
  return odd.slice(0, 1);
}
/** A payload's fields as its event's shape lists them (WH-FMT-04): judged after the clauses of its single fields (expectV2). */
const expectShape = (schemaId: string, p: unknown) => under('WH-FMT-04', () => expectPayload(schemaId, p));

test.describe('webhook events', needs('platform', 'sim', 'sink_url'), () => {

  test('a chat conversation: v2.conversation.pushed when it begins, v2.conversation.closed with operatorIds when it ends',
    clauses('WH-EVT-01', 'WH-EVT-03', 'WH-EVT-04', 'WH-FMT-01', 'WH-FMT-04', 'WH-FMT-05', 'WH-FMT-06', 'WH-SIG-01'), async ({ hooks, api, target }) => {
      const sub = await hooks.subscribe({ events: ['v2.conversation.pushed', 'v2.conversation.closed'] });
      const { uuid } = await startConversation(api, hooks, 'chat');
      const pushed = await eventOf(hooks, sub, 'v2.conversation.pushed', uuid);
      under('WH-EVT-01', () => expect(pushed.length, 'v2.conversation.pushed arrives when the chat begins').toBe(1));
      const p = pushed[0]!.json;
      expectSignedJson(pushed[0]!, sub.secret);
      expectV2(p, target, uuid, 'CHAT');
      expectShape('webhooks/v2.conversation.pushed.json', p);
      const v = await view(api, hooks, uuid);
      under('WH-EVT-01', () => {
        expect(p.operatorId, 'operatorId is the operator handling the conversation').toBe(v.operatorId);
        expect(p.projectId, 'projectId is the conversation\'s project').toBe(v.websiteId);
      });

      await closeConversation(api, hooks, uuid);
      const closed = await eventOf(hooks, sub, 'v2.conversation.closed', uuid);
      under('WH-EVT-03', () => expect(closed.length, 'v2.conversation.closed arrives when the chat ends').toBe(1));
      const c = closed[0]!.json;
      const operatorIds = (await view(api, hooks, uuid)).operatorIds;
      under('WH-EVT-03', () => {
        expect('operatorId' in c, 'closed carries operatorIds, not operatorId').toBe(false);
        expect(c.operatorIds, 'operatorIds lists the conversation\'s operators').toEqual(operatorIds);
      });
      under('WH-EVT-04', () => expect(typeof c.visitorExternalId, 'onsite: visitorExternalId is a String').toBe('string'));
      expectV2(c, target, uuid, 'CHAT');
      expectShape('webhooks/v2.conversation.closed.json', c);
    });

  test('a video conversation: v2.conversation.pushed with channel VIDEO', clauses('WH-EVT-01', 'WH-FMT-05'), async ({ hooks, api, target }) => {
    const sub = await hooks.subscribe({ events: ['v2.conversation.pushed'] });
    const { uuid } = await startConversation(api, hooks, 'video');
    const ds = await eventOf(hooks, sub, 'v2.conversation.pushed', uuid);
    under('WH-EVT-01', () => expect(ds.length, 'v2.conversation.pushed arrives when the video conversation begins').toBe(1));
    expectV2(ds[0]!.json, target, uuid, 'VIDEO');
    expectShape('webhooks/v2.conversation.pushed.json', ds[0]!.json);
  });

  test('a chat transferred to another operator: v2.conversation.pushed names the receiving operator', clauses('WH-EVT-02'), async ({ hooks, api, target }) => {
    const sub = await hooks.subscribe({ events: ['v2.conversation.pushed'] });
    const { uuid } = await startConversation(api, hooks, 'chat');
    expect((await hooks.wait(sub, { 'body.conversationId': uuid }, 1, PROMPT_MS)).deliveries.length, 'pushed when it begins').toBe(1);
    const v = await view(api, hooks, uuid);
    const bots = await hooks.sim.bots();
    const botIds = new Set(((bots.json?.bots ?? []) as Array<{ operatorId: number }>).map((b) => b.operatorId));
    const ops = await api.rest({ path: '/operator?limit=100' });
    expect(ops.status, ops.text).toBe(200);
    const to = (ops.json.data as Array<{ id: number }>).map((o) => o.id).find((id) => id !== v.operatorId && !botIds.has(id));
    expect(to, 'another human operator to transfer to').toBeTruthy();
    const res = await hooks.sim.transfer(uuid, to!);
    expect(res.status, `sim transfer: ${res.text}`).toBe(200);
    const ds = (await hooks.wait(sub, { 'body.conversationId': uuid }, 2, PROMPT_MS)).deliveries;
    expect(ds.length, 'a second v2.conversation.pushed arrives with the transfer').toBe(2);
    expectPayload('webhooks/v2.conversation.pushed.json', ds[1]!.json);
    expectV2(ds[1]!.json, target, uuid, 'CHAT');
    expect(ds[1]!.json.operatorId, 'the pushed event names the receiving operator').toBe(to);
  });

  test('a call: conversation.started (old shape, lowercase call, integer id), then v2.conversation.closed with channel CALL',
    clauses('WH-EVT-06', 'WH-EVT-03', 'WH-FMT-02', 'WH-FMT-05', 'WH-FMT-06'), async ({ hooks, api, target }) => {
      const sub = await hooks.subscribe({ events: ['conversation.started', 'v2.conversation.pushed', 'v2.conversation.closed'] });
      const { uuid, visitorId } = await startConversation(api, hooks, 'call');
      const started = (await hooks.wait(sub, { eventType: 'conversation.started', 'body.visitorId': visitorId }, 1, PROMPT_MS)).deliveries;
      under('WH-EVT-06', () => expect(started.length, 'conversation.started arrives when the call begins').toBe(1));
      const s = started[0]!.json;
      under('WH-EVT-06', () => expectPayload('webhooks/conversation.started.json', s));
      const v = await view(api, hooks, uuid);
      under('WH-FMT-05', () => expect(s.channel, 'old events name the channel in lowercase').toBe('call'));
      under('WH-FMT-06', () => expect(s.conversationId, 'old conversationId is the integer id').toBe(v.id));
      under('WH-EVT-06', () => {
        expect(s.websiteId, 'websiteId is the conversation\'s website').toBe(v.websiteId);
        expect(s.clientId).toBe(clientIdOf(target, target.api_key));
      });
      under('WH-FMT-02', () => expect(s.createdAt, 'old events use an offset timestamp').toMatch(OFFSET_TIME));
      await closeConversation(api, hooks, uuid);
      const closed = await eventOf(hooks, sub, 'v2.conversation.closed', uuid);
      under('WH-EVT-03', () => expect(closed.length, 'v2.conversation.closed arrives when the call ends').toBe(1));
      expectV2(closed[0]!.json, target, uuid, 'CALL');
      expectShape('webhooks/v2.conversation.closed.json', closed[0]!.json);
      const log = await hooks.log(sub, { eventType: 'v2.conversation.pushed' });
      under('WH-EVT-06', () => expect(log.some((e) => e.payload?.conversationId === uuid), 'a call is not pushed (v2.conversation.pushed is for CHAT and VIDEO)').toBe(false));
    });

  test('an offsite conversation that ends: v2.conversation.closed with visitorExternalId null', clauses('WH-EVT-04', 'WH-EVT-03'), async ({ hooks, api, target }) => {
    const sub = await hooks.subscribe({ events: ['v2.conversation.closed'] });
    const { uuid } = await startConversation(api, hooks, 'social_b');
    await closeConversation(api, hooks, uuid);
    const ds = await eventOf(hooks, sub, 'v2.conversation.closed', uuid);
    under('WH-EVT-03', () => expect(ds.length, 'v2.conversation.closed arrives').toBe(1));
    under('WH-EVT-04', () => expect(ds[0]!.json.visitorExternalId, 'offsite: visitorExternalId is null').toBeNull());
    expectV2(ds[0]!.json, target, uuid, 'SOCIAL_B');
    expectShape('webhooks/v2.conversation.closed.json', ds[0]!.json);
  });

  test('an offsite conversation idle for 7 days after its last activity closes by itself and v2.conversation.closed is sent', clauses('WH-EVT-05', 'WH-EVT-04').needs('clock'), async ({ hooks, api, target }) => {
    const sub = await hooks.subscribe({ events: ['v2.conversation.closed'] });
    const { uuid } = await startConversation(api, hooks, 'social_a');
    await withClockLock(target, 'exclusive', async () => {
      // Activity in between: a visitor message 3 days in restarts the 7 days (a timer counted from the start would close first).
      await hooks.sim.advance(3 * 24 * 3_600_000);
      const said = await hooks.sim.visitorSays(uuid, 'still there?');
      if (said.status >= 300) notJudged(`the set-up step POST {sim_url}/conversations/{id}/visitor-messages (3 days in) failed: HTTP ${said.status} ${said.text.slice(0, 200)}`);
      await hooks.sim.advance(LIMITS.offsiteInactivityMs - 60_000);
      const state = (await view(api, hooks, uuid)).state;
      const early = (await hooks.log(sub)).some((e) => e.payload?.conversationId === uuid);
      under('WH-EVT-05', () => {
        expect(state, 'still open a minute before 7 days of inactivity after the last activity').toBe('started');
        expect(early, 'no closed event before 7 days').toBe(false);
      });
      await hooks.sim.advance(2 * 60_000);
    });
    const ds = await eventOf(hooks, sub, 'v2.conversation.closed', uuid);
    under('WH-EVT-05', () => expect(ds.length, 'v2.conversation.closed arrives once 7 days of inactivity have passed').toBe(1));
    under('WH-EVT-04', () => expect(ds[0]!.json.visitorExternalId, 'offsite: visitorExternalId is null').toBeNull());
    expectV2(ds[0]!.json, target, uuid, 'SOCIAL_A');
    expectShape('webhooks/v2.conversation.closed.json', ds[0]!.json);
  });

  test('deprecated kinds go only to a subscription that opted in, in their old shapes', clauses('WH-SUB-04', 'WH-SUB-01', 'WH-EVT-11', 'WH-FMT-02'), async ({ hooks, api, target }) => {
    const optedIn = await hooks.subscribe({ events: ['conversation.started', 'conversation.closed', 'v2.conversation.pushed'], includeDeprecated: true });
    const plain = await hooks.subscribe({ events: ['conversation.started', 'v2.conversation.pushed'] });
    const refused = await api.postJson(`${hooks.platformUrl}/webhooks`, { url: `${hooks.sinkUrl}/hooks/${randomUUID()}`, secret: 'whsec-' + randomUUID(), events: ['conversation.closed'] }, { 'x-api-key': optedIn.key });
    // How the platform API (G17) refuses it is the reference's decision; that nothing deprecated reaches `plain` is the spec's.
    under('WH-SUB-01', () => expect(refused.status, 'naming a deprecated kind without opting in is refused with 400').toBe(400));
    const { uuid, visitorId } = await startConversation(api, hooks, 'chat');
    // G33: a service that never sends deprecated kinds conforms; the reference sends them to a subscriber that opted in (REF).
    const old = (await hooks.wait(optedIn, { eventType: 'conversation.started', 'body.visitorId': visitorId }, 1, PROMPT_MS)).deliveries;
    const v = await view(api, hooks, uuid);
    // G33: a service that never sends deprecated kinds conforms: none arriving is NOT JUDGED; sending them is the reference
    // implementation's own decision, so against it their absence is that REF clause's failure.
    const none = 'G33: a service that never sends deprecated kinds conforms, and none arrived';
    if (!old.length && !target.reference) clauseNotJudged('WH-EVT-11', `${none} (conversation.started for chat)`);
    else {
      under('WH-EVT-11', () => {
        expect(old.length, 'the opted-in subscription gets the deprecated conversation.started for chat once').toBe(1);
        expectPayload('webhooks/conversation.started.json', old[0]!.json);
        expect(old[0]!.json.channel).toBe('chat');
        expect(old[0]!.json.conversationId, 'old conversationId is the integer id').toBe(v.id);
      });
      under('WH-FMT-02', () => expect(old[0]!.json.createdAt, 'old events use an offset timestamp').toMatch(OFFSET_TIME));
    }
    // That the plain subscription gets events at all is what makes its silence on deprecated kinds evidence.
    await step('WH-EVT-01', 'v2.conversation.pushed to the subscription that did not opt in', async () => {
      expect((await hooks.wait(plain, { eventType: 'v2.conversation.pushed', 'body.conversationId': uuid }, 1, PROMPT_MS)).deliveries.length, 'the other subscription gets v2.conversation.pushed').toBe(1);
    });
    const leaked = await hooks.wait(plain, { eventType: 'conversation.started', 'body.visitorId': visitorId }, 1, GRACE_MS);
    const queued = (await hooks.log(plain, { eventType: 'conversation.started' })).some((e) => e.payload?.visitorId === visitorId);
    under('WH-SUB-04', () => {
      expect(leaked.deliveries.length, 'a subscription that did not opt in never gets a deprecated kind').toBe(0);
      expect(queued, 'nor is one queued for it').toBe(false);
    });
    await closeConversation(api, hooks, uuid);
    const closed = (await hooks.wait(optedIn, { eventType: 'conversation.closed', 'body.visitorId': visitorId }, 1, PROMPT_MS)).deliveries;
    if (!closed.length && !target.reference) clauseNotJudged('WH-EVT-11', `${none} (conversation.closed)`);
    else under('WH-EVT-11', () => expectPayload('webhooks/conversation.closed.json', closed[0]!.json));
  });

  test('operators created, updated, connected and disconnected: user.created, user.updated, user.connected, user.disconnected',
    clauses('WH-EVT-08', 'WH-EVT-09', 'WH-EVT-10', 'WH-FMT-02', 'WH-FMT-03'), async ({ hooks, api, target }) => {
      const sub = await hooks.subscribe({ events: ['user.created', 'user.updated', 'user.connected', 'user.disconnected'] });
      const tag = randomUUID().slice(0, 8);
      // Set-up steps judged under the clause of the REST call they make; G10 makes meta.status, not the HTTP status, the contract.
      const succeeded = (res: { json: any; status: number; text: string }) => expect(res.json?.meta?.status, `${res.status} ${res.text.slice(0, 200)}`).toBe('success');
      const userId = await step('REST-OP-05', 'POST /operator (the operator whose events are awaited)', async () => {
        const created = await api.rest({ method: 'POST', path: '/operator', json: { name: `Hook ${tag}`, first_name: 'Webhook', email: `hook-${tag}@client1.example` } });
        succeeded(created);
        expect(typeof created.json.data?.id, 'the created operator has an id').toBe('number');
        return created.json.data.id as number;
      });
      try {
        const expectKind = async (kind: string, clause: string) => {
          const ds = (await hooks.wait(sub, { eventType: kind, 'body.userId': userId }, 1, PROMPT_MS)).deliveries;
          under(clause, () => expect(ds.length, `${kind} arrives`).toBe(1));
          if (!ds.length) return; // a REF kind that did not come (WH-EVT-10): its clause said so, nothing else to judge
          under(clause, () => expect(ds[0]!.json.userId, 'userId is the operator id').toBe(userId));
          under('WH-FMT-03', () => expect(ds[0]!.json.clientId).toBe(clientIdOf(target, target.api_key)));
          under('WH-FMT-02', () => expect(ds[0]!.json.createdAt, 'old events use an offset timestamp').toMatch(OFFSET_TIME));
          under('WH-FMT-04', () => expectPayload(`webhooks/${kind}.json`, ds[0]!.json));
        };
        await expectKind('user.created', 'WH-EVT-08');
        await step('REST-OP-07', 'PUT /operator/{id} (the update awaited as user.updated)', async () => succeeded(await api.rest({ method: 'PUT', path: `/operator/${userId}`, json: { first_name: 'Renamed' } })));
        await expectKind('user.updated', 'WH-EVT-09');
        // G22: user.connected and user.disconnected, their moments and payloads, are the reference's decision.
        await step('REST-LIVE-05', 'PUT /operator/{id}/live chat[available]=1', async () => succeeded(await api.rest({ method: 'PUT', path: `/operator/${userId}/live`, form: { 'chat[available]': '1' } })));
        await under('WH-EVT-10', () => expectKind('user.connected', 'WH-EVT-10'));
        await step('REST-LIVE-06', 'PUT /operator/{id}/live connected=0', async () => succeeded(await api.rest({ method: 'PUT', path: `/operator/${userId}/live`, form: { connected: '0' } })));
        await under('WH-EVT-10', () => expectKind('user.disconnected', 'WH-EVT-10'));
      } finally {
        await api.rest({ method: 'DELETE', path: `/operator/${userId}` });
      }
    });
});
